import BenchCore
import BenchNet
import BenchProtocols

/// Everything that defines one run, fixed before it starts. Times are nanoseconds.
public struct RunConfiguration: Sendable, Equatable {
    /// First connects under way at once in each client loop without `--connect-rate`: enough to keep the listen
    /// backlog busy, few enough that no SYN is dropped.
    public static let connectWindow = 128
    /// The most subscribers one connection carries (`--streams-per-connection`): as many streams as HTTP/2 servers
    /// commonly allow at once (SETTINGS_MAX_CONCURRENT_STREAMS of 1,000 and more).
    public static let maximumStreamsPerConnection = 1_000

    /// Fanout or roundtrip.
    public var scenario: Scenario
    /// Simulated clients, each on its own connection.
    public var clients: Int
    /// Chat: how the clients are dealt into rooms (the deal itself comes from ``seed``); nil in the other scenarios.
    public var chatRooms: ChatRoomPlan?
    /// Measured messages: broadcasts in fanout, messages per client in roundtrip.
    public var messages: Int
    /// Send by the timetable (or closed loop) until this long after the start, instead of a number of messages;
    /// nil: `messages`. The warmup messages come first, inside it.
    public var duration: UInt64?
    /// How often the run's results so far are written out (`timeline.csv`, the samples streamed, a line on the
    /// terminal); 0: only at the end.
    public var reportEvery: UInt64
    /// Bytes of memory for exact percentiles (reckoned at 8 per value; one below 4.3 s takes 4); a run with more values reads them from histograms.
    public var exactBudget: Int
    /// Messages sent first and then discarded, counted like ``messages``.
    public var warmup: Int
    /// Mean time between sends; 0 is closed loop (the next send waits for the last one's echoes).
    public var interval: UInt64
    /// Random (exponential) or fixed gaps between sends.
    public var arrival: Arrival
    /// Size of one message on the wire, header included.
    public var payload: Int
    /// A message not echoed (or delivered) this long after its write is lost.
    public var timeout: UInt64
    /// The latency threshold for "percent under".
    public var under: UInt64
    /// Seed of the send schedule and of the broadcast order.
    public var seed: UInt64
    /// Address the server listens on.
    public var host: String
    /// Port the server listens on; 0 picks any free port.
    public var port: UInt16
    /// CPU for the server's thread, or nil for wherever the kernel puts it.
    public var serverCPU: Int?
    /// CPU for the clients' thread, or nil.
    public var clientCPU: Int?
    /// Most bytes one connection may have waiting to be written before messages to it are dropped (the
    /// client is then reported as slow).
    public var maximumQueuedBytes: Int
    /// How often each client sends a heartbeat; 0 sends none.
    public var heartbeat: UInt64
    /// A client the server has heard nothing from (no frame at all) for this long is disconnected as dead;
    /// 0 never does. Messages still owed to it are lost.
    public var deadAfter: UInt64
    /// Against a user's server (`--dead-after` given): a subscriber's connection that has heard nothing from the server
    /// for this long, once it was ready, is taken for dead and closed (a hung server: the process stopped, its sockets
    /// still there); with `--reconnect` it tries again, and a try that hears nothing this long fails. 0: never.
    public var silenceLimit: UInt64 = 0
    /// The clients this process simulates when not all of them; nil: all. The server waits for all `clients`,
    /// so the ids outside this range must connect from elsewhere (another process, or a test's own socket).
    public var localClientRange: Range<Int>?
    /// A fan-out target run whose subscribers are child processes (`--client-procs`): this process's ends of their
    /// channels (connected stream sockets), each carrying the next consecutive share of the ids
    /// (``Swift/Range/evenShares(_:)``); empty: the subscribers run on threads of this process. Placement, like
    /// ``localClientRange``; the caller closes them after the run, which ends the children.
    public var clientGroupChannels: [ChildChannel]
    /// `--server-procs`: the built-in server's shards, child processes each serving the next consecutive share of the
    /// clients (``Swift/Range/evenShares(_:)``) and streaming what it settled on its channel (``ShardFrame``); this
    /// process merges them into the run (``ShardedRun``). A chat run's are relay processes hosting whole rooms, whose
    /// members this process measures (``ChatRelayProcesses``). Empty: the server runs here. The caller closes them after.
    public var serverShards: [ChildChannel] = []
    /// A chat run's relay processes (`--server-procs`, ``serverShards``), where each listens, once it said so: a
    /// member connects to the one hosting its room (``ChatRooms/relayOfRoom(relays:)``). Empty: one relay, here.
    public var chatRelays: [SocketAddress] = []
    /// How long all clients may take to connect and say hello before the run fails, once the last one's connect is
    /// due (``setupBudget``).
    public var setupTimeout: UInt64
    /// `--connect-rate`: the time between two clients' first connects across the run, client `k` starting `k` of them
    /// after the first (a ramp, in every placement); nil: as fast as a window of ``connectWindow`` connects
    /// at a time goes.
    public var connectInterval: UInt64?
    /// `--link`: the link (or the mix of links, dealt among the clients by ``seed``) this process's clients sit behind,
    /// emulated between them and the server (``LinkEmulator``); nil: loopback as it is.
    public var link: LinkMix?
    /// Where receive and send times come from.
    public var timestamps: TimestampSource
    /// Threads the clients of this process are split over, each with its own epoll, so that one client's receive
    /// stamp does not wait for the others' reads.
    public var clientThreads: Int
    /// Fanout: threads that write each broadcast, each its share of the clients (t0 is the earliest first write).
    public var serverThreads: Int
    /// Server and clients spin on non-blocking reads (and ask for `SO_BUSY_POLL`) instead of sleeping in
    /// epoll_wait or read: the lowest latencies, at the cost of a CPU per busy thread.
    public var busyPoll: Bool
    /// `--io` as asked (the environment's `BENCH_IO` by default).
    public var ioChoice: IOEngineChoice
    /// How the harness's loops read and write their connections: ``ioChoice`` for this run's clients on this machine
    /// (``IOEngine/resolve(_:clients:probe:)``; the probe runs once per process).
    public var ioEngine: IOEngine { IOEngine.resolve(ioChoice, clients: clients).engine }
    /// How the frames travel: tcp, ws, tls or wss.
    public var transport: TransportKind
    /// The WebSocket path the clients ask for and the server accepts.
    public var webSocketPath: String
    /// TLS: the server's certificate and private key (PEM files); nil makes an ephemeral self-signed certificate.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// TLS: how the clients trust the server (`--tls-ca`, `--tls-pin`, `--tls-insecure`); nil: the built-in server's
    /// own certificate pinned, a target's chain and name verified against the system's store.
    public var tlsTrust: TLSTrustOption?
    /// What this run is: the built-in server with its clients, the built-in server whose clients agents bring, or a
    /// user's server measured by this process's clients. One value, so a run cannot be two of them at once.
    public var role: RunRole
    /// A target run's server and how to speak to it; nil: the built-in server. Read from ``role``, which alone holds it.
    public var target: TargetSettings? {
        // A switch statement, not an `if case` expression: that form crashed the optimizer's ownership verifier
        // (Swift 6.3.1, -O) in a caller.
        switch role {
        case .target(let settings, _): return settings
        case .local, .serve: return nil
        }
    }
    /// The hash of `bench serve`'s `--token` (``AgentToken``), which an agent (`bench clients`) must show to be given
    /// client ids; nil: the run takes no agents. Read from ``role``; ``admitAgents(tokenHash:)`` sets it.
    public var agentToken: UInt64? {
        switch role {
        case .serve(let token): return token
        case .target(_, let token): return token
        case .local: return nil
        }
    }

    /// The run's clients are brought by agents that show the token whose hash is `tokenHash`: the built-in server
    /// serves them (`bench serve`), a target run has them measure its server (`bench serve … --target`).
    public mutating func admitAgents(tokenHash: UInt64) {
        switch role {
        case .target(let settings, _): role = .target(settings, agentToken: tokenHash)
        case .local, .serve: role = .serve(agentToken: tokenHash)
        }
    }
    /// The addresses the clients connect from, client `i` from the `i % count`th (`--source-addresses`); empty: one
    /// address, or when the run's clients would need more ephemeral ports than one has, loopback addresses enough
    /// for them (``SourceAddresses/automatic(clients:server:ports:)``, only towards a server on loopback).
    public var sourceAddresses: [String]
    /// The clients try again after a connection of theirs drops (not after the server's goodbye), with this backoff;
    /// nil: a dropped client is gone for the rest of the run.
    public var reconnect: ReconnectBackoff?
    /// Open-loop roundtrip with reconnects (`--offline-queue`): a message due while its client is away waits for it
    /// and goes when it is back (its rtt counts from when it was due, the wait included), instead of being lost; past
    /// `timeout` it is lost as timed out all the same.
    public var offlineQueue: Bool
    /// The server closes every client's connection once, this long after sending began (`--drop-connections-at`):
    /// an outage to measure the reconnects by; nil: never.
    public var dropConnectionsAt: UInt64?
    /// The run's own random number, which every client's hello must carry: a connection that does not know it
    /// (a stray process, a client of another run) cannot take a client id. Never written to a report.
    public var token: UInt64

    /// The defaults SPEC gives for a scenario, with a seed.
    public init(scenario: Scenario, seed: UInt64) {
        self.scenario = scenario
        self.clients = scenario == .fanout ? 50 : scenario == .chat ? 100 : 1
        self.chatRooms = scenario == .chat ? ChatRoomPlan(rooms: 10) : nil  // rooms of 10
        self.messages = scenario == .chat ? 50 : 200
        self.warmup = scenario == .chat ? 5 : 10
        self.duration = nil
        self.reportEvery = 10_000_000_000
        self.exactBudget = 64 << 20
        self.interval = scenario == .fanout ? 50_000_000 : scenario == .chat ? 100_000_000 : 10_000_000
        self.arrival = .poisson
        self.payload = 64
        self.timeout = 5_000_000_000
        self.under = 200_000_000
        self.seed = seed
        self.host = "127.0.0.1"
        self.port = 0
        self.serverCPU = nil
        self.clientCPU = nil
        self.maximumQueuedBytes = 256 << 10
        self.heartbeat = 5_000_000_000
        self.deadAfter = 15_000_000_000
        self.localClientRange = nil
        self.clientGroupChannels = []
        self.setupTimeout = 30_000_000_000
        self.connectInterval = nil
        self.link = nil
        self.token = UInt64.random(in: 1...UInt64.max)
        self.timestamps = .kernel
        self.clientThreads = 1
        self.busyPoll = false
        self.ioChoice = IOEngineChoice.environmentDefault
        self.serverThreads = 1
        self.transport = .tcp
        self.webSocketPath = "/"
        self.tlsCertificatePath = nil
        self.tlsKeyPath = nil
        self.tlsTrust = nil
        self.role = .local
        self.reconnect = nil
        self.sourceAddresses = []
        self.offlineQueue = false
        self.dropConnectionsAt = nil
    }

    /// Sequence numbers per client, warmup included: broadcasts in fanout, messages in roundtrip. A `--duration` run
    /// has as many as the wire's 32 bits number; its time ends it first.
    public var sequencesPerClient: Int { duration == nil ? warmup + messages : Int(UInt32.max) }

    /// Messages of one sequence number: one per client (a broadcast's, or each client's own), or in chat one per
    /// delivery of every client's message to the other members of its room.
    public var messagesPerSequence: Int {
        guard scenario == .chat, let chatRooms, chatRooms.refusal(clients: clients) == nil else { return clients }
        return chatRooms.deliveriesPerRound(clients: clients)
    }

    /// Messages in the whole run, warmup included: ``messagesPerSequence`` per sequence number (a `--duration` run's
    /// bound).
    public var totalMessages: Int { messagesPerSequence * sequencesPerClient }

    /// Messages the run is expected to send, warmup included: exact for a count, the timetable's mean for an open-loop
    /// `--duration`, 0 (unknown) for a closed-loop one.
    public var expectedMessages: Int {
        guard let duration else { return totalMessages }
        guard interval > 0 else { return 0 }
        return messagesPerSequence * Int(min(duration / interval + 1, UInt64(UInt32.max)))
    }

    /// The clients this process simulates.
    public var localClients: Range<Int> { localClientRange ?? 0..<clients }

    /// True when clients may come back after their connection closed: the server then accepts a client's hello during
    /// the run, and a run with no client left waits (up to ``deadAfter``) for one to return instead of ending.
    public var expectsReconnects: Bool { reconnect != nil || dropConnectionsAt != nil }

    /// How long a run with nobody connected waits for a client to come back before it ends: ``deadAfter``, or when that
    /// is 0, a ``timeout``. A user's server's clients come back by their backoff, as long as their tries last (and
    /// the run stops waiting once every one gave up): `--dead-after` there is how long a silence is, not this.
    public var returnGrace: UInt64 {
        if target != nil, let reconnect { return max(reconnect.span, timeout) }
        return deadAfter > 0 ? deadAfter : timeout
    }

    /// True when the built-in server listens on this machine's loopback (`--host`).
    public var isOnLoopback: Bool { TargetURL.isLoopback(host) }

    /// True when the run reports its outages (`reconnects.csv` and the `reconnect` metric): its clients may come back,
    /// or its link may cut them off (a NAT that forgets idle connections, blackouts).
    public var reportsOutages: Bool { expectsReconnects || link?.hasOutages == true }

    /// True when the run reports the `reconnect` metric: the built-in server's when its clients' outages are reported;
    /// a user's server's with `--reconnect` (its subscribers' returns).
    public var hasReconnectMetric: Bool { target == nil ? reportsOutages : reconnect != nil }

    /// How long the setup may last: ``setupTimeout`` after the last client's connect is due (with `--connect-rate`,
    /// the ramp's length later), and ``setupTimePerClient`` more a client: 100,000 connects at once took about 30 s on two CPUs (the
    /// kernel's work, SYNs sent again after full accept queues among it).
    public static var setupTimePerClient: UInt64 { 300_000 }
    public var setupBudget: UInt64 {
        setupTimeout &+ UInt64(clients) &* Self.setupTimePerClient &+ (connectInterval.map { UInt64(max(0, clients - 1)) &* $0 } ?? 0)
    }

    /// True when a message's echo comes back to the measuring side (rtt): roundtrip, fanout from the built-in server,
    /// and chat where the server sends the sender its own copy; a target's subscribers only read.
    public var hasEchoes: Bool { scenario == .roundtrip || (scenario == .fanout && target == nil) || chatEchoesToSender }

    /// Chat through a server that sends each message to its sender too (NATS, MQTT: the sender is subscribed to its
    /// room's subject or topic; a described protocol that says `own-copy yes`): the sender's read of its own copy is
    /// the message's round trip.
    public var chatEchoesToSender: Bool {
        scenario == .chat
            && (target?.url.scheme.sendsChatToSender == true || target?.protocolDescription?.sendsOwnCopy == true)
    }

    /// The subscribers one connection carries: a fan-out target's `--streams-per-connection`, 1 elsewhere. Shares of
    /// the ids (threads, child processes, agents' threads) are cut between connections of this many.
    public var subscribersPerConnection: Int { scenario == .fanout ? target?.streamsPerConnection ?? 1 : 1 }

    /// True when each send waits for the previous one's echoes instead of following a timetable.
    public var isClosedLoop: Bool { interval == 0 }
}
