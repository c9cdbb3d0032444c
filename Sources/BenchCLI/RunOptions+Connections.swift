import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import BenchScenarios

extension RunOptions {
    /// The defaults of `--reconnect`: 100 ms doubling up to 5 s, 10 tries.
    static var defaultBackoff: ReconnectBackoff { ReconnectBackoff(base: 100_000_000, maximum: 5_000_000_000, tries: 10) }

    /// How the built-in clients connect: from which addresses, coming back after a drop, and the outage that makes them.
    static var connectionOptions: [OptionSpec] {
        let defaults = defaultBackoff
        return [
            sourceAddressesOption,
            OptionSpec(
                "connect-rate", value: "n/s",
                help: "Clients connecting per second across the run, a ramp (client k starts its connect k/n s after "
                    + "the first), in every placement: 500/s, 30/min. The setup timeout counts from the last one's "
                    + "start. Without it: as fast as 128 connects under way at once go.",
                default: "unpaced"),
            OptionSpec(
                "reconnect",
                help: "A client whose connection drops (not at the run's end) connects again and says hello again, "
                    + "with exponential backoff and jitter; the reconnect metric is close → hello accepted. On bench "
                    + "serve: its agents' clients come back (give bench clients --reconnect)."),
            OptionSpec(
                "reconnect-base", value: "duration", help: "The first wait; it doubles with each try. Each wait is half "
                    + "of it and a random part of the other half (jitter).", default: DurationText.format(defaults.base)),
            OptionSpec(
                "reconnect-max", value: "duration", help: "The longest wait between tries.",
                default: DurationText.format(defaults.maximum)),
            OptionSpec("reconnect-tries", value: "n", help: "Tries after a drop before a client gives up.", default: "\(defaults.tries)"),
            OptionSpec(
                "offline-queue",
                help: "Roundtrip, open loop: a message due while its client is away waits and goes when it is back "
                    + "(its rtt includes the wait; past --timeout it is lost) instead of being lost at once."),
            OptionSpec(
                "drop-connections-at", value: "duration",
                help: "Every client's connection is closed once, this long after sending began (an outage: what was in "
                    + "flight is lost, the report shows who came back and when): by the built-in server, or against "
                    + "--target by the clients themselves, as a network that drops them would (the harness cannot close "
                    + "your server's side; to restart the server, restart it).",
                default: "never"),
        ]
    }

    /// How the clients connect (after `--target` is read): `--reconnect` and its backoff into
    /// `configuration.reconnect`, `--drop-connections-at` into `configuration.dropConnectionsAt`, `--source-addresses`
    /// into `configuration.sourceAddresses`.
    static func readConnectionOptions(
        into configuration: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        configuration.sourceAddresses = try readSourceAddresses(reader: reader, parsed: parsed)
        if let text = parsed.value("connect-rate") {
            guard let interval = connectInterval(ofRate: text) else {
                throw reader.invalid("connect-rate", "n/s", text, "expected clients per second or minute: 500/s, 30/min (up to 1000000/s)")
            }
            configuration.connectInterval = interval
        }
        if parsed.value("drop-connections-at") != nil {
            configuration.dropConnectionsAt = try reader.duration("drop-connections-at", allowZero: false, default: 0)
        }
        configuration.reconnect = try readBackoff(reader: reader, parsed: parsed, command: command)
        let heartbeatApplies = configuration.target.map(\.hasPing) ?? true
        if heartbeatApplies && configuration.heartbeat > 0 && configuration.deadAfter > 0
            && configuration.deadAfter <= configuration.heartbeat
        {
            throw reader.invalid("dead-after", "duration", parsed.value("dead-after") ?? "", "must be longer than --heartbeat")
        }
        if let target = configuration.target, configuration.silenceLimit > 0 {
            if target.hasPing {
                guard configuration.heartbeat > 0 else {
                    throw UsageError(
                        message: "--dead-after against --target needs a --heartbeat above 0: its pings show a quiet server "
                            + "alive, and without them every quiet connection would be taken for dead", command: command)
                }
            } else {
                guard parsed.value("heartbeat") == nil else {
                    throw UsageError(
                        message: "--heartbeat does not apply to a \(target.url.scheme.rawValue):// target: its server "
                            + "has no ping to answer, and its connections are heard by the run's messages alone", command: command)
                }
                configuration.heartbeat = 0  // nothing is sent: run.csv says so
            }
        }
        if let target = configuration.target, configuration.silenceLimit == 0, parsed.value("heartbeat") != nil,
            !target.url.scheme.record.keepaliveIsHeartbeat
        {
            throw UsageError(
                message: "--heartbeat does not apply to a \(target.url.scheme.rawValue):// target without --dead-after: "
                    + "its subscribers ping only to find a server that hung", command: command)
        }
        if configuration.scenario == .chat, parsed.value("dead-after") != nil, configuration.target == nil {
            throw UsageError(
                message: "--dead-after in chat is for your server's members (--target): it finds a server that hung",
                command: command)
        }
        if configuration.scenario == .chat, configuration.dropConnectionsAt != nil, configuration.target == nil {
            throw UsageError(
                message: "--drop-connections-at in chat is for your server's members (--target): the built-in relay's "
                    + "members do not come back", command: command)
        }
        if configuration.scenario == .chat, configuration.reconnect != nil {
            guard let target = configuration.target else {
                throw UsageError(
                    message: "--reconnect in chat is for your server's members (--target): the built-in relay is not "
                        + "restarted while a run goes", command: command)
            }
            if target.url.scheme.record.subscribersCannotPublish {
                throw UsageError(
                    message: "--reconnect in a chat through \(target.url.scheme.rawValue):// is not built yet: its members "
                        + "publish on their group's one more connection, which does not come back", command: command)
            }
        }
        configuration.offlineQueue = parsed.has("offline-queue")
    }

    /// The time between two clients' connects at `text` (`N/s`, `N/min`, N a positive decimal, at most 1000000/s);
    /// nil when it is none of these.
    static func connectInterval(ofRate text: String) -> UInt64? {
        interval(ofRate: text, units: ["s": 1e9, "min": 60e9], shortest: 1_000)
    }

    /// `--reconnect` with `--reconnect-base`, `--reconnect-max` and `--reconnect-tries`; nil without `--reconnect`
    /// (the other three alone are a usage error: they would do nothing).
    static func readBackoff(reader: OptionReader, parsed: ParsedOptions, command: String) throws(UsageError) -> ReconnectBackoff? {
        guard parsed.has("reconnect") else {
            for name in ["reconnect-base", "reconnect-max", "reconnect-tries"] where parsed.value(name) != nil {
                throw UsageError(message: "--\(name) does nothing without --reconnect", command: command)
            }
            return nil
        }
        var backoff = defaultBackoff
        backoff.base = try reader.duration("reconnect-base", allowZero: false, default: backoff.base)
        backoff.maximum = try reader.duration("reconnect-max", allowZero: false, default: max(backoff.maximum, backoff.base))
        guard backoff.maximum >= backoff.base else {
            throw reader.invalid(
                "reconnect-max", "duration", parsed.value("reconnect-max") ?? "", "must be at least --reconnect-base")
        }
        backoff.tries = try reader.integer("reconnect-tries", placeholder: "n", in: 1...1_000_000, default: backoff.tries)
        return backoff
    }

    /// The arguments that make a `bench clients` child's clients connect as the run's own would: the same backoff and
    /// source addresses.
    static func childArguments(of configuration: RunConfiguration) -> [String] {
        var arguments: [String] = []
        if let backoff = configuration.reconnect {
            arguments += [
                "--reconnect", "--reconnect-base", DurationText.format(backoff.base), "--reconnect-max",
                DurationText.format(backoff.maximum), "--reconnect-tries", "\(backoff.tries)",
            ]
        }
        if !configuration.sourceAddresses.isEmpty {
            arguments += ["--source-addresses", configuration.sourceAddresses.joined(separator: ",")]
        }
        arguments += configuration.tlsTrust?.arguments ?? []
        return arguments
    }

    /// `--source-addresses`, for the run's clients and for `bench clients`.
    static var sourceAddressesOption: OptionSpec {
        OptionSpec(
            "source-addresses", value: "list",
            help: "Addresses the clients connect from, in turn (127.0.0.2,127.0.0.3): each gives another "
                + "net.ipv4.ip_local_port_range of connections to one server.",
            default: "one; on loopback, as many as the clients need")
    }

    /// The addresses of `--source-addresses`: numeric, each once, at most 250.
    static func readSourceAddresses(reader: OptionReader, parsed: ParsedOptions) throws(UsageError) -> [String] {
        guard let text = parsed.value("source-addresses") else { return [] }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let refusal = SourceAddresses.refusal(of: parts) { throw reader.invalid("source-addresses", "list", text, refusal) }
        return parts
    }

    /// `--dead-after` against a target whose server has no ping (``ProtocolRecord/hasPing``: tcp, sse): its connections
    /// are heard by the run's own messages alone, so a silence must be longer than the run's quietest time: 2 × the
    /// longest `--interval` with fixed arrivals, and 20 × with Poisson's, whose gaps are drawn (one that long is a chance
    /// of e⁻²⁰ each), or `--timeout`, the longer (closed loop waits that long for a late message, and every run at its
    /// end).
    static func checkSilenceWithoutPings(
        _ configuration: RunConfiguration, intervals: [UInt64], command: String
    ) throws(UsageError) {
        guard let target = configuration.target, configuration.silenceLimit > 0, !target.hasPing,
            let interval = intervals.max()
        else { return }
        let gaps: UInt64 = configuration.arrival == .poisson ? 20 : 2
        let quietest = max(gaps * interval, configuration.timeout)
        guard configuration.silenceLimit > quietest else {
            throw UsageError(
                message: "--dead-after \(DurationText.format(configuration.silenceLimit)) is too short for a "
                    + "\(target.url.scheme.rawValue):// target: its server has no ping, so a connection is heard by "
                    + "the run's messages alone; it must be longer than \(DurationText.format(quietest)), the run's "
                    + "quietest time (\(gaps) × --interval with \(configuration.arrival.rawValue) arrivals, or --timeout, "
                    + "the longer)",
                command: command)
        }
    }
}
