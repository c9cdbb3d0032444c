/// One fanout broadcast's row (or a chat message's): when it was due and went out, how many clients got it, first and
/// last arrival.
public struct BroadcastResult: Sendable, Equatable {
    /// The broadcast's sequence number (warmup broadcasts come first and are not reported); in chat, the sender's.
    public let sequence: Int
    /// Chat: the member that sent it (0 in fanout).
    public let sender: Int
    /// When it was due (monotonic ns).
    public let scheduled: UInt64
    /// t0: the time before its first write.
    public let start: UInt64
    /// Clients that got it within the timeout.
    public let delivered: Int
    /// Clients that did not.
    public let lost: Int
    /// The earliest and latest client read among those that got it; nil when none did.
    public let firstReceived: UInt64?
    public let lastReceived: UInt64?
    /// Its first write − when it was due: how far the harness was behind.
    public let lag: UInt64?
    /// Chat through a server that sends the sender its own copy: the sender's read of it − its write; nil otherwise, or
    /// when none came in time.
    public let roundTrip: UInt64?

    public init(
        sequence: Int, sender: Int = 0, scheduled: UInt64, start: UInt64, delivered: Int, lost: Int,
        firstReceived: UInt64?, lastReceived: UInt64?, lag: UInt64?, roundTrip: UInt64? = nil
    ) {
        self.roundTrip = roundTrip
        self.sequence = sequence
        self.sender = sender
        self.scheduled = scheduled
        self.start = start
        self.delivered = delivered
        self.lost = lost
        self.firstReceived = firstReceived
        self.lastReceived = lastReceived
        self.lag = lag
    }

    /// True when every client got it in time: only then are spread and completion defined.
    public var isComplete: Bool { lost == 0 && delivered > 0 }

    /// Last − first client read; nil for an incomplete broadcast (never computed from the survivors).
    public var spread: UInt64? {
        guard isComplete, let first = firstReceived, let last = lastReceived else { return nil }
        return last - first
    }

    /// Last client read − t0; nil for an incomplete broadcast.
    public var completion: UInt64? {
        guard isComplete, let last = lastReceived else { return nil }
        return last - start
    }
}
