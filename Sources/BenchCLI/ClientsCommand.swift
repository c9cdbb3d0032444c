import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Glibc

/// `bench clients`: an agent that brings some of a `bench serve` run's clients.
enum ClientsCommand {
    static let spec = CommandSpec(
        name: "clients",
        abstract: "An agent: join a bench serve run with some of its clients, echo until the server ends the run.",
        overview: "Connect to a bench serve run, ask for --clients client ids with its --token, then simulate those "
            + "clients (they connect, say hello, echo every message) until the server ends the run. The server's "
            + "welcome says what they speak (tcp, ws, tls or wss, the WebSocket path, how to trust the server's "
            + "certificate). Exit 0 "
            + "then; exit 3 when the server cannot be reached, refuses the agent (a wrong token, no ids left, the run "
            + "already began) or the clients cannot connect.",
        options: [
            OptionSpec("connect", value: "host:port", help: "Where bench serve listens: an address or a host name (required)."),
            OptionSpec("clients", value: "n", help: "Clients this agent simulates.", default: "1"),
            OptionSpec("token", value: "text", help: "The secret given to bench serve (required)."),
            OptionSpec("client-threads", value: "k", help: "Threads the clients are split over.", default: "1"),
            OptionSpec("join-timeout", value: "duration", help: "How long to wait for the server's welcome.", default: "60s"),
            OptionSpec(
                "tls-ca", value: "pem",
                help: "TLS runs: verify the server's chain up to these authorities and its name, instead of trusting as "
                    + "the server's welcome says (which came over the plain control connection).",
                default: "the welcome's"),
            OptionSpec("tls-pin", value: "pem", help: "TLS runs: accept exactly this certificate from the server."),
            OptionSpec("tls-insecure", help: "TLS runs: accept any certificate (encrypted, not authenticated)."),
            OptionSpec(
                "channel", value: "fd",
                help: "Started by a --target run's --client-procs, not by people: read this child's share of the "
                    + "clients from inherited descriptor fd, and report on it; no other option applies."),
            OptionSpec(
                "link", value: "spec",
                help: "Put this agent's clients behind one emulated link (a preset as bench links lists them, or "
                    + "delay=…,rate=…): the run reports them as a group of their own (summary.csv's link column). Not "
                    + "with a run that has a --link of its own, nor with --source-addresses."),
            OptionSpec(
                "metrics-listen", value: "host:port",
                help: "Serve this agent's own figures at /metrics (Prometheus's format): the run it joined, its share, "
                    + "its clock against the collector's, whether its clients run. The run's are bench serve's."),
        ] + RunOptions.connectionOptions.filter { !["drop-connections-at", "offline-queue", "connect-rate"].contains($0.name) })

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let reader = OptionReader(parsed: parsed, command: spec.name)
        if parsed.value("channel") != nil { return try runSubscribers(parsed, reader: reader) }
        guard let text = parsed.value("connect") else {
            throw UsageError(message: "--connect is required: the address bench serve listens on", command: spec.name)
        }
        guard let server = OptionReader.hostAndPort(text), server.port > 0,
            let address = SocketAddress(resolving: server.host, port: server.port)
        else {
            throw reader.invalid(
                "connect", "host:port", text, "expected an address or a host name that resolves, and a port, e.g. 127.0.0.1:7000")
        }
        guard let token = parsed.value("token"), !token.isEmpty else {
            throw UsageError(message: "--token is required: the secret given to bench serve", command: spec.name)
        }
        let clients = try reader.integer("clients", placeholder: "n", in: RunConfiguration.Limits.clients, default: 1)
        let threads = try reader.integer(
            "client-threads", placeholder: "k", in: 1...min(RunConfiguration.Limits.clientThreads, clients), default: 1)
        let joinTimeout = try reader.duration("join-timeout", allowZero: false, default: 60_000_000_000)
        let reconnect = try RunOptions.readBackoff(reader: reader, parsed: parsed, command: spec.name)
        let sources = try RunOptions.readSourceAddresses(reader: reader, parsed: parsed)
        let trust = try reader.tlsTrust(secure: true, why: "")
        if trust == .insecure {
            Console.error("Warning: --tls-insecure: the server's certificate is not checked; the connections are "
                + "encrypted, not authenticated\n")
        }
        let link = try readLink(parsed, reader: reader)
        let metricsAddress = try LiveView.address(parsed, reader: reader)
        let status = AgentStatus(server: text)
        var metrics: HTTPServer?
        if let metricsAddress {
            metrics = LiveView.serve(at: metricsAddress, saying: { "http://\($0)/metrics (this agent's own figures)" }) {
                AgentExposition.respond(to: $0, status: status)
            }
            guard metrics != nil else { return .runFailed }
        }
        defer { metrics?.stop() }
        let control: RunControl
        do {
            control = try RunControl(clientsStopOnRequest: true)
        } catch {
            Console.error("Error: \(error)\n")
            return .runFailed
        }
        Console.error("agent: joining the run at \(address) with \(clients) clients…\n")
        SignalWatcher.shared?.watch(control)
        defer { SignalWatcher.shared?.watch(nil) }
        do {
            let outcome = try AgentRunner.run(
                server: address, clients: clients, token: token, clientThreads: threads, joinTimeout: joinTimeout,
                reconnect: reconnect, sourceAddresses: sources, tlsTrust: trust, serverName: server.host, link: link,
                control: control, status: status)
            let first = Int(outcome.welcome.firstClient)
            Console.error("agent: the run ended; this agent was clients \(first) to \(first + clients - 1) of "
                + "\(outcome.welcome.totalClients) over \(outcome.spec.transport.rawValue); its clock was put on the server's with an offset of "
                + "\(outcome.clock.offset) ns ± \(outcome.clock.error) ns\n")
            for note in outcome.notes { Console.error("agent: note: \(note)\n") }
        } catch {
            Console.error("Error: \(error)\n")
            return .runFailed
        }
        if let signal = SignalWatcher.shared?.signal { return signal == SIGTERM ? .terminated : .interrupted }
        return .success
    }

    /// `--link`: one link (a mix is the run's, given to bench serve), read as a run's is.
    private static func readLink(_ parsed: ParsedOptions, reader: OptionReader) throws(UsageError) -> LinkMix? {
        guard let link = try RunOptions.link(parsed, reader: reader, command: spec.name) else { return nil }
        if link.isMix {
            throw reader.invalid(
                "link", "spec", link.text, "an agent's clients sit behind one link; a mix is the run's: give it to bench serve")
        }
        return link
    }

    /// `--channel FD`: a target run's child, its share of the clients read from the channel.
    private static func runSubscribers(_ parsed: ParsedOptions, reader: OptionReader) throws(UsageError) -> ExitCode {
        let channel = try reader.integer("channel", placeholder: "fd", in: 3...1_023, default: 3)
        if let other = spec.options.map(\.name).first(where: { $0 != "channel" && (parsed.value($0) != nil || parsed.has($0)) }) {
            throw UsageError(message: "--\(other) does not apply with --channel: the run that started this child says all", command: spec.name)
        }
        guard Posix.isSocket(Int32(channel)) else {
            throw reader.invalid("channel", "fd", "\(channel)", "is not an inherited socket (this option is for the run's own children)")
        }
        do {
            let welcome = try AgentRunner.runSubscribers(channel: Int32(channel), joinTimeout: 60_000_000_000)
            let clients = welcome.scenario == 0 ? "subscribers" : "clients"
            Console.error("\(clients) \(welcome.firstClient) to \(welcome.firstClient + welcome.clients - 1): the run ended\n")
        } catch {
            Console.error("Error: \(error)\n")
            return .runFailed
        }
        return .success
    }
}
