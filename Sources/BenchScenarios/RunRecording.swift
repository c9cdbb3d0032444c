import BenchNet

/// The raw record of a run's messages in flight: every timestamp the server took or received, per message, in
/// arrays allocated once, before the run.
///
/// The arrays are a ring of ``window`` rows, one row per sequence number (its broadcast in fanout, its place in the
/// client's series in roundtrip), one column per client: message `(sequence, client)` is at index
/// `(sequence % window) * clients + client`. Rows are handed on in order once every message in them is settled
/// (`RunRecording+Window.swift`: ``flush(at:ending:emit:)``), as ``SettledMessage``s, and reused; so memory is set by
/// the timeout and the send rate, not by the run's length. A window of every sequence keeps the whole run (tests that
/// build a recording by hand). A time of 0 means "never happened". Warmup messages are included (they are the first
/// `warmup` sequence numbers); they are never streamed.
public struct RunRecording: Sendable {
    /// What was run.
    public var configuration: RunConfiguration
    /// How it ended.
    public var status: RunStatus = .complete
    /// Why it failed or stopped, for people; nil when complete.
    public var statusReason: String?
    /// The address the server listened on, with the port it got.
    public var serverAddress = ""
    /// TLS: the SHA-256 fingerprint of the certificate the server presented; empty on plain transports.
    public var tlsCertificateFingerprint = ""
    /// Monotonic time of schedule offset 0: when all clients were connected and sending began.
    public var startNanoseconds: UInt64 = 0
    /// Monotonic time when the last echo came in or the last timeout passed.
    public var endNanoseconds: UInt64 = 0
    /// Wall-clock time at ``startNanoseconds``, in nanoseconds since the Unix epoch.
    public var startUnixNanoseconds: UInt64 = 0
    /// Rows in the ring: sequence numbers in flight at once.
    public let window: Int
    /// The first sequence number not yet handed on: rows hold `flushedUpTo ..< flushedUpTo + window`.
    public internal(set) var flushedUpTo = 0
    /// Report intervals ended so far (``SettledMessage/Kind/intervalEnd`` entries emitted).
    public internal(set) var intervalsEnded = 0
    /// True once the stream's end was emitted (``finishStream(emit:)``).
    public internal(set) var streamEnded = false
    /// CPU time the measuring thread (the built-in server's, or a target run's clients') used from the start of sending
    /// to the end, nanoseconds: over ``sendingDuration``, how busy the harness itself was.
    public var measuringThreadCPU: UInt64 = 0
    /// The busiest client thread's CPU time in percent: over its life for this process's, since its clients were all
    /// connected for those that report it (children, agents, a target run's subscriber threads); nil without any.
    public var busiestClientThreadPercent: Double?
    /// Echoes that came after their row was handed on (long after their timeout): counted, nothing else.
    public var echoesAfterHandOn = 0
    /// Times a send waited because its row of the ring still held an unsettled message (shows as lag).
    public var windowWaits = 0
    /// Times the measuring thread found the stream to the writer full and waited for it (shows as lag).
    public var writerWaits = 0
    /// When each send was due: per broadcast in fanout, per message in roundtrip (monotonic ns).
    public var scheduled: [UInt64]
    /// Fanout only: the time before the first write of each broadcast, t0(k).
    public var broadcastStart: [UInt64]
    /// Per message: the time right before the write system call, tw; 0 if never written.
    public var written: [UInt64]
    /// Per message: the time right after the client's read returned it, tr, as its echo reported.
    public var received: [UInt64]
    /// Per message: the time right after the server's read returned its echo.
    public var echoed: [UInt64]
    /// Per message: what became of it. It changes only through the ring's methods (``markWritten(_:at:)``,
    /// ``settle(_:as:)``, ``changeTimedOut(_:to:)``, ``timeOutWhatIsInFlight()``), so written → settled holds by
    /// construction.
    public private(set) var outcome: [MessageOutcome]
    /// With kernel stamps (`timestamps` kernel or both; empty arrays otherwise), per message, monotonic ns, 0 when
    /// the kernel gave none: when the kernel handed the server's write on, when the segment reached the client,
    /// and when the echo reached the server.
    public var writtenKernel: [UInt64]
    public var receivedKernel: [UInt64]
    public var echoedKernel: [UInt64]
    /// How kernel stamps (CLOCK_REALTIME) were put on the run's clock, read before the run and again after it.
    public var kernelClockAtStart: KernelClockMapping?
    public var kernelClockAtEnd: KernelClockMapping?
    /// Connections that closed early or were refused, with the reason: the first ``maximumEvents``.
    public private(set) var connectionEvents: [ConnectionEvent] = []
    /// Events beyond ``maximumEvents`` (a flood of stray connections), counted but not kept.
    public private(set) var eventsNotRecorded = 0
    /// Connections the server closed early or refused, whether their event was kept or not: run.csv's
    /// `connections_closed_early` and the count the summary leads with.
    public private(set) var connectionsClosedEarly = 0
    /// Events the clients' side saw (a connection of theirs failing: often one the server closed, seen from the
    /// other end) and the listener's (accept failed), whether kept or not. The three counts add up to every event.
    public private(set) var clientSideEvents = 0
    public private(set) var listenerEvents = 0
    /// The most events a run keeps, so that a flood of connections cannot grow its memory without bound.
    public static let maximumEvents = 10_000
    /// `bench serve`: the agents that joined, in the order they did.
    public var agents: [AgentRecord] = []
    /// With agents: per client, measured messages handed on and how many of them were lost (for `agents.csv`).
    public internal(set) var measuredPerClient: [Int] = []
    public internal(set) var lostPerClient: [Int] = []
    /// Echoes the clients could not send because their write queue was full.
    public var droppedEchoes = 0
    /// Heartbeats the clients of this process sent.
    public var heartbeatsSent = 0
    /// Heartbeats the server received.
    public var heartbeatsReceived = 0
    /// Clients the server disconnected because it heard nothing from them for `deadAfter`.
    public var deadClients: [Int] = []
    /// Per client, messages not written because its write queue was full: the slow consumers.
    public var queueFullDrops: [Int]
    /// Per client of this process, from the start of its connect to the end of its transport's handshakes (ns); 0 for
    /// clients of other processes, whose connects were not seen here.
    public var connectTimes: [UInt64]
    /// Each time a client's connection closed during the run: when, and when its next hello was accepted (0: it never
    /// came back). The `reconnect` metric of runs that expect reconnects (``RunConfiguration/expectsReconnects``).
    /// At most ``maximumOutages`` are kept (24 MiB): clients that come and go without end cannot grow memory further.
    public var outages: [ClientOutage] = []
    public static var maximumOutages: Int { 1 << 20 }
    /// The outages whose client came back.
    public var outagesBack: Int { outages.count { $0.back != 0 } }
    /// `--reconnect`, as this process's clients saw it: hellos they said again after a drop, and clients that gave up.
    public var clientReconnects = 0
    public var clientsGaveUp = 0
    /// When the server closed every client's connection for `--drop-connections-at` (monotonic ns); 0: it did not.
    public var connectionsDroppedAt: UInt64 = 0
    /// The most bytes any one connection had waiting in its write queue.
    public var peakQueuedBytes = 0
    /// Times accept(2) failed on the listening socket (the connection skipped, or accepting paused).
    public var acceptFailures = 0
    /// Echoes that arrived twice for the same message (ignored after the first).
    public var duplicateEchoes = 0
    /// CPUs the server's thread was seen running on during the run.
    public var serverCPUs = CPUSet()
    /// CPUs the server's thread was allowed to run on.
    public var serverAllowedCPUs = CPUSet()
    /// CPUs the clients' thread was seen running on during the run.
    public var clientCPUs = CPUSet()
    /// CPUs the clients' thread was allowed to run on.
    public var clientAllowedCPUs = CPUSet()

    /// Empty storage for `window` sequence numbers of `configuration` (nil: all of them), allocated once, before the run.
    public init(configuration: RunConfiguration, window: Int? = nil) {
        self.configuration = configuration
        let sequences = max(1, min(window ?? configuration.sequencesPerClient, configuration.sequencesPerClient))
        self.window = sequences
        let messages = sequences * configuration.clients
        self.scheduled = Array(repeating: 0, count: configuration.scenario == .fanout ? sequences : messages)
        self.broadcastStart = Array(repeating: 0, count: configuration.scenario == .fanout ? sequences : 0)
        self.written = Array(repeating: 0, count: messages)
        self.received = Array(repeating: 0, count: messages)
        self.echoed = Array(repeating: 0, count: messages)
        self.outcome = Array(repeating: .notDispatched, count: messages)
        // agents.csv counts each agent's (and a target run's each child's) clients' messages.
        if configuration.agentToken != nil || !configuration.subscriberChannels.isEmpty {
            self.measuredPerClient = Array(repeating: 0, count: configuration.clients)
            self.lostPerClient = Array(repeating: 0, count: configuration.clients)
        }
        let kernel = configuration.timestamps.usesKernel
        self.writtenKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.receivedKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.echoedKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.queueFullDrops = Array(repeating: 0, count: configuration.clients)
        self.connectTimes = Array(repeating: 0, count: configuration.clients)
    }

    /// How long the run sent and waited for echoes: from the start of sending to the end; 0 for a run stopped before
    /// sending began (waiting for its clients or agents), which has no start.
    public var sendingDuration: UInt64 {
        startNanoseconds == 0 ? 0 : endNanoseconds - Swift.min(startNanoseconds, endNanoseconds)
    }

    // MARK: A message's outcome, which only these change

    /// Message `index` went out at `time` (the time before the write): it waits for its echo.
    @inline(__always)
    public mutating func markWritten(_ index: Int, at time: UInt64) {
        outcome[index] = .written
        written[index] = time
    }

    /// Message `index` is settled as `outcome` (echoed, late, dropped, lost with its connection, timed out); true when
    /// it was waiting for its echo, false when it never went out.
    @inline(__always) @discardableResult
    public mutating func settle(_ index: Int, as outcome: MessageOutcome) -> Bool {
        let wasInFlight = self.outcome[index] == .written
        self.outcome[index] = outcome
        return wasInFlight
    }

    /// An echo of message `index` came after it was settled as timed out: its fate can still change (to late, or to
    /// an invalid timestamp), not its count.
    @inline(__always)
    public mutating func changeTimedOut(_ index: Int, to outcome: MessageOutcome) {
        if self.outcome[index] == .timedOut { self.outcome[index] = outcome }
    }

    /// The end of a run: every message still waiting for its echo timed out.
    public mutating func timeOutWhatIsInFlight() {
        for index in outcome.indices where outcome[index] == .written { outcome[index] = .timedOut }
    }

    /// Empties message `index`'s place in the ring for the sequence that takes its row next.
    @inline(__always)
    mutating func clear(message index: Int) {
        (written[index], received[index], echoed[index], outcome[index]) = (0, 0, 0, .notDispatched)
    }

    // MARK: Events

    /// Records an event, or only counts it once ``maximumEvents`` are kept.
    public mutating func record(_ event: ConnectionEvent) {
        switch event.side {
        case .server: connectionsClosedEarly += 1
        case .clients: clientSideEvents += 1
        case .listener: listenerEvents += 1
        }
        if connectionEvents.count < Self.maximumEvents {
            connectionEvents.append(event)
        } else {
            eventsNotRecorded += 1
        }
    }

    /// The slow consumers: clients with messages dropped because their write queue was full, and how many.
    public var slowClients: [(client: Int, dropped: Int)] {
        queueFullDrops.enumerated().filter { $0.element > 0 }.map { (client: $0.offset, dropped: $0.element) }
    }

    /// Index of message `(sequence, client)` in the per-message arrays.
    @inline(__always)
    public func messageIndex(sequence: Int, client: Int) -> Int {
        row(of: sequence) * configuration.clients + client
    }

    /// The row of `sequence` in the ring: its index in the per-sequence arrays (`scheduled` in fanout,
    /// `broadcastStart`).
    @inline(__always)
    public func row(of sequence: Int) -> Int {
        sequence % window
    }

    /// The sequence number row `row` holds now.
    public func sequence(ofRow row: Int) -> Int {
        flushedUpTo + (row - flushedUpTo % window + window) % window
    }
}
