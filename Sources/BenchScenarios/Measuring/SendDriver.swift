import BenchClients
import BenchNet

/// The state of the measuring core that every role shares (``MeasuringRole``): the timetable (or the closed loop's
/// turn-taking), what went out and what settled, the broadcast in flight and the clients waiting for their turn.
///
/// It holds counts and queues only; the role writes the messages and reads the echoes, and tells the driver what
/// happened through the ledger events of ``MeasuringRole`` (`written`, `dropped`, `echo`, …) and the `dispatched…`
/// methods here. No method allocates: the closed loop's queues are reserved for every client up front.
struct SendDriver {
    /// The longest a role keeps sending late events before it reads what arrived in the meantime.
    static var catchUpBudget: UInt64 { 1_000_000 }
    /// How often every role does its housekeeping: closed-loop timeouts, handing settled rows on, progress.
    static var housekeepingInterval: UInt64 { 50_000_000 }

    /// The open-loop timetable; nil in closed loop.
    private(set) var plan: SendPlan?
    /// Messages whose turn came, and those settled (echoed, late, dropped, lost with their connection, timed out).
    private(set) var dispatched = 0
    private(set) var resolved = 0
    /// When the last message went out (monotonic ns).
    private(set) var lastDispatch: UInt64 = 0
    /// The measuring thread's CPU time when sending began (``ThreadCPUTime``), 0 before.
    private(set) var cpuAtStart: UInt64 = 0
    /// The measuring thread's run-queue wait when sending began; nil where the kernel does not keep it.
    private(set) var runQueueWaitAtStart: UInt64?
    /// Every thread of this process's time on and waiting for a CPU, taken just before sending began.
    var threadsAtStart = ThreadSchedules(threads: [:])
    /// Fanout: the broadcast sent last, and how many of its messages still wait for their echo.
    private(set) var currentBroadcast = -1
    private(set) var unresolvedInBroadcast = 0
    /// Closed-loop roundtrip: each client's next sequence number and the message it waits for (-1: none).
    private(set) var nextSequence: [Int]
    private(set) var awaited: [Int]
    /// Closed-loop roundtrip: the clients whose next message may go; those whose next message waits for its row of
    /// the ring or failed while their connection stayed open (they try on the next pass); those away until they are
    /// back (a run that expects reconnects).
    private var ready: [Int] = []
    private var retrying: [Int] = []
    private(set) var parked: [Bool]

    /// The timetable of an open-loop run, or the turns of a closed-loop roundtrip (one per client).
    init(configuration: RunConfiguration) {
        plan = configuration.isClosedLoop ? nil : SendPlan(configuration: configuration)
        let turns = configuration.isClosedLoop && configuration.scenario == .roundtrip ? configuration.clients : 0
        nextSequence = Array(repeating: 0, count: turns)
        awaited = Array(repeating: -1, count: turns)
        parked = Array(repeating: false, count: turns)
        ready.reserveCapacity(turns)
        retrying.reserveCapacity(turns)
        let timetables = configuration.scenario == .fanout ? 1 : configuration.clients
        nextToSend = Array(repeating: 0, count: configuration.isClosedLoop ? 0 : timetables)
        waitingForRows.reserveCapacity(timetables)
    }

    /// Sending begins on the measuring thread: its CPU time from now on is the run's.
    mutating func startMeasuring() {
        cpuAtStart = ThreadCPUTime.now()
        runQueueWaitAtStart = ThreadRunQueueWait.now()
    }

    // MARK: The timetable

    /// Moves the timetable past its next send.
    mutating func advancePlan() -> (client: Int, end: Int)? {
        plan!.advance()
    }

    // MARK: Sends waiting for their row of the ring

    /// A send of the timetable that fell due: its sequence, its client (0 in fanout), when it was due (monotonic ns).
    struct TimedSend {
        var sequence: Int
        var client: Int
        var due: UInt64
    }

    /// Sends that fell due while their row of the ring was taken, in the order they fell due.
    private(set) var waitingForRows: [TimedSend] = []
    /// Per timetable (each client's, or fanout's one): the sequence number it sends next. A send goes only in its turn,
    /// so that a client's later send never overtakes its earlier one that waits for its row.
    private var nextToSend: [Int]

    /// True when `send` is its timetable's next.
    @inline(__always)
    func isTurn(of send: TimedSend) -> Bool { nextToSend[send.client] == send.sequence }

    /// `send` went: its timetable's next may go.
    @inline(__always)
    mutating func took(_ send: TimedSend) {
        nextToSend[send.client] += 1
    }

    /// `send` waits until its row is free (and its turn comes).
    mutating func waitForRow(_ send: TimedSend) {
        waitingForRows.append(send)
    }

    /// The sends waiting for their rows, taken out: the caller sends those whose turn came and whose row is free, and
    /// gives the rest back with ``waitAgain(_:)`` (its sends change the driver meanwhile).
    mutating func takeWaitingForRows() -> [TimedSend] {
        defer { waitingForRows = [] }
        return waitingForRows
    }

    /// `sends`, taken out, still wait (in their order, before any that falls due from now on).
    mutating func waitAgain(_ sends: [TimedSend]) {
        waitingForRows = sends
    }

    // MARK: Counts

    /// `count` messages went out (or were lost trying) at `time`.
    @inline(__always)
    mutating func dispatched(_ count: Int, at time: UInt64) {
        dispatched += count
        lastDispatch = time
    }

    /// Broadcast `sequence` begins: none of its messages is in flight yet.
    @inline(__always)
    mutating func beginBroadcast(_ sequence: Int) {
        currentBroadcast = sequence
        unresolvedInBroadcast = 0
    }

    /// One message of the current broadcast went out and waits for its echo.
    @inline(__always)
    mutating func broadcastMessageWritten() {
        unresolvedInBroadcast += 1
    }

    /// Message `index` settled (in a ring of `window` rows of `clients` messages); `wasInFlight` when it was
    /// waiting for its echo. In closed loop that is what lets the next message go.
    @inline(__always)
    mutating func settled(_ index: Int, clients: Int, window: Int, wasInFlight: Bool) {
        resolved += 1
        guard plan == nil, wasInFlight else { return }
        if awaited.isEmpty {  // fanout: a message of the broadcast in flight?
            if index / clients == currentBroadcast % window { unresolvedInBroadcast -= 1 }
        } else {
            let client = index % clients
            guard awaited[client] == index else { return }
            awaited[client] = -1
            ready.append(client)
        }
    }

    // MARK: Closed-loop roundtrip's turns

    /// Every client may send its first message.
    mutating func allClientsReady() {
        ready.append(contentsOf: (0..<awaited.count).reversed())
    }

    /// The next client whose turn it is, and its next sequence number; nil when none is ready.
    mutating func nextReadyClient() -> (client: Int, sequence: Int)? {
        guard let client = ready.popLast() else { return nil }
        return (client, nextSequence[client])
    }

    /// `client`'s message `index` went out: the client waits for its echo.
    mutating func took(_ client: Int, awaiting index: Int) {
        nextSequence[client] += 1
        awaited[client] = index
    }

    /// `client`'s message went nowhere (lost at once): its next one may go now.
    mutating func tookAndLost(_ client: Int) {
        nextSequence[client] += 1
        ready.append(client)
    }

    /// `client` tries again on the next pass (its row of the ring is taken, or its send failed on an open connection).
    mutating func retryLater(_ client: Int, advancing: Bool) {
        if advancing { nextSequence[client] += 1 }
        retrying.append(client)
    }

    /// `client` is away: its next message waits until it is back.
    mutating func park(_ client: Int) {
        parked[client] = true
    }

    /// `client` is back: its turn comes again if it was parked. True when it was.
    mutating func unpark(_ client: Int) -> Bool {
        guard !parked.isEmpty, parked[client] else { return false }
        parked[client] = false
        ready.append(client)
        return true
    }

    /// The end of a closed-loop pass: the clients that retry are ready for the next.
    mutating func endPass() {
        ready.append(contentsOf: retrying)
        retrying.removeAll(keepingCapacity: true)
    }
}
