import BenchNet

/// The one ledger of every message in flight: when it was due, written and echoed, and what became of it.
///
/// Its state is its own: the arrays are read from outside and written only by the events below, each a mutating
/// function that moves a message's fate and returns what the caller must do (``EchoAction``, ``StampAction``, whether
/// a message left flight). The rules that decide a fate — in time, plausible, stale, a duplicate — are here once, for
/// the built-in server and for every target role alike (`MessageLedger+Echo.swift`).
///
/// The arrays are a ring of ``window`` rows, one per sequence number (its broadcast in fanout, its place in the
/// client's series in roundtrip), one column per client: message `(sequence, client)` is at index
/// `(sequence % window) * clients + client`. Rows are handed on in order once every message in them is settled
/// (`MessageLedger+HandOn.swift`) and reused, so memory is set by the timeout and the send rate, not by the run's
/// length. A time of 0 means "never happened".
public struct MessageLedger: Sendable {
    /// Clients: columns of the ring.
    public let clients: Int
    /// Rows in the ring: sequence numbers in flight at once.
    public let window: Int
    /// Sequence numbers in the run (per client), and the first of them that are warmup.
    let sequences: Int
    let warmup: Int
    /// A message's timeout: past it, an echo is late.
    let timeout: UInt64
    let isFanout: Bool
    /// Open loop settles what timed out when its row is handed on; closed loop settles its own (``timedOut(_:)``).
    let isOpenLoop: Bool
    /// True when kernel stamps are kept (the kernel arrays are empty otherwise).
    public let usesKernelStamps: Bool

    /// The first sequence number not yet handed on: rows hold `flushedUpTo ..< flushedUpTo + window`.
    public private(set) var flushedUpTo = 0
    /// When each send was due: per broadcast in fanout, per message in roundtrip (monotonic ns).
    public private(set) var scheduled: [UInt64]
    /// Fanout only: the time before the first write of each broadcast, t0(k).
    public private(set) var broadcastStart: [UInt64]
    /// Per message: the time right before the write system call, tw; 0 if never written.
    public private(set) var written: [UInt64]
    /// Per message: the time right after the client's read returned it, tr.
    public private(set) var received: [UInt64]
    /// Per message: the time the echo reached the measuring end (the built-in server's read; a target's client's
    /// read in roundtrip); 0 where there is no echo leg (a target's subscriber).
    public private(set) var echoed: [UInt64]
    /// Per message: what became of it.
    public private(set) var outcome: [MessageOutcome]
    /// With kernel stamps (empty arrays otherwise), per message, monotonic ns, 0 when the kernel gave none: when the
    /// kernel handed the write on, when the segment reached the client, and when the echo reached the measuring end.
    public private(set) var writtenKernel: [UInt64]
    public private(set) var receivedKernel: [UInt64]
    public private(set) var echoedKernel: [UInt64]

    /// Echoes recorded, in time or late (the progress line's count).
    public private(set) var echoesReceived = 0
    /// Echoes that arrived again for a message already echoed (ignored after the first).
    public private(set) var duplicateEchoes = 0
    /// Echoes that came after their row was handed on (long after their timeout): counted, nothing else.
    public private(set) var echoesAfterHandOn = 0
    /// With agents or client channels: per client, measured messages handed on and how many of them were lost.
    public private(set) var measuredPerClient: [Int]
    public private(set) var lostPerClient: [Int]

    /// An empty ledger for `window` sequence numbers of `configuration` (nil: all of them), allocated once, before
    /// the run.
    public init(configuration: RunConfiguration, window: Int? = nil) {
        clients = configuration.clients
        sequences = configuration.sequencesPerClient
        warmup = configuration.warmup
        timeout = configuration.timeout
        isFanout = configuration.scenario == .fanout
        isOpenLoop = configuration.interval > 0
        usesKernelStamps = configuration.timestamps.usesKernel
        let rows = max(1, min(window ?? sequences, sequences))
        self.window = rows
        let messages = rows * clients
        scheduled = Array(repeating: 0, count: isFanout ? rows : messages)
        broadcastStart = Array(repeating: 0, count: isFanout ? rows : 0)
        written = Array(repeating: 0, count: messages)
        received = Array(repeating: 0, count: messages)
        echoed = Array(repeating: 0, count: messages)
        outcome = Array(repeating: .notDispatched, count: messages)
        writtenKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        receivedKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        echoedKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        // agents.csv counts each agent's (and a target run's each child's) clients' messages.
        let perClient = configuration.agentToken != nil || !configuration.subscriberChannels.isEmpty
        measuredPerClient = Array(repeating: 0, count: perClient ? clients : 0)
        lostPerClient = Array(repeating: 0, count: perClient ? clients : 0)
    }

    // MARK: Sending

    /// Roundtrip: message `index` fell due at `time`.
    @inline(__always)
    mutating func due(message index: Int, at time: UInt64) {
        scheduled[index] = time
    }

    /// Fanout: broadcast `sequence` fell due at `time`.
    @inline(__always)
    mutating func due(broadcast sequence: Int, at time: UInt64) {
        scheduled[row(of: sequence)] = time
    }

    /// Fanout: broadcast `sequence`'s first write began at `time` (its t0).
    @inline(__always)
    mutating func broadcastBegan(_ sequence: Int, at time: UInt64) {
        broadcastStart[row(of: sequence)] = time
    }

    /// Message `index` went out at `time` (the time before the write; held for an away client, when it fell due): it
    /// waits for its echo.
    @inline(__always)
    mutating func written(_ index: Int, at time: UInt64) {
        outcome[index] = .written
        written[index] = time
    }

    /// Message `index` was not written, for `reason` (``MessageOutcome/droppedClosed`` or
    /// ``MessageOutcome/droppedQueueFull``); true when it was in flight (ordered, then not written after all).
    @inline(__always) @discardableResult
    mutating func dropped(_ index: Int, as reason: MessageOutcome) -> Bool {
        settle(index, as: reason)
    }

    /// Closed loop: message `index`'s timeout passed with no echo; true when it was in flight.
    @inline(__always) @discardableResult
    mutating func timedOut(_ index: Int) -> Bool {
        outcome[index] == .written ? settle(index, as: .timedOut) : false
    }

    /// `client`'s connection closed: every message of it still in flight is lost with it. `settled` hears each.
    mutating func clientGone(_ client: Int, settled: (Int) -> Void) {
        for sequence in heldSequences {
            let index = messageIndex(sequence: sequence, client: client)
            if outcome[index] == .written {
                _ = settle(index, as: .writtenThenClosed)
                settled(index)
            }
        }
    }

    /// The end of a run: every message still waiting for its echo timed out.
    mutating func timeOutWhatIsInFlight() {
        for index in outcome.indices where outcome[index] == .written { outcome[index] = .timedOut }
    }

    // MARK: Echoes and stamps

    /// Client `client` echoed message `sequence` with `stamps`.
    ///
    /// The stamps come from the network and are not trusted: a receive time before the message's write, after the
    /// echo's own arrival (or a kernel receive stamp outside the write and the read, by more than the tolerance) is
    /// not a measurement. In time means the echo within the timeout of the write and, in fanout, the client's read
    /// within the timeout of the broadcast's start. A message that timed out keeps its count: its fate becomes late
    /// (or invalid), and it is recorded all the same.
    mutating func echo(sequence: Int, client: Int, _ stamps: EchoStamps) -> EchoAction {
        guard sequence >= flushedUpTo else {
            echoesAfterHandOn += 1
            return .stale
        }
        guard sequence < heldSequences.upperBound, client < clients else {
            return .notSent(sequence: sequence, client: client, inRing: false)
        }
        let index = messageIndex(sequence: sequence, client: client)
        let wasInFlight: Bool
        switch outcome[index] {
        case .written: wasInFlight = true
        case .timedOut: wasInFlight = false
        case .echoed, .late, .invalidTimestamp:
            duplicateEchoes += 1
            return .duplicate
        case .notDispatched, .droppedClosed, .droppedQueueFull, .writtenThenClosed:
            return .notSent(sequence: sequence, client: client, inRing: true)
        }
        guard isPlausible(stamps, ofMessage: index) else {
            let reason = implausibility(of: stamps, sequence: sequence, message: index)
            return .implausible(message: index, settled: conclude(index, as: .invalidTimestamp), reason: reason)
        }
        received[index] = stamps.received
        echoed[index] = stamps.echoed
        if usesKernelStamps {
            receivedKernel[index] = stamps.receivedKernel
            echoedKernel[index] = stamps.echoedKernel
        }
        echoesReceived += 1
        guard wasInFlight && isInTime(stamps, ofMessage: index) else {
            return .late(message: index, settled: conclude(index, as: .late))
        }
        _ = settle(index, as: .echoed)
        return .measured(message: index)
    }

    /// A client's group reported that it wrote message `index` at `time` (on the collector's clock), and the report
    /// arrived at `now`: the order went out at the message's write time, so the group's write lies between that and
    /// now, or it is not true.
    mutating func writeReported(_ index: Int, at time: UInt64, arrival now: UInt64) -> StampAction {
        guard outcome[index] == .written || outcome[index] == .timedOut else { return .ignored }
        guard time >= written[index], time <= now else {
            return .implausible(settled: conclude(index, as: .invalidTimestamp))
        }
        written[index] = time
        return .taken
    }

    /// The kernel handed message `index`'s write on at `time`: kept if the message went out (a stamp of one that
    /// was never written changes nothing).
    @inline(__always)
    mutating func transmitStamp(_ index: Int, at time: UInt64) {
        guard usesKernelStamps, wentOut(index) else { return }
        writtenKernel[index] = time
    }

    /// Fanout through a publisher: its one write of broadcast `sequence` went on at `time`, every subscriber's t0.
    mutating func transmitStamp(broadcast sequence: Int, at time: UInt64) {
        guard heldSequences.contains(sequence) else { return }  // handed on without it, long ago
        for client in 0..<clients { transmitStamp(messageIndex(sequence: sequence, client: client), at: time) }
    }

    // MARK: Handing on

    /// Hands on, oldest first, every row whose messages are all settled, as ``SettledMessage``s to `emit`, and frees
    /// it. A row waits while a message of it has not had its turn or waits for its echo; in open loop a message whose
    /// timeout passed is settled here as timed out (closed loop settles its own). With kernel stamps a row also waits,
    /// up to ``stampGrace`` after its writes, for its transmit stamps. `ending` hands on every row that is left:
    /// what is still in flight timed out, what never had its turn is not streamed.
    public mutating func flush(at now: UInt64, ending: Bool, emit: (SettledMessage) -> Void) {
        let last = ending ? heldSequences.upperBound : sequences
        while flushedUpTo < last {
            let row = row(of: flushedUpTo)
            guard ending || isSettled(row: row, at: now) else { return }
            handOn(row: row, emit: emit)
        }
    }

    /// Emits `row`'s measured messages (and in fanout its broadcast), clears it and moves the ring on.
    private mutating func handOn(row: Int, emit: (SettledMessage) -> Void) {
        let sequence = flushedUpTo
        let t0Kernel = kernelBroadcastStart(row: row)
        for index in row * clients..<(row + 1) * clients {
            _ = timedOut(index)
            if isMeasured(message: index) {
                emit(settledMessage(at: index, t0Kernel: t0Kernel))
                if !measuredPerClient.isEmpty {
                    let client = index - row * clients
                    measuredPerClient[client] += 1
                    if !outcome[index].isMeasurement { lostPerClient[client] += 1 }
                }
            }
            clear(message: index)
        }
        if isFanout {
            if sequence >= warmup && broadcastStart[row] != 0 {
                emit(SettledMessage(
                    kind: .broadcast, sequence: sequence, scheduled: scheduled[row],
                    broadcastStart: broadcastStart[row], broadcastStartKernel: t0Kernel))
            }
            (scheduled[row], broadcastStart[row]) = (0, 0)
        }
        flushedUpTo += 1
    }

    // MARK: Settling, which only the events call

    /// Message `index` is settled as `fate`; true when it was waiting for its echo.
    @inline(__always)
    private mutating func settle(_ index: Int, as fate: MessageOutcome) -> Bool {
        let wasInFlight = outcome[index] == .written
        outcome[index] = fate
        return wasInFlight
    }

    /// A message that was written concludes as `fate`: settled if it was in flight (true), its fate changed if it
    /// had timed out (its count stays).
    @inline(__always)
    private mutating func conclude(_ index: Int, as fate: MessageOutcome) -> Bool {
        if outcome[index] == .written { return settle(index, as: fate) }
        if outcome[index] == .timedOut { outcome[index] = fate }
        return false
    }

    /// Empties message `index`'s place in the ring for the sequence that takes its row next.
    @inline(__always)
    private mutating func clear(message index: Int) {
        (written[index], received[index], echoed[index], outcome[index]) = (0, 0, 0, .notDispatched)
        if usesKernelStamps { (writtenKernel[index], receivedKernel[index], echoedKernel[index]) = (0, 0, 0) }
        if !isFanout { scheduled[index] = 0 }
    }
}
