import BenchClients
import BenchCore

/// One entry of the stream a run hands from its measuring thread to its writer: a message whose fate is sealed,
/// the end of a fanout broadcast, the end of a report interval, or the end of the run.
///
/// A plain value of fixed size, copied into a ``SettledQueue`` slot: what the measuring thread's ring of in-flight
/// messages (``RunRecording``) held for it, so that the ring's row can be reused. Times are monotonic nanoseconds, 0
/// for "never happened", as in ``RunRecording``.
public struct SettledMessage: Sendable, Equatable {
    /// What the entry is.
    public enum Kind: UInt8, Sendable {
        /// Sending began at `scheduled` (monotonic ns): the run's time origin. The stream's first entry.
        case start
        /// A measured message (warmup and never-dispatched messages are not streamed).
        case message
        /// Fanout: broadcast `sequence` is complete; every message of it came before. `scheduled`, `broadcastStart`
        /// and `broadcastStartKernel` are its own. Chat: `sender`'s message `sequence`, delivered to its room.
        case broadcast
        /// The report interval `sequence` ended at `scheduled`: what follows belongs to the next one.
        case intervalEnd
        /// The run ended; nothing follows.
        case end
        /// Fanout, in a server shard's stream alone (`--server-procs`): broadcast `sequence` began, its `scheduled`,
        /// `broadcastStart` and `broadcastStartKernel` as its row will be handed on (once its first write's stamp came,
        /// or a stamps' grace passed); before any of its messages, so that the run's process measures each of them
        /// from the broadcast's one t0 as it comes (``ShardMerge``).
        case broadcastBegan
    }

    public var kind: Kind
    public var outcome: MessageOutcome
    /// The message's sequence number, warmup included; for ``Kind/intervalEnd`` the interval's number.
    public var sequence: Int
    /// The client it went to.
    public var client: Int
    /// Chat: the member that sent it (0 in the other scenarios).
    public var sender: Int
    /// When it was due (its broadcast's due time in fanout); for ``Kind/intervalEnd`` the interval's end.
    public var scheduled: UInt64
    public var written: UInt64
    public var received: UInt64
    public var echoed: UInt64
    public var writtenKernel: UInt64
    public var receivedKernel: UInt64
    public var echoedKernel: UInt64
    /// Fanout: t0 of its broadcast, from user space and from the kernel (0 when no stamp came).
    public var broadcastStart: UInt64
    public var broadcastStartKernel: UInt64

    public init(
        kind: Kind, outcome: MessageOutcome = .notDispatched, sequence: Int = 0, client: Int = 0, sender: Int = 0,
        scheduled: UInt64 = 0,
        written: UInt64 = 0, received: UInt64 = 0, echoed: UInt64 = 0, writtenKernel: UInt64 = 0,
        receivedKernel: UInt64 = 0, echoedKernel: UInt64 = 0, broadcastStart: UInt64 = 0, broadcastStartKernel: UInt64 = 0
    ) {
        self.kind = kind
        self.outcome = outcome
        self.sequence = sequence
        self.client = client
        self.sender = sender
        self.scheduled = scheduled
        self.written = written
        self.received = received
        self.echoed = echoed
        self.writtenKernel = writtenKernel
        self.receivedKernel = receivedKernel
        self.echoedKernel = echoedKernel
        self.broadcastStart = broadcastStart
        self.broadcastStartKernel = broadcastStartKernel
    }
}

/// What a run's settings say about reading its ``SettledMessage``s: which clock the metrics use and which metrics
/// exist. The per-message metric definitions (SPEC §2) live here, once, for the live run and the saved one.
public struct SettledMessageReader: Sendable {
    public let scenario: Scenario
    public let timestamps: TimestampSource
    /// False for a fanout through a user's server: nothing echoes, so there is no rtt.
    public let hasEchoes: Bool

    public init(_ configuration: RunConfiguration) {
        scenario = configuration.scenario
        timestamps = configuration.timestamps
        hasEchoes = configuration.hasEchoes
    }

    @inline(__always) var usesKernel: Bool { timestamps.usesKernel }

    /// When the message left: the kernel's transmit stamp where there is one, else the time before the write.
    @inline(__always)
    public func sendTime(_ m: SettledMessage) -> UInt64 {
        usesKernel && m.writtenKernel != 0 ? m.writtenKernel : m.written
    }

    /// When it reached its client: the kernel's receive stamp, or the time the client's read returned.
    @inline(__always)
    public func receiveTime(_ m: SettledMessage) -> UInt64 {
        usesKernel && m.receivedKernel != 0 ? m.receivedKernel : m.received
    }

    /// When its echo reached the server: the kernel's receive stamp, or the read's return.
    @inline(__always)
    public func echoTime(_ m: SettledMessage) -> UInt64 {
        usesKernel && m.echoedKernel != 0 ? m.echoedKernel : m.echoed
    }

    /// Fanout: t0 of its broadcast, the kernel's when there is one.
    @inline(__always)
    public func broadcastStartTime(_ m: SettledMessage) -> UInt64 {
        usesKernel && m.broadcastStartKernel != 0 ? m.broadcastStartKernel : m.broadcastStart
    }

    /// rtt: echo arrival − send; nil when lost (any outcome but echoed) or nothing echoes.
    public func roundTrip(_ m: SettledMessage) -> UInt64? {
        guard m.outcome.isMeasurement, m.echoed != 0 else { return nil }
        return echoTime(m).subtractingClamped(sendTime(m))
    }

    /// Chat: a message's round trip, its sender's read of its own copy − its write (t0); nil when none came in time.
    public func chatRoundTrip(_ broadcast: SettledMessage) -> UInt64? {
        guard broadcast.echoed != 0 else { return nil }
        return echoTime(broadcast).subtractingClamped(broadcastStartTime(broadcast))
    }

    /// Fanout delivery: the client's receive − t0 of its broadcast; nil when lost.
    public func delivery(_ m: SettledMessage) -> UInt64? {
        guard m.outcome.isMeasurement else { return nil }
        return receiveTime(m).subtractingClamped(broadcastStartTime(m))
    }

    /// With `--timestamps both`: user-space read − kernel receive stamp on the measuring side; nil when lost or
    /// unstamped.
    public func stack(_ m: SettledMessage) -> UInt64? {
        guard timestamps == .both, m.outcome.isMeasurement else { return nil }
        let (user, kernel) = scenario.isBroadcast ? (m.received, m.receivedKernel) : (m.echoed, m.echoedKernel)
        return kernel == 0 ? nil : user.subtractingClamped(kernel)
    }

    /// Roundtrip: write − due time; nil when never written.
    public func sendLag(_ m: SettledMessage) -> UInt64? {
        guard m.written != 0 else { return nil }
        return m.written.subtractingClamped(m.scheduled)
    }

    /// Fanout broadcast entry: its first write − its due time; nil when never sent.
    public func broadcastLag(_ m: SettledMessage) -> UInt64? {
        guard m.broadcastStart != 0 else { return nil }
        return m.broadcastStart.subtractingClamped(m.scheduled)
    }

    /// Kernel stamps the message's times needed and did not get (the user-space time stood in), for an echoed or
    /// late message; 0 otherwise. In fanout only a broadcast's first write has a transmit stamp, counted per broadcast.
    public func missingKernelStamps(_ m: SettledMessage) -> (send: Int, receive: Int) {
        guard usesKernel else { return (0, 0) }
        let receive = (hasEchoes && scenario != .chat && m.echoedKernel == 0 ? 1 : 0)  // a chat message's own: its entry
            + (scenario.isBroadcast && m.receivedKernel == 0 ? 1 : 0)
        return (scenario == .roundtrip && m.writtenKernel == 0 ? 1 : 0, receive)
    }
}
