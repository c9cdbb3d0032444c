import BenchClients
import BenchCore
import BenchNet

/// The one ledger of every message in flight: when it was due, written and echoed, and what became of it.
///
/// Its state is its own: the arrays are read from outside and written only by the events below, each a mutating
/// function that moves a message's fate and returns what the caller must do (``EchoAction``, ``StampAction``, whether
/// a message left flight). The rules that decide a fate — in time, plausible, stale, a duplicate — are here once, for
/// the built-in server and for every target role alike (`MessageLedger+Rules.swift`). The events stay in this one file,
/// longer than most: Swift's `private(set)` reaches no further, and it is what keeps every write to a fate here.
///
/// The arrays are a ring of ``window`` rows, one per sequence number (its broadcast in fanout, its place in the
/// client's series in roundtrip and chat), of ``columns`` messages each. In fanout and roundtrip a column is a client:
/// message `(sequence, client)` is at index `(sequence % window) * clients + client`. A chat row holds every client's
/// message of that round, one column per delivery to another member of its room (``ChatColumns``). Fanout's row is one
/// broadcast, a chat row one per client (``senders``): the sends whose deliveries are measured together (t0, spread).
/// Rows are handed on in order once every message in them is settled (``flush(at:ending:emit:)``) and reused, so memory
/// is set by the timeout and the send rate, not by the run's length. A time of 0 means "never happened".
public struct MessageLedger: Sendable {
    /// Clients of the run.
    public let clients: Int
    /// Messages per row: one per client, or in chat one per delivery (``chat``).
    public let columns: Int
    /// Broadcasts per row (1 in fanout, one per client in chat, 0 in roundtrip), and where each one's columns begin.
    public let senders: Int
    let columnStart: [Int]
    /// Chat: which delivery each column is; and each column's sender and receiver, apart (empty in the other
    /// scenarios), for the per-message path.
    public let chat: ChatColumns?
    let senderOfColumn: [Int32]
    let receiverOfColumn: [Int32]
    /// Rows in the ring: sequence numbers in flight at once.
    public let window: Int
    /// Sequence numbers in the run (per client), and the first of them that are warmup.
    let sequences: Int
    let warmup: Int
    /// A message's timeout: past it, an echo is late.
    let timeout: UInt64
    /// Fanout or chat: messages are measured from their broadcast's start (``broadcastStart``).
    let hasBroadcasts: Bool
    /// Open loop settles what timed out when its row is handed on; closed loop settles its own (``timedOut(_:)``).
    let isOpenLoop: Bool
    /// True when kernel stamps are kept (the kernel arrays are empty otherwise).
    public let usesKernelStamps: Bool
    /// Chat through a server that sends the sender its own copy (``RunConfiguration/chatEchoesToSender``).
    let expectsOwnCopies: Bool

    /// The first sequence number not yet handed on: rows hold `flushedUpTo ..< flushedUpTo + window`.
    public private(set) var flushedUpTo = 0
    /// When each send was due: per broadcast in fanout and chat (``broadcastIndex(sequence:sender:)``), per message in
    /// roundtrip (monotonic ns).
    public private(set) var scheduled: [UInt64]
    /// Fanout and chat: the time before the first write of each broadcast, t0(k) (a chat message's only write).
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
    /// Chat with ``expectsOwnCopies`` (empty otherwise), per broadcast: when the sender read its own copy in time (its
    /// round trip's end), and the kernel's stamp of it (0: none).
    public private(set) var ownCopy: [UInt64]
    public private(set) var ownCopyKernel: [UInt64]

    /// Echoes recorded, in time or late (the progress line's count).
    public private(set) var echoesReceived = 0
    /// Echoes that arrived again for a message already echoed (ignored after the first).
    public private(set) var duplicateEchoes = 0
    /// Echoes that came after their row was handed on (long after their timeout): counted, nothing else.
    public private(set) var echoesAfterHandOn = 0
    /// A server shard's counts (``ShardSummary``): the run's ledger saw none of its echoes.
    mutating func absorb(duplicateEchoes duplicates: Int, echoesAfterHandOn afterHandOn: Int) {
        duplicateEchoes += duplicates
        echoesAfterHandOn += afterHandOn
    }

    /// Per timetable (each client's, fanout's one): the sequence number it sends nothing from (its last send was
    /// before; `Int.max` while it goes on). A row's messages beyond it are never sent, and do not hold the row.
    public private(set) var sendsEnd: [Int]
    /// Chat with ``expectsOwnCopies``: messages written whose sender's own copy has not come yet (the run's end waits
    /// for them, up to the timeout, as it waits for deliveries).
    public private(set) var ownCopiesAwaited = 0
    /// Timetables ended, and the latest sequence number one ended at: once all have, no row beyond it has a message.
    private var timetablesEnded = 0
    private var latestEnd = 0
    /// With agents or client channels: per client, measured messages handed on and how many of them were lost.
    public private(set) var measuredPerClient: [Int]
    public private(set) var lostPerClient: [Int]

    /// An empty ledger for `window` sequence numbers of `configuration` (nil: all of them; 0: none, for the run's
    /// process of server processes, which measures nothing itself), allocated once, before the run.
    public init(configuration: RunConfiguration, window: Int? = nil) {
        clients = configuration.clients
        sequences = configuration.sequencesPerClient
        warmup = configuration.warmup
        timeout = configuration.timeout
        hasBroadcasts = configuration.scenario.isBroadcast
        switch configuration.scenario {
        case .fanout: (senders, columnStart, chat) = (1, [0, configuration.clients], nil)
        case .roundtrip: (senders, columnStart, chat) = (0, [], nil)
        case .chat:
            let chat = ChatColumns(ChatRooms(clients: clients, plan: configuration.chatRooms!, seed: configuration.seed))
            (senders, columnStart, self.chat) = (clients, chat.columnStart, chat)
        }
        columns = chat?.count ?? clients
        (senderOfColumn, receiverOfColumn) = (chat?.senderOfColumn ?? [], chat?.receiverOfColumn ?? [])
        isOpenLoop = configuration.interval > 0
        usesKernelStamps = configuration.timestamps.usesKernel
        expectsOwnCopies = configuration.chatEchoesToSender
        let rows = window == 0 ? 0 : max(1, min(window ?? sequences, sequences))
        self.window = rows
        let messages = rows * columns
        scheduled = Array(repeating: 0, count: hasBroadcasts ? rows * senders : messages)
        broadcastStart = Array(repeating: 0, count: rows * senders)
        written = Array(repeating: 0, count: messages)
        received = Array(repeating: 0, count: messages)
        echoed = Array(repeating: 0, count: messages)
        outcome = Array(repeating: .notDispatched, count: messages)
        writtenKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        receivedKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        echoedKernel = Array(repeating: 0, count: usesKernelStamps ? messages : 0)
        ownCopy = Array(repeating: 0, count: expectsOwnCopies ? rows * senders : 0)
        ownCopyKernel = Array(repeating: 0, count: expectsOwnCopies && usesKernelStamps ? rows * senders : 0)
        sendsEnd = Array(repeating: .max, count: configuration.scenario == .fanout ? 1 : clients)
        // agents.csv counts each agent's (and a target run's each child's) clients' messages.
        let perClient = configuration.agentToken != nil || !configuration.clientGroupChannels.isEmpty
        measuredPerClient = Array(repeating: 0, count: perClient ? clients : 0)
        lostPerClient = Array(repeating: 0, count: perClient ? clients : 0)
    }

    // MARK: Sending

    /// Roundtrip: message `index` fell due at `time`.
    @inline(__always)
    mutating func due(message index: Int, at time: UInt64) {
        scheduled[index] = time
    }

    /// Fanout: broadcast `sequence` fell due at `time`; chat: `sender`'s message `sequence`.
    @inline(__always)
    mutating func due(broadcast sequence: Int, sender: Int = 0, at time: UInt64) {
        scheduled[broadcastIndex(sequence: sequence, sender: sender)] = time
    }

    /// Fanout: broadcast `sequence`'s first write began at `time` (its t0); chat: `sender`'s message `sequence` was
    /// written at `time` (set again when its client reports its own stamp).
    @inline(__always)
    mutating func broadcastBegan(_ sequence: Int, sender: Int = 0, at time: UInt64) {
        broadcastStart[broadcastIndex(sequence: sequence, sender: sender)] = time
        if expectsOwnCopies { ownCopiesAwaited += 1 }
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

    /// `client`'s connection closed: every message to it still in flight is lost with it. `settled` hears each.
    mutating func clientGone(_ client: Int, settled: (Int) -> Void) {
        settleInFlight(to: client, writtenBefore: nil, as: .writtenThenClosed, settled: settled)
    }

    /// `client` was away until `back` (the time of its return; `.max`: it will not receive any more): every message
    /// written to it before then is dropped with its connection (``MessageOutcome/droppedClosed``), those written from
    /// `back` on stay its to receive. `settled` hears each. (What was in flight when it went was settled then,
    /// ``clientGone(_:settled:)``: what is still written before `back` went while it was away.)
    mutating func wasAway(_ client: Int, until back: UInt64, settled: (Int) -> Void) {
        settleInFlight(to: client, writtenBefore: back, as: .droppedClosed, settled: settled)
    }

    /// `client`'s timetable (fanout's: 0) sends nothing from `sequence` on: its messages there are never sent.
    mutating func timetableEnded(_ client: Int, before sequence: Int) {
        guard sendsEnd[client] == .max else { return }
        sendsEnd[client] = sequence
        timetablesEnded += 1
        latestEnd = Swift.max(latestEnd, sequence)
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
        echo(sequence: sequence, column: client < clients && chat == nil ? client : nil, of: client, stamps)
    }

    /// Chat: `member` read `sender`'s message `sequence` with `stamps` (`received`; nothing echoes); as
    /// ``echo(sequence:client:_:)``, and a member outside the sender's room was never sent it.
    mutating func delivered(sequence: Int, sender: Int, member: Int, _ stamps: EchoStamps) -> EchoAction {
        echo(sequence: sequence, column: chat?.column(sender: sender, member: member), of: member, stamps)
    }

    /// The echo of the message in `column` (nil: no message of this run goes to `client`) of row `sequence`.
    private mutating func echo(sequence: Int, column: Int?, of client: Int, _ stamps: EchoStamps) -> EchoAction {
        guard sequence >= flushedUpTo else {
            echoesAfterHandOn += 1
            return .stale
        }
        guard sequence < heldSequences.upperBound, let column else {
            return .notSent(sequence: sequence, client: client, inRing: false)
        }
        let index = row(of: sequence) * columns + column
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

    /// Chat through a server that sends the sender its own copy: `sender` read its own message `sequence` with `stamps`
    /// (`received`, on this clock). Its round trip's end when it is the first, after the message's write and not after its
    /// arrival here, and within the timeout; kept for the message's entry (``flush(at:ending:emit:)``).
    mutating func ownCopy(sequence: Int, sender: Int, _ stamps: EchoStamps) -> OwnCopyAction {
        guard sequence >= flushedUpTo else {
            echoesAfterHandOn += 1
            return .stale
        }
        guard expectsOwnCopies, sequence < heldSequences.upperBound, sender >= 0, sender < clients else {
            return .unexpected("received its own message \(sequence), which this run does not wait for")
        }
        let broadcast = broadcastIndex(sequence: sequence, sender: sender)
        let start = broadcastStart[broadcast]
        guard start != 0 else { return .unexpected("received its own message \(sequence), which it never sent") }
        guard ownCopy[broadcast] == 0 else {
            duplicateEchoes += 1
            return .duplicate
        }
        guard stamps.received >= start, stamps.received <= stamps.arrival else {
            return .unexpected(
                "received its own message \(sequence) at \(stamps.received) ns, outside its write (\(start) ns) and "
                    + "the report's arrival (\(stamps.arrival) ns): not a measurement")
        }
        ownCopiesAwaited -= 1
        guard stamps.received - start <= timeout else {
            ownCopy[broadcast] = .max  // came, too late: no second count (it is no round trip: 0 when handed on)
            return .late
        }
        ownCopy[broadcast] = stamps.received
        if usesKernelStamps { ownCopyKernel[broadcast] = stamps.receivedKernel }
        return .measured
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

    /// Chat: `sender`'s client reported that it wrote its message `sequence` at `time`, the report arriving at `now`.
    /// Members' reads of it may have been reported first (other threads report them): the write lies between the order
    /// (the message's t0 so far) and the report's arrival, and not after any member's read, or it is not true and every
    /// delivery still open is lost as invalid (`settled` hears each that left flight). Otherwise it is the message's t0
    /// and the write time of every delivery that went out.
    mutating func writeReported(
        broadcast sequence: Int, sender: Int, at time: UInt64, arrival now: UInt64, settled: (Int) -> Void
    ) -> StampAction {
        guard heldSequences.contains(sequence) else { return .ignored }
        let broadcast = broadcastIndex(sequence: sequence, sender: sender)
        let deliveries = messages(ofBroadcast: sequence, sender: sender)
        guard broadcastStart[broadcast] != 0, deliveries.contains(where: wentOut) else { return .ignored }
        var firstRead = UInt64.max
        for index in deliveries where received[index] != 0 { firstRead = Swift.min(firstRead, received[index]) }
        guard time >= broadcastStart[broadcast], time <= now, time <= firstRead else {
            var left = false
            for index in deliveries where conclude(index, as: .invalidTimestamp) {
                settled(index)
                left = true
            }
            return .implausible(settled: left)
        }
        broadcastStart[broadcast] = time
        for index in deliveries where wentOut(index) { written[index] = time }
        return .taken
    }

    /// The kernel handed message `index`'s write on at `time`: kept if the message went out (a stamp of one that
    /// was never written changes nothing).
    @inline(__always)
    mutating func transmitStamp(_ index: Int, at time: UInt64) {
        guard usesKernelStamps, wentOut(index) else { return }
        writtenKernel[index] = time
    }

    /// Fanout through a publisher: its one write of broadcast `sequence` went on at `time`, every subscriber's t0;
    /// chat: `sender`'s one write of its message `sequence`, every other member's.
    mutating func transmitStamp(broadcast sequence: Int, sender: Int = 0, at time: UInt64) {
        guard heldSequences.contains(sequence) else { return }  // handed on without it, long ago
        for index in messages(ofBroadcast: sequence, sender: sender) { transmitStamp(index, at: time) }
    }

    // MARK: Handing on

    /// Hands on, oldest first, every row whose messages are all settled, as ``SettledMessage``s to `emit`, and frees
    /// it. A row waits while a message of it has not had its turn or waits for its echo; in open loop a message whose
    /// timeout passed is settled here as timed out (closed loop settles its own). With kernel stamps a row also waits,
    /// up to ``stampGrace`` after its writes, for its transmit stamps. `ending` hands on every row that is left:
    /// what is still in flight timed out, what never had its turn is not streamed.
    public mutating func flush(at now: UInt64, ending: Bool, emit: (SettledMessage) -> Void) {
        // Rows past every timetable's end hold no message: nothing to hand on (a --duration run numbers 2^32 of them).
        let last = ending ? heldSequences.upperBound : timetablesEnded == sendsEnd.count ? Swift.min(latestEnd, sequences) : sequences
        while flushedUpTo < last {
            let row = row(of: flushedUpTo)
            guard ending || isSettled(row: row, at: now) else { return }
            handOn(row: row, emit: emit)
        }
    }

    /// Emits `row`'s measured messages (in fanout and chat, each broadcast's after its messages), clears it and moves
    /// the ring on.
    private mutating func handOn(row: Int, emit: (SettledMessage) -> Void) {
        guard hasBroadcasts else {
            handOn(messages: row * columns..<(row + 1) * columns, t0Kernel: 0, emit: emit)
            flushedUpTo += 1
            return
        }
        let sequence = flushedUpTo
        for sender in 0..<senders {
            let broadcast = row * senders + sender
            let t0Kernel = kernelBroadcastStart(broadcast)
            handOn(messages: messages(ofBroadcast: sequence, sender: sender), t0Kernel: t0Kernel, emit: emit)
            if sequence >= warmup && broadcastStart[broadcast] != 0 {
                emit(SettledMessage(
                    kind: .broadcast, sequence: sequence, sender: sender, scheduled: scheduled[broadcast],
                    echoed: expectsOwnCopies && ownCopy[broadcast] != .max ? ownCopy[broadcast] : 0,
                    echoedKernel: expectsOwnCopies && usesKernelStamps ? ownCopyKernel[broadcast] : 0,
                    broadcastStart: broadcastStart[broadcast], broadcastStartKernel: t0Kernel))
            }
            // A sender's own copy that never came (its connection closed, its server left it out) is given up with
            // its row: the run's end does not wait for it.
            if expectsOwnCopies && broadcastStart[broadcast] != 0 && ownCopy[broadcast] == 0 { ownCopiesAwaited -= 1 }
            (scheduled[broadcast], broadcastStart[broadcast]) = (0, 0)
            if expectsOwnCopies { ownCopy[broadcast] = 0 }
            if expectsOwnCopies && usesKernelStamps { ownCopyKernel[broadcast] = 0 }
        }
        flushedUpTo += 1
    }

    /// Emits the measured ones of `messages` and clears them all.
    private mutating func handOn(messages: Range<Int>, t0Kernel: UInt64, emit: (SettledMessage) -> Void) {
        for index in messages {
            _ = timedOut(index)
            if isMeasured(message: index) {
                emit(settledMessage(at: index, t0Kernel: t0Kernel))
                if !measuredPerClient.isEmpty {
                    let client = receiver(ofMessage: index)
                    measuredPerClient[client] += 1
                    if !outcome[index].isMeasurement { lostPerClient[client] += 1 }
                }
            }
            clear(message: index)
        }
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

    /// Every message to `client` (in chat, every delivery to it) in flight, and written before `time` when given, is
    /// settled as `fate`; `settled` hears each.
    private mutating func settleInFlight(
        to client: Int, writtenBefore time: UInt64?, as fate: MessageOutcome, settled: (Int) -> Void
    ) {
        let incoming = chat?.incomingColumns(of: client) ?? [client]
        for sequence in heldSequences {
            for column in incoming {
                let index = row(of: sequence) * columns + column
                guard outcome[index] == .written, time.map({ written[index] < $0 }) ?? true else { continue }
                _ = settle(index, as: fate)
                settled(index)
            }
        }
    }

    /// Empties message `index`'s place in the ring for the sequence that takes its row next.
    @inline(__always)
    private mutating func clear(message index: Int) {
        (written[index], received[index], echoed[index], outcome[index]) = (0, 0, 0, .notDispatched)
        if usesKernelStamps { (writtenKernel[index], receivedKernel[index], echoedKernel[index]) = (0, 0, 0) }
        if !hasBroadcasts { scheduled[index] = 0 }
    }
}
