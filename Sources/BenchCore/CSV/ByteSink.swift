/// Where encoded bytes go: a file (in BenchReports, which may call the system) or memory (here, for tests).
public protocol ByteSink {
    /// Takes all of `bytes`, or throws.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// A ``ByteSink`` that keeps the bytes in memory.
public struct ByteArraySink: ByteSink, Sendable {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func write(_ bytes: UnsafeRawBufferPointer) {
        self.bytes.append(contentsOf: bytes)
    }

    /// The bytes as UTF-8 text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}
