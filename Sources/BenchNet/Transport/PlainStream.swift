/// Plain TCP: the bytes read are the application's bytes.
public struct PlainStream: StreamLayer {
    public init(role: TransportRole, settings: TransportSettings) {}

    public var isEstablished: Bool { true }

    public mutating func start(_ write: WireWriter) {}

    @inline(__always)
    public mutating func nextPlaintext(
        in buffer: UnsafeMutableRawBufferPointer, count: inout Int, write: WireWriter
    ) -> UnsafeMutableRawBufferPointer? {
        guard count > 0 else { return nil }
        defer { count = 0 }
        return UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
    }

    @inline(__always)
    public mutating func send(head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, write: WireWriter) -> Bool {
        write(head, body)
    }

    public mutating func close(_ write: WireWriter) {}
}

/// Bench frames as they are: nothing to unwrap, nothing to add.
public struct BenchFraming: FramingLayer {
    public init(role: TransportRole, settings: TransportSettings) {}

    public var isEstablished: Bool { true }
    public var pingsReceived: Int { 0 }

    public mutating func start(_ reply: (UnsafeRawBufferPointer) -> Bool) {}

    @inline(__always)
    public mutating func unwrap(
        _ bytes: UnsafeMutableRawBufferPointer, offset: inout Int, reply: (UnsafeRawBufferPointer) -> Bool
    ) -> FramingOutput? {
        guard offset < bytes.count else { return nil }
        defer { offset = bytes.count }
        return .data(UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]))
    }

    @inline(__always)
    public mutating func head(for body: UnsafeMutableRawBufferPointer, into head: UnsafeMutableRawBufferPointer) -> Int { 0 }

    public mutating func ping(into buffer: UnsafeMutableRawBufferPointer) -> Int { 0 }

    public mutating func close(code: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int { 0 }
    public static var scratchSize: Int { 0 }
}
