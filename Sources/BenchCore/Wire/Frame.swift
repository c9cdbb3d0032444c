/// One whole frame, length field included, in memory someone else owns.
///
/// A ``FrameDecoder`` hands frames to its callback as views into its input or its own buffer; the view is
/// valid only during that call. Field accessors read and write big-endian integers at fixed offsets and
/// never check the kind: the decoder has already checked that the frame is long enough for it.
public struct Frame {
    /// The frame's kind, from its kind byte.
    public let kind: FrameKind
    /// The frame's bytes, from the first byte of the length field to the last byte of padding.
    public let bytes: UnsafeMutableRawBufferPointer

    /// Wraps bytes that hold a complete frame of the given kind.
    public init(kind: FrameKind, bytes: UnsafeMutableRawBufferPointer) {
        self.kind = kind
        self.bytes = bytes
    }
}

// Offsets in a frame; see WireFormat for the layout.
private enum Offset {
    static let length = 0
    static let kind = 4
    static let helloVersion = 5
    static let controlClient = 8  // hello and heartbeat
    static let helloToken = 12
    static let sequence = 8
    static let client = 12
    static let sent = 16
    static let received = 24
    static let receivedKernel = 32
}

extension Frame {
    /// The protocol version of a hello frame.
    public var helloVersion: UInt8 { bytes[Offset.helloVersion] }

    /// The client id of a hello frame.
    public var helloClient: UInt32 { load(UInt32.self, at: Offset.controlClient) }

    /// The run token of a hello frame: a client that does not know it is not one of the run's.
    public var helloToken: UInt64 { load(UInt64.self, at: Offset.helloToken) }

    /// The client id of a heartbeat frame.
    public var heartbeatClient: UInt32 { load(UInt32.self, at: Offset.controlClient) }

    /// A data or echo frame's sequence number: the broadcast in fanout, the message in roundtrip.
    public var sequence: UInt32 { load(UInt32.self, at: Offset.sequence) }

    /// The client a data or echo frame is addressed to or comes from.
    public var client: UInt32 { load(UInt32.self, at: Offset.client) }

    /// When the server wrote the data frame (monotonic nanoseconds).
    public var sentNanoseconds: UInt64 { load(UInt64.self, at: Offset.sent) }

    /// A delivery frame's sender: the member whose message was read (a number beyond 32 bits is no client's).
    public var deliverySender: UInt64 { sentNanoseconds }

    /// When the client's read returned the data frame (monotonic nanoseconds); 0 in a data frame.
    public var receivedNanoseconds: UInt64 { load(UInt64.self, at: Offset.received) }

    /// The kernel's receive stamp of the data frame at the client (monotonic ns); 0 when it has none.
    public var receivedKernelNanoseconds: UInt64 { load(UInt64.self, at: Offset.receivedKernel) }

    /// Turns this data frame into its echo in place: kind byte and receive times; the rest is kept.
    public func convertToEcho(receivedNanoseconds: UInt64, receivedKernelNanoseconds: UInt64 = 0) {
        bytes[Offset.kind] = FrameKind.echo.rawValue
        store(receivedNanoseconds, at: Offset.received)
        store(receivedKernelNanoseconds, at: Offset.receivedKernel)
    }

    /// Writes the fields that change from one data frame to the next in a frame built by
    /// ``encodeMessage(into:kind:sequence:client:sentNanoseconds:receivedNanoseconds:)``.
    @inline(__always)
    public func setMessageFields(sequence: UInt32, client: UInt32, sentNanoseconds: UInt64) {
        store(sequence, at: Offset.sequence)
        store(client, at: Offset.client)
        store(sentNanoseconds, at: Offset.sent)
    }

    /// Writes a data or echo frame that fills `buffer` (its size is the message size, at least
    /// ``WireFormat/minimumMessageSize``); padding bytes are zero.
    @discardableResult
    public static func encodeMessage(
        into buffer: UnsafeMutableRawBufferPointer,
        kind: FrameKind = .data,
        sequence: UInt32,
        client: UInt32,
        sentNanoseconds: UInt64,
        receivedNanoseconds: UInt64 = 0,
        receivedKernelNanoseconds: UInt64 = 0
    ) -> Frame {
        precondition(buffer.count >= WireFormat.minimumMessageSize && buffer.count <= WireFormat.maximumFrameSize)
        precondition(kind == .data || kind == .echo || kind == .delivery || kind == .read)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        let frame = Frame(kind: kind, bytes: buffer)
        frame.store(UInt32(buffer.count - WireFormat.lengthFieldSize), at: Offset.length)
        buffer[Offset.kind] = kind.rawValue
        frame.store(sequence, at: Offset.sequence)
        frame.store(client, at: Offset.client)
        frame.store(sentNanoseconds, at: Offset.sent)
        frame.store(receivedNanoseconds, at: Offset.received)
        frame.store(receivedKernelNanoseconds, at: Offset.receivedKernel)
        return frame
    }

    /// Writes a hello frame into the first ``WireFormat/helloFrameSize`` bytes of `buffer`.
    @discardableResult
    public static func encodeHello(
        into buffer: UnsafeMutableRawBufferPointer,
        client: UInt32,
        token: UInt64,
        version: UInt8 = WireFormat.version
    ) -> Frame {
        let frame = encodeControl(.hello, size: WireFormat.helloFrameSize, into: buffer, client: client)
        frame.bytes[Offset.helloVersion] = version
        frame.store(token, at: Offset.helloToken)
        return frame
    }

    /// Writes a heartbeat frame into the first ``WireFormat/heartbeatFrameSize`` bytes of `buffer`.
    @discardableResult
    public static func encodeHeartbeat(into buffer: UnsafeMutableRawBufferPointer, client: UInt32) -> Frame {
        encodeControl(.heartbeat, size: WireFormat.heartbeatFrameSize, into: buffer, client: client)
    }

    /// Writes the goodbye the server sends client `client` at the end of the run into the first
    /// ``WireFormat/heartbeatFrameSize`` bytes of `buffer` (it has a heartbeat's layout).
    @discardableResult
    public static func encodeGoodbye(into buffer: UnsafeMutableRawBufferPointer, client: UInt32) -> Frame {
        encodeControl(.goodbye, size: WireFormat.heartbeatFrameSize, into: buffer, client: client)
    }

    /// Writes the order to drop every connection (``FrameKind/dropConnections``) into the first
    /// ``WireFormat/heartbeatFrameSize`` bytes of `buffer`.
    @discardableResult
    public static func encodeDropConnections(into buffer: UnsafeMutableRawBufferPointer) -> Frame {
        encodeControl(.dropConnections, size: WireFormat.heartbeatFrameSize, into: buffer, client: 0)
    }

    /// A zeroed frame of a fixed size carrying a client id at offset 8: hello, heartbeat and goodbye.
    private static func encodeControl(
        _ kind: FrameKind,
        size: Int,
        into buffer: UnsafeMutableRawBufferPointer,
        client: UInt32
    ) -> Frame {
        let frame = encodeFixed(kind, size: size, into: buffer)
        frame.store(client, at: Offset.controlClient)
        return frame
    }

    /// A zeroed frame of `kind` and a fixed `size` at the start of `buffer`, its length and kind written: the body is
    /// the caller's (hello, heartbeat, the agent and clock frames).
    static func encodeFixed(_ kind: FrameKind, size: Int, into buffer: UnsafeMutableRawBufferPointer) -> Frame {
        precondition(buffer.count >= size)
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size])
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        let frame = Frame(kind: kind, bytes: bytes)
        frame.store(UInt32(size - WireFormat.lengthFieldSize), at: Offset.length)
        bytes[Offset.kind] = kind.rawValue
        return frame
    }

    /// The big-endian integer at `offset`.
    @inline(__always)
    func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Writes `value` big-endian at `offset`.
    @inline(__always)
    func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        bytes.storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }
}
