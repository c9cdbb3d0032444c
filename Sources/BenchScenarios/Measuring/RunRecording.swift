import BenchClients
import BenchCore
import BenchNet

/// The raw record of a run: its ``MessageLedger`` (every message in flight and its fate, in a ring allocated once,
/// before the run, and handed on row by row as ``SettledMessage``s: `RunRecording+Window.swift`), and the run-level
/// facts beside it — its status, times, connection events, agents, drops, heartbeats and outages. A window of every
/// sequence keeps the whole run (tests that build a recording by hand). Warmup messages are included (they are the
/// first `warmup` sequence numbers); they are never streamed.
public struct RunRecording: Sendable {
    /// What was run.
    public internal(set) var configuration: RunConfiguration
    /// How it ended.
    public internal(set) var status: RunStatus = .complete
    /// Why it failed or stopped, for people; nil when complete.
    public internal(set) var statusReason: String?
    /// True when sending ended once the run's objectives were decided (``RunControl/stopWhenDecided()``), before
    /// its timetable did: a complete run of as many messages as that took.
    public internal(set) var endedWhenDecided = false
    /// The address the server listened on, with the port it got.
    public internal(set) var serverAddress = ""
    /// TLS: the SHA-256 fingerprint of the certificate the server presented; empty on plain transports.
    public internal(set) var tlsCertificateFingerprint = ""
    /// Monotonic time of schedule offset 0: when all clients were connected and sending began.
    public internal(set) var startNanoseconds: UInt64 = 0
    /// How long the built-in server waited for its clients: from its first wait to the last one's hello (with
    /// `--server-procs`, to every process's); nil where not measured (a target's run).
    public internal(set) var setupNanoseconds: UInt64?
    /// Monotonic time when the last echo came in or the last timeout passed.
    public internal(set) var endNanoseconds: UInt64 = 0
    /// Wall-clock time at ``startNanoseconds``, in nanoseconds since the Unix epoch.
    public internal(set) var startUnixNanoseconds: UInt64 = 0
    /// Every message in flight and what became of it: the ring, written only by its own events.
    public internal(set) var ledger: MessageLedger
    /// Report intervals ended so far (``SettledMessage/Kind/intervalEnd`` entries emitted).
    public internal(set) var intervalsEnded = 0
    /// True once the stream's end was emitted (``finishStream(emit:)``).
    public internal(set) var streamEnded = false
    /// A fanout server shard's: its stream says when each broadcast began, before its messages
    /// (``announceBegunBroadcasts(at:emit:)``); and the broadcasts it said so of.
    var announcesBroadcasts = false
    var broadcastsAnnounced = 0
    /// CPU time the measuring thread (the built-in server's, or a target run's clients') used from the start of sending
    /// to the end, nanoseconds: over ``sendingDuration``, how busy the harness itself was.
    public internal(set) var measuringThreadCPU: UInt64 = 0
    /// How long the measuring thread waited on a run queue (ready, not running: the machine's other work) from the start
    /// of sending to the end, nanoseconds; nil where the kernel does not say.
    public internal(set) var measuringThreadRunQueueWait: UInt64?
    /// The thread of the measuring process that waited longest on a run queue for a CPU while sending (its name and
    /// nanoseconds; nil where /proc does not say, or none waited): a client thread starved by other work shows here.
    public internal(set) var longestThreadWait: (name: String, waiting: UInt64)?
    /// What the machine's CPUs did over the run (others' work, the server's processes', steal), read by the command
    /// around it; nil where `/proc` could not be read.
    public var machine: MachineShare?
    /// The busiest client thread's CPU time in percent: over its life for this process's, since its clients were all
    /// connected for those that report it (children, agents, a target run's subscriber threads); nil without any.
    public internal(set) var busiestClientThreadPercent: Double?
    /// Times a send waited because its row of the ring still held an unsettled message (shows as lag).
    public internal(set) var windowWaits = 0
    /// `--server-procs`: the most rows a server process's ledger had (this process's holds none).
    var serverProcessWindow = 0
    /// The sequences the ledger that measured the messages could hold in flight at once: this process's, or with
    /// `--server-procs` theirs (run.csv's `window_sequences`).
    public var windowSequences: Int { Swift.max(ledger.window, serverProcessWindow) }
    /// Times the measuring thread found the stream to the writer full and waited for it (shows as lag).
    public internal(set) var writerWaits = 0
    /// How kernel stamps (CLOCK_REALTIME) were put on the run's clock, read before the run and again after it.
    public internal(set) var kernelClockAtStart: KernelClockMapping?
    public internal(set) var kernelClockAtEnd: KernelClockMapping?
    /// Connections that closed early or were refused, with the reason: the first ``maximumEvents``.
    public private(set) var connectionEvents: [ConnectionEvent] = []
    /// Events beyond ``maximumEvents`` (a flood of stray connections), counted but not kept.
    public private(set) var eventsNotRecorded = 0
    /// Connections the server closed early or refused, whether their event was kept or not: run.csv's
    /// `connections_closed_early` and the count the summary leads with.
    public private(set) var connectionsClosedEarly = 0
    /// Events the clients' side saw (a connection of theirs failing: often one the server closed, seen from the
    /// other end), the listener's (accept failed), the emulated link's and the run's own (why it measured nothing),
    /// whether kept or not. The five counts add up to every event.
    public private(set) var clientSideEvents = 0
    public private(set) var listenerEvents = 0
    public private(set) var linkEvents = 0
    public private(set) var runEvents = 0
    /// How much the kernel's count of full accept queues (`ListenOverflows`, any listener of this machine's network
    /// namespace) grew from before the run listened to its end: SYNs dropped and sent again; nil where unreadable.
    public internal(set) var listenOverflows: UInt64?
    /// How late the emulated links let their bytes out behind their model (`--link`): the worst of this process's, the
    /// children's and the agents' links; nil without a link, or one that carried nothing.
    public private(set) var linkLateness: LinkLateness?
    /// The most events a run keeps, so that a flood of connections cannot grow its memory without bound.
    public static let maximumEvents = 10_000
    /// What this process's client threads said of themselves, and what the built-in server counted of its connections.
    public internal(set) var clientThreads = ClientThreadsTally()
    public internal(set) var server = BuiltInServerTally()
    /// `--server-procs`: the server's processes, in the order of their shares of the clients.
    public internal(set) var serverShards: [ServerShardRecord] = []
    /// `bench serve`: the agents that joined, in the order they did.
    public internal(set) var agents: [AgentRecord] = []
    /// Per client, messages not written because its write queue was full: the slow consumers.
    public internal(set) var queueFullDrops: [Int]
    /// Per client of this process, from the start of its connect to the end of its transport's handshakes (ns); 0 for
    /// clients of other processes, whose connects were not seen here.
    public internal(set) var connectTimes: [UInt64]
    /// The clients' connects phase by phase, by client (where ``connectTimes`` has one): a target's clients', and the
    /// built-in server's over tls, ws and wss when they run in this process (nil for an agent's, which reports its
    /// connects whole); empty until the first is reported, and in runs whose clients report none (plain tcp).
    public internal(set) var connectPhases: [ConnectPhases?] = []
    /// Each time a client's connection closed during the run: when, and when its next hello was accepted (0: it never
    /// came back). The `reconnect` metric of runs that report outages (``RunConfiguration/reportsOutages``).
    /// At most ``maximumOutages`` are kept (24 MiB): clients that come and go without end cannot grow memory further.
    public internal(set) var outages: [ClientOutage] = []
    public static var maximumOutages: Int { 1 << 20 }
    /// The outages whose client came back.
    public var outagesBack: Int { outages.count { $0.back != 0 } }

    /// Empty storage for `window` sequence numbers of `configuration` (nil: all of them; 0: none), allocated once, before
    /// the run.
    public init(configuration: RunConfiguration, window: Int? = nil) {
        self.configuration = configuration
        self.ledger = MessageLedger(configuration: configuration, window: window)
        self.queueFullDrops = Array(repeating: 0, count: configuration.clients)
        self.connectTimes = Array(repeating: 0, count: configuration.clients)
    }

    /// How long the run sent and waited for echoes: from the start of sending to the end; 0 for a run stopped before
    /// sending began (waiting for its clients or agents), which has no start.
    public var sendingDuration: UInt64 {
        startNanoseconds == 0 ? 0 : endNanoseconds - Swift.min(startNanoseconds, endNanoseconds)
    }

    // MARK: Events

    /// A link's lateness (``LinkLateness``): the run keeps the worst.
    mutating func linkWasLate(_ lateness: LinkLateness?) {
        guard let lateness else { return }
        linkLateness = linkLateness.map { $0.worse(lateness) } ?? lateness
    }

    /// A child's or an agent's link lateness as it sent it (`text`, untrusted): kept as ``linkWasLate(_:)`` does, or,
    /// when it does not read, an event on the clients' side that says what `peer` (`agent 2`; empty: a client's
    /// share, `client` its first) sent.
    mutating func linkWasLate(reported text: String, by peer: String, client: Int?) {
        guard let lateness = LinkLateness(text: text) else {
            let excerpt = Array(text.utf8).withUnsafeBytes { PeerExcerpt.of($0) }
            return record(ConnectionEvent(
                side: .clients, client: client, time: MonotonicClock.now(),
                reason: (peer.isEmpty ? "" : peer + " ") + "sent its link's lateness as \"\(excerpt)\", which does not read"))
        }
        linkWasLate(lateness)
    }

    /// Records an event, or only counts it once ``maximumEvents`` are kept.
    public mutating func record(_ event: ConnectionEvent) {
        switch event.side {
        case .server: connectionsClosedEarly += 1
        case .clients: clientSideEvents += 1
        case .listener: listenerEvents += 1
        case .link: linkEvents += 1
        case .run: runEvents += 1
        }
        if connectionEvents.count < Self.maximumEvents {
            connectionEvents.append(event)
        } else {
            eventsNotRecorded += 1
        }
    }

    /// A server shard's events (``ShardSummary``): those it kept, moved to the run's ids by `clientOffset`, and its
    /// counts by side (server, clients, listener, link) of those it kept and those it only counted.
    mutating func absorbEvents(_ events: [ConnectionEvent], counts: [Int], clientOffset: Int) {
        let sides: [ConnectionEvent.Side] = [.server, .clients, .listener, .link]
        for event in events {
            record(ConnectionEvent(
                side: event.side, client: event.client.map { $0 + clientOffset }, time: event.time, reason: event.reason))
        }
        let kept = sides.map { side in events.count { $0.side == side } }
        let unkept = zip(counts, kept).map { max(0, $0 - $1) }
        connectionsClosedEarly += unkept[0]
        clientSideEvents += unkept[1]
        listenerEvents += unkept[2]
        linkEvents += unkept[3]
        eventsNotRecorded += unkept.reduce(0, +)
    }

    /// The slow consumers: clients with messages dropped because their write queue was full, and how many.
    public var slowClients: [(client: Int, dropped: Int)] {
        queueFullDrops.enumerated().filter { $0.element > 0 }.map { (client: $0.offset, dropped: $0.element) }
    }
}
