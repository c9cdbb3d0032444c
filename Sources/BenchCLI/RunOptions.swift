import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// The options of `bench fanout` and `bench roundtrip`, checked and turned into the runs to make.
struct RunOptions {
    /// The runs, in order: one, or the steps of a sweep (comma lists, `--repeat`).
    var steps: [SweepStep]
    /// Each step's configuration, in order.
    var configurations: [RunConfiguration] { steps.map(\.configuration) }
    /// More than one run: they go in a sweep folder, with `sweep.csv`, `sweep.md` and `sweep.html`.
    var isSweep: Bool { steps.count > 1 }
    /// JSON: one object per line, as each run ends (`--json-lines`), instead of one document.
    var jsonLines: Bool
    /// The run folder's name (a sweep's folder's, for a sweep) instead of `<scenario>-<UTC>`: a suite's entry name.
    var runFolderName: String?
    /// Where run folders go.
    var outputFolder: String
    /// No terminal table.
    var quiet: Bool
    /// The summary as JSON on stdout.
    var json: Bool
    /// `--client-procs`: child processes for the clients; nil: as many as the descriptor limit needs (often 0).
    var clientProcesses: Int?
    /// `--server-procs`: processes for the built-in server; nil: as many as the descriptor limit needs (often 1).
    var serverProcesses: Int?
    /// True when `--seed` was not given (the random seed is printed so the run can be repeated).
    var seedWasRandom: Bool
    /// `--io uring` on a machine that refuses io_uring: the run uses epoll and says so.
    var ioNote: String?
    /// The conditions every run must meet (`--threshold`, repeatable).
    var thresholds: [Threshold]
    /// `--accept`: what makes a verdict inconclusive that the user takes as it is.
    var accepted: Set<InconclusiveReason>
    /// Each run shows its summary on stdout and in the step summary (`GITHUB_STEP_SUMMARY`); false for the runs of a
    /// capacity search, which reports them together.
    var reportsEachRun = true
    /// `--metrics-listen`: where the runs are served while they go; and once serving, the feed they publish to.
    var metricsListen: SocketAddress?
    var live: LiveFeed?
    /// A capacity step's: the run sends until this is true of what it collected so far, or its timetable ends.
    var isDecided: (@Sendable (RunCollector) -> Bool)?

    /// The options `scenario` accepts, in help order, with SPEC's defaults.
    static func options(for scenario: Scenario) -> [OptionSpec] {
        let defaults = RunConfiguration(scenario: scenario, seed: 0)
        let countOption = scenario == .fanout
            ? OptionSpec("messages", value: "m", help: "Broadcasts to measure.", default: "\(defaults.messages)")
            : OptionSpec(
                "count", value: "c", help: scenario == .chat ? "Messages to measure per member." : "Messages to measure per client.",
                default: "\(defaults.messages)")
        let all: [OptionSpec] = [
            OptionSpec(
                "clients", value: "n", help: "Simulated clients, one connection each; a list (10,100,1000) sweeps.",
                default: "\(defaults.clients)"),
            countOption,
            ] + (scenario == .chat ? chatOptions(defaults: defaults) : []) + lengthOptions(defaults: defaults, countOption: countOption.name)
            + connectionOptions.filter { scenario == .roundtrip || $0.name != "offline-queue" } + [linkOption] + [
            OptionSpec(
                "interval", value: "duration",
                help: "Mean time between sends; 0 = closed loop (the next send waits for the echoes); a list sweeps.",
                default: DurationText.format(defaults.interval)),
            OptionSpec(
                "arrival", value: "kind",
                help: "Gaps between sends: poisson (random, mean \(scenario == .chat ? "1/--rate" : "--interval")) or fixed.",
                default: defaults.arrival.rawValue),
            OptionSpec(
                "payload", value: "bytes", help: "Message size on the wire, header included; a list (64,1KiB) sweeps.",
                default: "\(defaults.payload)"),
            OptionSpec(
                "under", value: "duration", help: "Latency threshold for the percent-under column.",
                default: DurationText.format(defaults.under)),
            OptionSpec(
                "timeout", value: "duration", help: "A message not echoed (or delivered) this long after sending is lost.",
                default: DurationText.format(defaults.timeout)),
            OptionSpec(
                "warmup", value: "n",
                help: (scenario == .fanout
                    ? "Broadcasts sent first and discarded" : "Messages per \(scenario == .chat ? "member" : "client") sent first and discarded")
                    + "; with --duration the default takes at most a tenth of it, and a warmup given may take at most half.",
                default: "\(defaults.warmup)"),
            OptionSpec(
                "heartbeat", value: "duration",
                help: "How often each client sends a heartbeat; 0 = none. Against --target: MQTT's keepalive, STOMP's "
                    + "heart-beats, and with --dead-after how often a subscriber pings.",
                default: DurationText.format(defaults.heartbeat)),
            OptionSpec(
                "dead-after", value: "duration",
                help: "Disconnect a client the server has not heard from for this long (its messages are lost); 0 = never. "
                    + "With --target, a subscriber that heard nothing from the server this long takes it for dead and "
                    + "closes (with --reconnect, connects again); only when given. Its pings go each --heartbeat; a "
                    + "tcp:// or sse:// server has none, and the run's messages alone must keep it heard.",
                default: "3 × heartbeat"),
            OptionSpec(
                "max-queue", value: "bytes",
                help: "Bytes that may wait to be written to one client; beyond, its messages are dropped as lost and "
                    + "it is reported slow. At least one message.",
                default: "\(ByteSizeText.format(defaults.maximumQueuedBytes)) or 4 messages, the larger"),
            OptionSpec(
                "transport", value: "kind",
                help: "How the frames travel: tcp, ws (one frame per binary WebSocket message, RFC 6455; the heartbeat "
                    + "is a WebSocket ping), tls or wss (WebSocket over TLS); a list (tcp,ws) sweeps.",
                default: defaults.transport.rawValue),
            OptionSpec(
                "ws-path", value: "path",
                help: "The WebSocket path clients ask for; with a socketio:// target, Engine.IO's path (default /socket.io/); with "
                    + "mqtt+ws://, nats+ws:// or stomp+ws://, the broker's WebSocket path (default /mqtt, / and /ws).",
                default: defaults.webSocketPath),
            OptionSpec(
                "tls-cert", value: "pem",
                help: "tls/wss: the server's certificate (with --tls-key); without, the run makes a self-signed one "
                    + "and its clients pin exactly that."),
            OptionSpec("tls-key", value: "pem", help: "tls/wss: the server's private key."),
        ] + OptionReader.tlsTrustOptions + [
            OptionSpec(
                "timestamps", value: "source",
                help: "Where receive and send times come from: user (the harness's reads and writes), kernel "
                    + "(SO_TIMESTAMPING software stamps: when segments arrived and left), or both (kernel, with the "
                    + "user times beside them and the metric stack).",
                default: defaults.timestamps.rawValue),
            OptionSpec(
                "client-threads", value: "k",
                help: "Threads the clients are split over, each with its own epoll, so that receive stamps do not "
                    + "wait behind other clients' reads.",
                default: "one per CPU the clients may use, minus the server's"),
        ] + Self.targetOptions(for: scenario) + (scenario == .fanout ? [
            OptionSpec(
                "server-threads", value: "k",
                help: "Threads that write each broadcast, each its share of the clients, as broadcast servers use "
                    + "more cores; t0 is the earliest first write.",
                default: "1"),
        ] : []) + [
            OptionSpec(
                "busy-poll",
                help: "Server and clients spin on non-blocking reads instead of sleeping: the lowest latencies, at "
                    + "the cost of a whole CPU per thread (pin them with --pin)."),
            ioOption,
            OptionSpec("seed", value: "s", help: "Seed of the random schedule, to repeat a run.", default: "random"),
            OptionSpec("host", value: "address", help: "Address the server listens on.", default: defaults.host),
            OptionSpec("port", value: "port", help: "Port the server listens on; 0 = any free port.", default: "0"),
            OptionSpec("pin", value: "server-cpu,client-cpu", help: "Pin the server's and the clients' threads to CPUs."),
            OptionSpec("out", value: "dir", help: "Folder the run folder is created in.", default: "results"),
            LiveView.option,
            OptionSpec(
                "threshold", value: "expr",
                help: "[metric.]stat OP value, e.g. \(scenario.isBroadcast ? "spread" : "rtt").p99<200ms, "
                    + "\(scenario.isBroadcast ? "delivery" : "rtt").p99.99<1ms or lost==0 (any pNN.NNN; p999 = p99.9); "
                    + "repeatable; exit 1 when one is breached (in any step of a sweep), 4 when the run is no "
                    + "measurement of the server (interrupted, saturated harness, no values: see --accept).",
                repeatable: true),
            OptionReader.acceptOption,
            OptionSpec("quiet", help: "Print no summary table (the run folder's path still goes to stdout)."),
            OptionSpec(
                "json",
                help: "Print the summary as JSON on stdout instead of the table (a sweep: one array of them)."),
            OptionSpec("json-lines", help: "Like --json, one object per line, each as its run ends."),
            OptionSpec(
                "repeat", value: "k",
                help: "Run each step k times (seeds derived from --seed); sweep.csv has the median of the repeats and "
                    + "their range.",
                default: "1"),
        ]
        return scenario == .chat ? all.filter { !optionsChatDoesNotTake.contains($0.name) } : all
    }

    /// Checks every option and builds the runs. Nothing is touched on disk or network here.
    /// The runs of `parsed`; `takesAgents` for `bench serve` (its agents may bring links of their own, which a
    /// threshold on a link group may select).
    init(_ parsed: ParsedOptions, scenario: Scenario, takesAgents: Bool = false) throws(UsageError) {
        let command = scenario.rawValue
        var seed: UInt64
        if let text = parsed.value("seed") {
            guard let value = UInt64(text) else {
                throw UsageError(message: "The value '\(text)' is invalid for '--seed <s>': expected an integer from 0 to \(UInt64.max)", command: command)
            }
            seed = value
            seedWasRandom = false
        } else {
            seed = UInt64.random(in: 0...UInt64(UInt32.max))
            seedWasRandom = true
        }
        var base = RunConfiguration(scenario: scenario, seed: seed)
        let reader = OptionReader(parsed: parsed, command: command)
        typealias Limits = RunConfiguration.Limits
        let clientCounts = try reader.integers("clients", placeholder: "n", in: Limits.clients, default: base.clients)
        base.clients = clientCounts.max()!
        let (rooms, roomSize) = try Self.readChat(into: &base, reader: reader, parsed: parsed)
        base.messages = try reader.integer(
            scenario == .fanout ? "messages" : "count", placeholder: scenario == .fanout ? "m" : "c",
            in: Limits.messages, default: base.messages)
        base.warmup = try reader.integer("warmup", placeholder: "n", in: Limits.warmup, default: base.warmup)
        try Self.readLength(into: &base, reader: reader, parsed: parsed, command: command)
        if parsed.value("client-procs") != nil {
            clientProcesses = try reader.integer("client-procs", placeholder: "k", in: 0...1_000, default: 0)
        }
        metricsListen = try LiveView.address(parsed, reader: reader)
        let intervals = try reader.durations("interval", allowZero: true, default: base.interval)
        base.under = try reader.duration("under", allowZero: false, default: base.under)
        base.timeout = try reader.duration("timeout", allowZero: false, default: base.timeout)
        base.heartbeat = try reader.duration("heartbeat", allowZero: true, default: base.heartbeat)
        base.deadAfter = try reader.duration("dead-after", allowZero: true, default: 3 * base.heartbeat)
        var maximumQueuedBytes: Int?
        if let text = parsed.value("max-queue") {
            do {
                maximumQueuedBytes = try ByteSizeText.parse(text)
            } catch {
                throw reader.invalid("max-queue", "bytes", text, error.reason)
            }
        }
        let transports = try Self.readTransports(into: &base, reader: reader, parsed: parsed)
        try Self.readTarget(into: &base, reader: reader, parsed: parsed, command: command)
        if base.target != nil && parsed.value("client-procs") != nil {
            guard parsed.value("client-threads") == nil || clientProcesses == 0 else {
                throw UsageError(
                    message: "--client-threads does not apply with --client-procs on a --target run: each child process "
                        + "runs its share of the clients on one thread", command: command)
            }
        }
        (base.tlsCertificatePath, base.tlsKeyPath) = try reader.tlsFiles(
            for: base.target.map(\.url.scheme.transport) ?? base.transport)
        base.tlsTrust = try reader.tlsTrust(
            secure: (base.target.map(\.url.scheme.transport) ?? base.transport).usesTLS,
            why: base.target == nil
                ? "needs --transport tls or wss" : "needs a target over TLS (tls://, wss://, mqtts://, sses://, socketios://)")
        if let text = parsed.value("arrival") {
            guard let arrival = Arrival(rawValue: text) else {
                throw reader.invalid("arrival", "kind", text, "expected poisson or fixed")
            }
            base.arrival = arrival
        }
        if let host = parsed.value("host") {
            guard SocketAddress(host: host, port: 0) != nil else {
                throw reader.invalid("host", "address", host, "expected a numeric IPv4 or IPv6 address, or localhost")
            }
            base.host = host
        }
        base.port = UInt16(try reader.integer("port", placeholder: "port", in: 0...65_535, default: 0))
        if let text = parsed.value("pin") {
            (base.serverCPU, base.clientCPU) = try reader.cpuPair(text)
        }
        let defaultClientThreads = base.clientCPU != nil || base.target != nil
            ? 1 : max(1, CPUPlacement.allowedCPUs().cpus.count - 1)
        let clientThreads = try reader.integer(
            "client-threads", placeholder: "k", in: 1...RunConfiguration.Limits.clientThreads, default: 0)
        base.busyPoll = parsed.has("busy-poll")
        (base.ioChoice, ioNote) = try Self.readIOEngine(reader: reader, parsed: parsed, clients: base.clients)
        try Self.readConnectionOptions(into: &base, reader: reader, parsed: parsed, command: command)
        try Self.checkSilenceWithoutPings(base, intervals: intervals, command: command)
        try Self.readLink(into: &base, reader: reader, parsed: parsed, command: command)
        base.serverThreads = try reader.integer(
            "server-threads", placeholder: "k", in: 1...RunConfiguration.Limits.clientThreads, default: 1)
        let payloads = try reader.payloads(parsed.value("payload") ?? "\(base.payload)")
        if let limit = maximumQueuedBytes, let largest = payloads.max(), limit < largest {
            throw reader.invalid(
                "max-queue", "bytes", parsed.value("max-queue")!,
                "must hold at least one message (\(ByteSizeText.format(largest)))")
        }
        let repeats = try reader.integer("repeat", placeholder: "k", in: 1...100, default: 1)
        steps = SweepStep.crossProduct(
            base, clients: clientCounts, payloads: payloads, intervals: intervals, transports: transports, repeats: repeats
        ) { configuration in
            configuration.maximumQueuedBytes = maximumQueuedBytes ?? max(base.maximumQueuedBytes, 4 * configuration.payload)
            configuration.clientThreads = clientThreads > 0 ? clientThreads : min(defaultClientThreads, configuration.clients)
            Self.chatRooms(for: &configuration, rooms: rooms, roomSize: roomSize)
            if parsed.value("warmup") == nil { configuration.boundDefaultWarmup() }
        }
        for configuration in steps.map(\.configuration) {
            do {
                try configuration.validate()
            } catch {
                let spec = Self.options(for: scenario).first { $0.name == error.option }
                guard let placeholder = spec?.valueName ?? (spec == nil ? "value" : nil) else {  // a flag
                    throw UsageError(message: "--\(error.option) \(error.reason)", command: command)
                }
                throw reader.invalid(error.option, placeholder, parsed.value(error.option) ?? "(default)", error.reason)
            }
        }
        outputFolder = parsed.value("out") ?? "results"
        guard !outputFolder.isEmpty else { throw reader.invalid("out", "dir", "", "expected a folder") }
        quiet = parsed.has("quiet")
        json = parsed.has("json") || parsed.has("json-lines")
        jsonLines = parsed.has("json-lines")
        runFolderName = nil
        thresholds = try ThresholdParsing.parse(
            parsed.values["threshold"] ?? [], for: scenario, hasEchoes: base.hasEchoes,
            reconnects: base.hasReconnectMetric,
            phases: ThresholdParsing.phasesOfEveryStep(base, transports: transports), command: command)
        try ThresholdParsing.checkLinkGroups(
            of: thresholds, link: base.link, agentsMayBringLinks: takesAgents && base.link == nil, command: command)
        accepted = try reader.acceptedReasons(judges: !thresholds.isEmpty)
        serverProcesses = try Self.readServerProcesses(reader: reader, parsed: parsed, steps: steps, command: command)
    }
}
