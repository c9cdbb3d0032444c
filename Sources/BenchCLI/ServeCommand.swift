import BenchClients
import BenchCore
import BenchNet
import BenchScenarios

/// `bench serve fanout|roundtrip|chat`: the server and collector of a run whose clients come from agents (`bench clients`),
/// in other processes: the scenario's options, plus where to listen and the token agents must show.
enum ServeCommand {
    /// Options of `bench fanout|roundtrip` that `bench serve` does not take, and why: each is a usage error naming the
    /// reason, never silently ignored.
    static let refusedOptions: [String: String] = {
        let agents = "the clients come from agents (bench clients)"
        return [
            "host": "bench serve listens where --listen HOST:PORT says",
            "port": "bench serve listens where --listen HOST:PORT says",
            "client-procs": agents + ": start more of them instead",
            "client-threads": agents + ": give --client-threads to bench clients",
            "server-procs": agents + ", and connect to one server process",
            "source-addresses": agents + ": give --source-addresses to bench clients",
            "repeat": "bench serve is one run that agents join: start it again to repeat it",
        ]
    }()

    /// The command line of `bench serve SCENARIO`.
    static func spec(for scenario: Scenario) -> CommandSpec {
        let run = RunCommand.spec(for: scenario)
        return CommandSpec(
            name: "serve \(scenario.rawValue)",
            abstract: "The \(scenario.rawValue) server and collector alone; agents (bench clients) bring the clients.",
            overview: "Listen, wait until agents (bench clients --connect ADDRESS --token TOKEN) totalling --clients "
                + "have joined, then run the \(scenario.rawValue) scenario as bench \(scenario.rawValue) does and write "
                + "the same run folder, plus agents.csv. Agents may run on other hosts: each measures the server's clock and "
                + "corrects its clients' stamps (agents.csv: clock_offset_ns, clock_error_ns)."
                + (scenario == .fanout
                    ? " With --target, the agents' clients are subscribers of your server and this process publishes."
                    : scenario == .chat
                    ? " The built-in chat relay listens on --listen's address, the port after its; with --target, the agents' "
                        + "members join your chat server's rooms, send when this process says it is their turn, and report "
                        + "their stamps."
                    : " With --target, the agents' clients send to your echo server when this process says it is their "
                        + "turn, and report their stamps."),
            options: run.options.filter { refusedOptions[$0.name] == nil } + [
                OptionSpec("listen", value: "host:port", help: "Where agents and their clients connect.", default: "127.0.0.1:0"),
                OptionSpec("token", value: "text", help: "The secret agents must give to take client ids (required)."),
                OptionSpec(
                    "join-timeout", value: "duration", help: "How long agents may take to bring every client.",
                    default: "60s"),
            ],
            notes: run.notes)
    }

    /// A usage error for the first option in `arguments` that `bench serve` does not take, saying why.
    static func refuseInapplicable(_ arguments: [String], command: String) throws(UsageError) {
        for word in arguments where word.hasPrefix("--") {
            let name = String(word.dropFirst(2).prefix { $0 != "=" })
            if let reason = refusedOptions[name] {
                throw UsageError(message: "--\(name) does not apply to bench serve: \(reason)", command: command)
            }
        }
    }

    /// The one-screen help of `bench serve` without its scenario.
    static var overview: String {
        "OVERVIEW: The server and collector of a run alone; agents (bench clients) bring the clients, from this host or "
            + "others.\n\nUSAGE: bench serve <scenario> [<options>]\n\nSCENARIOS:\n"
            + "  fanout      \(spec(for: .fanout).abstract)\n  roundtrip   \(spec(for: .roundtrip).abstract)\n"
            + "  chat        \(spec(for: .chat).abstract)\n\n"
            + "  See 'bench serve fanout --help', 'bench serve roundtrip --help' or 'bench serve chat --help' for the "
            + "options.\n"
    }

    /// The runs of `parsed`, set up to wait for agents.
    static func options(_ parsed: ParsedOptions, scenario: Scenario, command: String) throws(UsageError) -> RunOptions {
        var options = try RunOptions(parsed, scenario: scenario, takesAgents: true)
        guard options.steps.count == 1 else {
            throw UsageError(
                message: "bench serve is one run that agents join: give single values, not lists (a sweep runs with "
                    + "bench \(scenario.rawValue))",
                command: command)
        }
        let reader = OptionReader(parsed: parsed, command: command)
        guard let token = parsed.value("token"), !token.isEmpty else {
            throw UsageError(message: "--token is required: the secret agents must give (bench clients --token)", command: command)
        }
        let joinTimeout = try reader.duration("join-timeout", allowZero: false, default: 60_000_000_000)
        var host = "127.0.0.1"
        var port: UInt16 = 0
        if let text = parsed.value("listen") {
            guard let listen = OptionReader.hostAndPort(text), SocketAddress(host: listen.host, port: listen.port) != nil else {
                throw reader.invalid("listen", "host:port", text, "expected a numeric address and a port, e.g. 0.0.0.0:7000")
            }
            (host, port) = listen
            if scenario == .chat && port == UInt16.max {
                throw reader.invalid("listen", "host:port", text, "the chat relay listens on the port after it: at most 65534")
            }
        }
        for index in options.steps.indices {
            options.steps[index].configuration.localClientRange = 0..<0
            options.steps[index].configuration.clientThreads = 1
            options.steps[index].configuration.admitAgents(tokenHash: AgentToken.hash(token))
            options.steps[index].configuration.setupTimeout = joinTimeout
            options.steps[index].configuration.host = host
            options.steps[index].configuration.port = port
        }
        return options
    }
}
