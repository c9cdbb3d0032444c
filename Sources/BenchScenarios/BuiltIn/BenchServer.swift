import BenchClients
import BenchCore
import BenchNet

/// The broadcast server and collector of one run; it lives on its own thread, in its own epoll loop.
///
/// It accepts the clients, waits for each one's hello, then sends by the timetable (open loop) or echo by
/// echo (closed loop), stamps every write and every echo it reads, and stores them in the run's
/// ``RunRecording``, preallocated before the first send. Nothing on the way from a read to the next write
/// allocates, locks, or touches Foundation. A closed-loop run with a single client skips epoll altogether
/// (``pingPongOnBlockingSocket()``, in `BenchServer+PingPong.swift`). The send logic is in
/// `BenchServer+Sending.swift`, what it does with incoming frames in `BenchServer+Receiving.swift`, kernel
/// transmit stamps in `BenchServer+KernelStamps.swift`.
final class BenchServer<T: Transport>: MeasuringLoopRole {

    /// An accepted connection and, once it said hello, its client id.
    struct Peer {
        let connection: Connection<T>
        /// The bench frames in what it sends.
        let frames: FrameReader
        var client: Int?
        /// With kernel stamps, from its first stamped write: the messages written to it that wait for their transmit
        /// stamp.
        var transmitStamps: TransmitStampQueue?
        /// For an agent's control connection (`bench clients`), once the agent was welcomed: its place in
        /// `recording.agents`.
        var agent: Int?
    }

    /// How long accepting pauses after accept failed for want of descriptors or memory.
    static var acceptRetryInterval: UInt64 { 100_000_000 }

    let configuration: RunConfiguration
    let control: RunControl
    /// The clients' (and agents') listener, closed at the run's end; `listener` is its number.
    let listening: SharedDescriptor
    var listener: Int32 { listening.rawValue }
    /// The event loop: epoll (the listener at position 0, connection `slot` at `slot + 1`), the timers, stop and start.
    let loop: MeasuringLoop
    /// The measuring core's state: the timetable or the closed loop's turns, and the counts.
    var driver: SendDriver
    var recording: RunRecording
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    let stream: SettledQueue?
    /// The kernel's socket stamps, when the run uses them.
    let stamps: KernelTimestamps?
    /// Fanout with `--server-threads` above 1: the threads writing their share of each broadcast.
    let writers: BroadcastWriters<T>?
    /// With the io_uring engine and one writing thread: where the connections' writes wait for the pass's submission.
    var batch: SendBatch<T>?
    /// How far a client's kernel receive stamp may fall outside [write, its own read] before it is taken for a
    /// lie: the uncertainty of putting two kernel stamps on the monotonic clock, and 1 µs.
    let kernelTolerance: UInt64
    /// What each accepted connection's transport needs.
    let transportSettings: TransportSettings
    /// What the run's clients need, sent to every agent after its welcome.
    let clientSpec: ClientSpec

    var peers: [Peer] = []
    /// Slots in `peers` free again: their connection closed before it said hello.
    var freeSlots: [Int] = []
    /// Slot in `peers` of each client id, -1 until its hello.
    var slotOfClient: [Int]
    var helloCount = 0
    /// Client ids given to agents so far; the next agent's start after the local clients' and these.
    var agentClients = 0
    /// Each agent client thread's latest busy share (percent) since its clients all said hello, by its first id.
    var agentThreadLoad: [Int: Double] = [:]
    /// The run is over and the agents' link events are read (``collectAgentLinkEvents()``): nothing else is taken.
    var collectingLinkEvents = false
    var liveClients = 0
    /// Clients that said hello again during the run (the live view's reconnects).
    var returnedClients = 0
    var connectedClients: Int { liveClients }
    var reportedClientThreadPercent: Double? { agentThreadLoad.values.max() }
    /// When the server last heard anything from each client (monotonic ns).
    var lastHeard: [UInt64]

    /// Where reads land; frames are decoded from here in place.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The data frame being sent, `payload` bytes; per-recipient fields are rewritten before each write.
    let message: UnsafeMutableRawBufferPointer
    /// Fanout: the order of the clients in the current broadcast, reshuffled each time.
    let broadcastOrder: UnsafeMutableBufferPointer<UInt32>
    var broadcastOrderRandom: SplitMix64

    /// Set while accepting pauses after a failed accept: when to watch the listener again.
    var acceptResumeTime: UInt64?
    /// True from a failed accept to the next successful one (the series is reported once).
    var acceptIsFailing = false
    /// What the server counted of its connections, and the clients' outages (close → hello again): its own, written
    /// here alone and handed to the recording once, at the end (``finish()``).
    var tally = BuiltInServerTally()
    var outages: [ClientOutage] = []
    /// Per client, its place in `outages` while it is away during the run; -1 otherwise.
    var outageOfClient: [Int]
    /// `--offline-queue`: per client, the messages that fell due while it was away (sequence, index), sent when it is
    /// back.
    var offlineMessages: [[(sequence: Int, index: Int)]]
    /// When the last client left, in a run that expects reconnects (0 while one is connected).
    var emptySince: UInt64 = 0

    var observedCPUs = CPUSet()
    /// A server shard's (`--server-procs`): when the run's process said sending begins, once it did.
    var shardStart: UInt64?

    /// Takes ownership of the listening socket `listener`; its connections' transports are set up with `transport`;
    /// agents are told `clientSpec`; `kernelClock` is given when the run uses kernel stamps.
    init(
        configuration: RunConfiguration, listener: SharedDescriptor, transport: TransportSettings, clientSpec: ClientSpec,
        control: RunControl, kernelClock: KernelClockMapping?, stream: SettledQueue? = nil
    ) throws(SystemError) {
        self.configuration = configuration
        self.control = control
        self.listening = listener
        self.loop = try MeasuringLoop(control: control)
        self.driver = SendDriver(configuration: configuration)
        self.stream = stream
        self.recording = RunRecording(
            configuration: configuration, window: stream == nil ? nil : RunRecording.window(for: configuration))
        self.recording.begin(serverAddress: "", kernelClock: kernelClock)  // the address once bound (ScenarioRunner)
        self.recording.announcesBroadcasts = control.startGate != nil && configuration.scenario == .fanout
        self.stamps = kernelClock.map { KernelTimestamps(clock: $0) }
        self.kernelTolerance = 2 * (kernelClock?.uncertainty ?? 0) + 1_000
        self.transportSettings = transport
        self.clientSpec = clientSpec
        self.writers = configuration.serverThreads > 1
            ? try BroadcastWriters(
                threads: configuration.serverThreads, clients: configuration.clients, payload: configuration.payload,
                cpu: configuration.serverCPU)
            : nil
        let clients = configuration.clients
        self.slotOfClient = Array(repeating: -1, count: clients)
        self.lastHeard = Array(repeating: 0, count: clients)
        self.outageOfClient = Array(repeating: -1, count: clients)
        self.offlineMessages = Array(repeating: [], count: configuration.offlineQueue ? clients : 0)
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * configuration.payload), alignment: 8)
        self.message = .allocate(byteCount: configuration.payload, alignment: 8)
        Frame.encodeMessage(into: message, sequence: 0, client: 0, sentNanoseconds: 0)
        self.broadcastOrder = .allocate(capacity: clients)
        for client in 0..<clients { broadcastOrder[client] = UInt32(client) }
        self.broadcastOrderRandom = SplitMix64(seed: configuration.seed, stream: SendPlan.broadcastOrderStream)
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
    }

    deinit {
        readBuffer.deallocate()
        message.deallocate()
        broadcastOrder.deallocate()
    }

    /// Runs the whole run: setup, sending, the wait for the last echoes. Closes every socket it owns.
    func run() -> Result<RunRecording, RunError> {
        defer {
            for peer in peers { peer.connection.close() }
            listening.close()
        }
        do throws(RunError) {
            startUring()
            do throws(SystemError) {
                try epoll.add(listener, interest: .readable, token: Self.listenerToken)
            } catch {
                throw RunError.system(error)
            }
            try waitForClients()
            if !isStopping {
                try loop.beginSending(self, at: shardStart)
                try sendAndCollect()
            }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// With the io_uring engine, sets it up on this thread: every connection's reads arrive through the ring, and
    /// its writes go out in one submission per broadcast and per pass (one writing thread only: ``BroadcastWriters``
    /// write from several). A single client in closed loop blocks in read instead (ping-pong). Where the ring cannot
    /// be set up, the loop stays on epoll and says so in the run's events.
    private func startUring() {
        guard configuration.ioEngine == .uring, !isPingPong else { return }
        var refusal = loop.startUring(
            connections: configuration.clients + 1, frameSize: transportSettings.maximumFrameSize, clock: stamps?.clock)
        if refusal == nil && writers == nil {
            do {
                batch = try SendBatch<T>(frameSize: transportSettings.maximumFrameSize)
            } catch {
                refusal = error
            }
        }
        if let refusal {
            recording.record(ConnectionEvent(
                side: .server, client: nil, time: MonotonicClock.now(),
                reason: "io_uring could not be set up on the server's thread (\(refusal)); its sockets use epoll"))
        }
    }

    /// With io_uring, submits the writes this pass queued.
    func flushSends() {
        batch?.flush()
    }

    /// Accepts connections until every client said hello.
    private func waitForClients() throws(RunError) {
        let began = MonotonicClock.now()
        let openMore = { () throws(RunError) in
            if let reason = self.control.setupFailureReason { throw .setupFailed(reason) }
            self.resumeAcceptingIfDue(at: MonotonicClock.now())
        }
        try loop.setUp(
            self, timeout: configuration.setupBudget, isDone: { helloCount >= configuration.clients }, openMore: openMore,
            timedOut: {
                .setupFailed(
                    "\(helloCount) of \(configuration.clients) clients connected and said hello within "
                        + DurationText.format(configuration.setupBudget) + agentsSummary)
            })
        recording.setupNanoseconds = MonotonicClock.now() - began
        guard control.startGate != nil else { return }
        // A server shard's clients are all here: it waits for the others' as long as the run's process does (it ends
        // the shard, or its channel, when it gives up), serving its connections meanwhile.
        try loop.setUp(self, timeout: .max / 2, isDone: shardMayStart, openMore: openMore, timedOut: { .setupFailed("") })
    }

    /// True when sending may begin: always, but in a server shard, once the run's process said when (every shard's
    /// clients are here). Its channel failing fails the setup.
    private func shardMayStart() -> Bool {
        guard let channel = control.startGate else { return true }
        do {
            shardStart = try channel.startTime()
        } catch {
            control.failSetup("the run's process is gone (\(error))")
        }
        return shardStart != nil
    }

    /// The loop of the run proper, until every message is settled or the last one's timeout passed.
    private func sendAndCollect() throws(RunError) {
        if isPingPong && peers.count == 1 {
            try pingPongOnBlockingSocket()
            return
        }
        try loop.measure(self, busyPoll: configuration.busyPoll)
    }

    /// A closed loop with one client that does not come back: both ends block in read (ping-pong), with no epoll.
    private var isPingPong: Bool {
        driver.plan == nil && configuration.clients == 1 && !configuration.expectsReconnects
    }

    /// The epoll token of the listening socket, and of the connection in `slot`.
    static var listenerToken: UInt64 { MeasuringLoop.token(ofPosition: 0) }
    static func token(ofSlot slot: Int) -> UInt64 { MeasuringLoop.token(ofPosition: slot + 1) }

    /// Waits for events, at most `timeout` nanoseconds, and handles them.
    func waitForEvents(timeout: UInt64) throws(RunError) {
        try loop.wait(for: self, timeoutMilliseconds: Int32((timeout + 999_999) / 1_000_000))
    }

    /// The listener's events (position 0), or a connection's (`slot` + 1).
    func handle(_ events: EpollEvents, position: Int) -> RunError? {
        if position == 0 { acceptConnections() } else { handleConnectionEvent(slot: position - 1, events: events) }
        return nil
    }

    /// Checks closed-loop timeouts and silent clients, and publishes progress.
    func housekeeping(at now: UInt64) {
        resumeAcceptingIfDue(at: now)
        // Timeouts and hand-on first, as before the core: a message whose timeout passed is timed out, not lost with a
        // connection closed in the same tick.
        measuringHousekeeping(at: now)
        if configuration.deadAfter > 0 { disconnectSilentClients(at: now) }
        dropConnectionsIfDue(at: now)
    }

    /// Settles what is left and records how the run ended.
    private func finish() {
        // Transmit stamps the kernel made but this thread had not read yet (a busy machine delays the EPOLLERR that
        // says so): one last drain of every connection's error queue, before what is left is settled and handed on.
        if stamps != nil { for slot in peers.indices where peers[slot].connection.isOpen { drainTransmitStamps(slot: slot) } }
        finishMeasuring()
        recordEnding(
            stopped: isRunning ? "stopped on request" : "stopped on request before sending began",
            failure: liveClients == 0 ? "every client disconnected" : nil)
        if let writers { observedCPUs.formUnion(writers.stop()) }
        awaitAgentsConnectTimes()
        sayGoodbye()
        collectAgentLinkEvents()
        for peer in peers where peer.client != nil { tally.heartbeatsReceived += peer.connection.pingsReceived }
        observedCPUs.formUnion(loop.observedCPUs)
        tally.cpus = observedCPUs
        tally.allowedCPUs = CPUPlacement.allowedCPUs()
        recording.merge(serverTally: tally, outages: outages)
        recording.finishStream(to: stream)
    }
}
