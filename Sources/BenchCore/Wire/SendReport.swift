/// What a roundtrip target run's client tells the measuring thread about a message the thread ordered it to send
/// (the order is a data frame: sequence and client): written at `time`, the kernel's transmit stamp of it, or not
/// written and why. Its echo, when it comes back, is a read report (``FrameKind/read``), as a subscriber's broadcast is.
///
///     length=20 | kind=14 | what:u8 | reserved:u16 | sequence:u32 | client:u32 | time:u64
///
/// The measuring thread checks every field, as it would a peer's.
public struct SendReport: Equatable, Sendable {
    public enum What: UInt8, Sendable {
        /// The message went to the socket (or its queue) at `time`, taken right before the write.
        case written = 1
        /// The kernel's transmit stamp of the message (`time`, already on the monotonic clock).
        case transmitStamp = 2
        /// Not written: the connection's queue was full (`--max-queue`).
        case droppedQueueFull = 3
        /// Not written: the connection was closed (or could not be written to).
        case droppedClosed = 4
    }

    public var what: What
    public var sequence: UInt32
    public var client: UInt32
    public var time: UInt64

    /// Size of the frame, length field included.
    public static let size = 24

    public init(_ what: What, sequence: UInt32, client: UInt32, time: UInt64) {
        self.what = what
        self.sequence = sequence
        self.client = client
        self.time = time
    }

    /// Reads a send report (the decoder checked its kind and size); nil when `what` is unknown.
    public init?(_ frame: Frame) {
        guard let what = What(rawValue: frame.bytes[5]) else { return nil }
        self.init(
            what, sequence: frame.load(UInt32.self, at: 8), client: frame.load(UInt32.self, at: 12),
            time: frame.load(UInt64.self, at: 16))
    }

    /// Writes the frame at the start of `buffer` (at least ``size`` bytes).
    @inline(__always)
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        let frame = Frame.encodeFixed(.sendReport, size: Self.size, into: buffer)
        frame.bytes[5] = what.rawValue
        frame.store(sequence, at: 8)
        frame.store(client, at: 12)
        frame.store(time, at: 16)
    }
}
