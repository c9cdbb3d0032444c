import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

/// Runs a scenario against a user's server (`--target`) instead of the built-in one.
enum TargetRunner {
    /// What a server that can tell still waits for before the run may send; nil when nothing.
    typealias ServerWait = @Sendable () -> String?

    /// Runs `configuration` against the server its role's `settings` name, streaming its settled messages to `stream` when given (as
    /// ``ScenarioRunner/run(_:control:stream:)`` does for the built-in server).
    ///
    /// `serverWait`, when the server can tell, says what it still waits for before the run may send (nil: nothing):
    /// the built-in chat relay, until every member's join was read.
    static func run(
        _ configuration: RunConfiguration, settings target: TargetSettings, control: RunControl, stream: SettledQueue?,
        serverWait: TargetRunner.ServerWait? = nil
    ) throws(RunError) -> RunRecording {
        let (settings, target) = (target, target.url)
        guard let address = SocketAddress(host: target.host, port: target.port) else {
            throw .invalidHost(target.host)
        }
        if let refusal = configuration.sourcesRefusal(toward: address) { throw .setupFailed(refusal) }
        try ScenarioRunner.checkMemory(configuration, streaming: stream != nil)
        let limit = DescriptorLimit.raiseToHardLimit()
        let subscribersHere = configuration.clientGroupChannels.isEmpty ? configuration.clients : 0
        guard subscribersHere + 1 + 2 * configuration.clientThreads + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: configuration.clients, descriptorLimit: limit, perClient: 1)
        }
        let trust = try trust(configuration)  // read once: this process's connections and the children's spec
        let transport = try transportSettings(for: settings, payload: configuration.payload, trust: trust)
        if let refusal = configuration.scenario == .roundtrip
            ? target.scheme.roundtripRefusal : configuration.scenario == .chat ? target.scheme.chatRefusal : nil
        {
            throw .setupFailed(refusal)
        }
        let kind = speech(of: settings, configuration)
        switch target.scheme.transport {
        case .ws where settings.overHTTP2:
            return try measure(WebSocketOverHTTP2.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        case .wss where settings.overHTTP2:
            return try measure(
                SecureWebSocketOverHTTP2.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        case .tcp: return try measure(TCP.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        case .ws: return try measure(WebSocket.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        case .tls: return try measure(TLS.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        case .wss: return try measure(SecureWebSocket.self, configuration, settings, address, transport, trust, kind, control, stream, serverWait)
        }
    }

    private static func measure<T: Transport>(
        _: T.Type, _ configuration: RunConfiguration, _ targetSettings: TargetSettings, _ address: SocketAddress,
        _ settings: TransportSettings, _ trust: TLSTrust?, _ kind: ServerProtocol, _ control: RunControl,
        _ stream: SettledQueue?, _ serverWait: TargetRunner.ServerWait?
    ) throws(RunError) -> RunRecording {
        let target = targetSettings.url
        let kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        // The clients: from agents (bench serve), in the child processes at the ends of the run's channels, or on
        // threads of this process, behind the link (`--link`) where there is one; the publisher is the server's side.
        let local = configuration.agentToken == nil && configuration.clientGroupChannels.isEmpty
        var link: LinkEmulator?
        var routes = ClientRoutes(server: address)
        if let plan = configuration.chatRooms, !configuration.chatRelays.isEmpty {
            routes = ClientRoutes(relays: configuration.chatRelays, plan: plan, clients: configuration.clients, seed: configuration.seed)
        }
        if local, let mix = configuration.link {
            link = LinkEmulator(mix: mix, seed: configuration.seed)
            routes = ClientRoutes(server: address, link: link!, clients: configuration.clients)
        }
        let groups = local
            ? try ClientGroupThreads<T>(
                configuration, target: target, routes: routes, settings: settings, protocol: kind,
                kernelClock: kernelClock)
            : nil
        defer { groups?.end() }
        let (channels, listener, agentSpec): ([ClientGroupChannel], SharedDescriptor?, [UInt8])
        var children: [AgentRecord] = []
        if let groups {
            (channels, listener, agentSpec) = (groups.channels, nil, [])
        } else if configuration.agentToken != nil {
            let spec = ChildProcessChannels.spec(of: configuration, target: targetSettings, trust: trust)
            (channels, listener, agentSpec) = ([], try listenForAgents(configuration, control: control), spec)
        } else {
            let welcomed = try ChildProcessChannels.welcome(configuration, target: targetSettings, trust: trust)
            (channels, listener, agentSpec, children) = (welcomed.channels, nil, [], welcomed.children)
        }
        var recording = try onOwnThread(configuration) { [children] () throws(SystemError) in
            let role: TargetClients<T>
            do throws(SystemError) {
                role = try TargetClients<T>(
                    configuration, target: target, address: address, transport: settings, protocol: kind,
                    channels: channels, listener: listener, agentSpec: agentSpec, control: control,
                    kernelClock: kernelClock, stream: stream, serverWait: serverWait)
            } catch {
                listener?.close()  // the role closes it when it runs; it never will
                throw error
            }
            // The children are listed with the agents (agents.csv), as the built-in server's are; they read this
            // process's clock, so their channels carry no clock of their own.
            role.recording.list(children: children)
            return role.run()
        }
        // What the link did to the clients' connections, once they ended (as the defer above would end them).
        groups?.end()
        for event in link?.outages(until: recording.endNanoseconds) ?? [] { recording.record(event) }
        recording.linkWasLate(link?.lateness)
        recording.end(kernelClock: kernelClock)
        return recording
    }

    /// `bench serve fanout|roundtrip --target`: listens where `--listen` says, and tells the command line the port.
    private static func listenForAgents(
        _ configuration: RunConfiguration, control: RunControl
    ) throws(RunError) -> SharedDescriptor {
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw .invalidHost(configuration.host)
        }
        do {
            let (listener, bound) = try TCPSocket.listen(on: address)
            control.serverPort.store(Int(bound.port), ordering: .releasing)
            return SharedDescriptor(owning: listener, owner: "the agents' listener")
        } catch {
            throw .setupFailed("cannot listen on \(address): \(error)")
        }
    }

    /// Runs the measuring role on a thread of its own, named like the built-in clients' (`bench-clients`) and placed
    /// on `--pin`'s client CPU, as the built-in clients are.
    private static func onOwnThread(
        _ configuration: RunConfiguration, _ role: @escaping @Sendable () throws(SystemError) -> Result<RunRecording, RunError>
    ) throws(RunError) -> RunRecording {
        let thread: NativeThread<Result<RunRecording, RunError>>
        do throws(SystemError) {
            thread = try NativeThread.spawn(name: "bench-clients") {
                CPUPlacement.minimizeTimerSlack()
                do throws(SystemError) {
                    if let cpu = configuration.clientCPU { try CPUPlacement.pinCurrentThread(to: cpu) }
                    return try role()
                } catch {
                    return .failure(.system(error))
                }
            }
        } catch {
            throw .system(error)
        }
        return try thread.join().get()
    }
}
