import BenchClients
import BenchCore
import BenchNet

/// Runs one scenario in this process: the server on one thread, the clients on `clientThreads` others, on
/// loopback or whatever `host` is.
public enum ScenarioRunner {
    /// Runs `configuration` to its end (or until `control` asks it to stop) and returns what was measured.
    ///
    /// With a `stream`, the messages go to it as they settle (``SettledMessage``), through a ring of messages in
    /// flight sized by the timeout and the send rate (``RunRecording/window(for:)``), and the stream ends with
    /// ``SettledMessage/Kind/end`` however the run ends; the recording returned holds the run's counters and events.
    /// Without one (a `--duration` run needs one), the recording keeps every message, for ``RunAnalysis``.
    ///
    /// Everything that can make the run impossible is checked before any client connects: the host, the
    /// CPUs, the descriptor limit, the listening socket.
    ///
    /// - Throws: ``RunError`` when the run could not be done; nothing was measured then.
    public static func run(
        _ configuration: RunConfiguration, control: RunControl, stream: SettledQueue? = nil
    ) throws(RunError) -> RunRecording {
        do {
            let listenQueues = ListenQueueCounters.read()
            var recording = try runUnstreamed(configuration, control: control, stream: stream)
            if let before = listenQueues, let after = ListenQueueCounters.read() {
                recording.listenOverflows = after.overflows &- min(before.overflows, after.overflows)
            }
            if let stream, !recording.streamEnded {
                stream.push(recording.startEntry)
                recording.finishStream { stream.push($0) }
                stream.publish()
            }
            return recording
        } catch {
            stream?.push(SettledMessage(kind: .end))
            stream?.publish()
            throw error
        }
    }

    private static func runUnstreamed(
        _ configuration: RunConfiguration, control: RunControl, stream: SettledQueue?
    ) throws(RunError) -> RunRecording {
        do { try configuration.validate() } catch { throw .invalidConfiguration(error) }
        guard stream != nil || configuration.duration == nil else {
            throw .invalidConfiguration(ConfigurationError(option: "duration", reason: "a --duration run streams its results"))
        }
        if !configuration.serverShards.isEmpty && configuration.scenario != .chat {  // a chat relay's: ChatRelay.measure
            guard let stream else {
                throw .invalidConfiguration(ConfigurationError(option: "server-procs", reason: "a run of server processes streams its results"))
            }
            return try ShardedRun.run(configuration, control: control, stream: stream)
        }
        switch configuration.role {
        case .target(let target, _):
            return try TargetRunner.run(configuration, settings: target, control: control, stream: stream)
        case .local where configuration.scenario == .chat, .serve where configuration.scenario == .chat:
            return try ChatRelay.measure(configuration, control: control, stream: stream)
        case .local, .serve:
            break  // the built-in server, below; with .serve it waits for agents
        }
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw .invalidHost(configuration.host)
        }
        if let refusal = configuration.sourcesRefusal(toward: address) { throw .setupFailed(refusal) }
        try checkCPUs(configuration)
        try checkMemory(configuration, streaming: stream != nil)
        let limit = DescriptorLimit.raiseToHardLimit()
        // The server's end of every client, and this process's own clients' ends (agents hold theirs; a link takes none).
        let perClient = configuration.localClients.count == configuration.clients ? 2 : 1
        guard configuration.clients + configuration.localClients.count + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: configuration.clients, descriptorLimit: limit, perClient: perClient)
        }
        let listener: SharedDescriptor
        let bound: SocketAddress
        do {
            let listening = try TCPSocket.listen(on: address)
            (listener, bound) = (SharedDescriptor(owning: listening.descriptor, owner: "the server's listener"), listening.address)
        } catch {
            throw .cannotListen(address: address.description, error)
        }
        control.serverPort.store(Int(bound.port), ordering: .releasing)
        // A run that takes agents reads their 48-byte control frames too, whatever its payload.
        var server = TransportSettings(
            maximumFrameSize: WireFormat.serverFrameLimit(
                payload: configuration.payload, takesAgents: configuration.agentToken != nil),
            webSocketPath: configuration.webSocketPath, webSocketHost: bound.description)
        var clients = server
        var spec = ClientSpec(
            transport: configuration.transport, webSocketPath: configuration.webSocketPath,
            connectInterval: configuration.connectInterval)
        spec.link = configuration.link.map { ClientSpec.LinkDeal(mix: $0, seed: configuration.seed, clients: configuration.clients) }
        var fingerprint = ""
        if configuration.transport.usesTLS {
            do {
                let certificate: TLSCertificate
                (certificate, server.tls, clients.tls, spec.tlsTrust) = try TLSSetup.contexts(for: configuration)
                fingerprint = certificate.sha256Fingerprint
                // Verifying clients check the name they connect to (the server's --host) and send it when it is one.
                clients.expectServer(named: configuration.host)
            } catch {
                listener.close()
                throw .tls(error)
            }
        }
        // Agents' control connections speak plain bench frames whatever the transport: their welcome tells them it.
        server.acceptsPlainPeers = configuration.agentToken != nil && configuration.transport != .tcp
        let sides = (server: server, clients: clients)
        var recording: RunRecording
        switch configuration.transport {
        case .tcp: recording = try run(configuration, control, listener, bound, sides, spec, stream, over: TCP.self)
        case .ws: recording = try run(configuration, control, listener, bound, sides, spec, stream, over: WebSocket.self)
        case .tls: recording = try run(configuration, control, listener, bound, sides, spec, stream, over: TLS.self)
        case .wss:
            recording = try run(configuration, control, listener, bound, sides, spec, stream, over: SecureWebSocket.self)
        }
        recording.served(certificateFingerprint: fingerprint)
        return recording
    }

    /// The run itself, over transport `T`: the server's thread and the clients' threads, compiled for `T`.
    private static func run<T: Transport>(
        _ configuration: RunConfiguration, _ control: RunControl, _ listener: SharedDescriptor, _ bound: SocketAddress,
        _ settings: (server: TransportSettings, clients: TransportSettings), _ spec: ClientSpec, _ stream: SettledQueue?,
        over: T.Type
    ) throws(RunError) -> RunRecording {
        let kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        // Behind a link, this process's clients carry it on their connections to the server.
        var link: LinkEmulator?
        var routes = ClientRoutes(server: bound)
        if let mix = configuration.link, !configuration.localClients.isEmpty {
            link = LinkEmulator(mix: mix, seed: configuration.seed)
            routes = ClientRoutes(server: bound, link: link!, clients: configuration.clients)
        }
        let server: NativeThread<Result<RunRecording, RunError>>
        do {
            server = try NativeThread.spawn(name: "bench-server") { () -> Result<RunRecording, RunError> in
                let server: BenchServer<T>
                do {
                    try placeCurrentThread(on: configuration.serverCPU)
                    server = try BenchServer<T>(
                        configuration: configuration, listener: listener, transport: settings.server,
                        clientSpec: spec, control: control, kernelClock: kernelClock, stream: stream)
                } catch {
                    listener.close()
                    control.failSetup("the server's thread could not start: \(error)")
                    return .failure(.setupFailed("the server's thread could not start: \(error)"))
                }
                return server.run()
            }
        } catch {
            listener.close()
            throw .system(error)
        }
        let clientThreads = ClientThreads<T>(
            configuration, routes: routes, settings: settings.clients, control: control,
            kernelClock: kernelClock)
        let result = server.join()
        control.clientsWake.notify()
        let endings = clientThreads.join()
        var recording = try result.get()
        for event in link?.outages(until: recording.endNanoseconds) ?? [] { recording.record(event) }
        recording.linkWasLate(link?.lateness)
        recording.end(serverAddress: bound.description, kernelClock: kernelClock)
        recording.merge(clientThreads: endings)
        return recording
    }

    /// Refuses CPUs this process may not run on, before anything starts.
    static func checkCPUs(_ configuration: RunConfiguration) throws(RunError) {
        let allowed = CPUPlacement.allowedCPUs()
        for cpu in [configuration.serverCPU, configuration.clientCPU].compactMap({ $0 }) {
            guard allowed.contains(cpu) else {
                throw .invalidCPU(cpu, allowed: allowed)
            }
        }
    }

    /// Pins the calling thread when asked, and keeps its timed waits from running late.
    private static func placeCurrentThread(on cpu: Int?) throws(SystemError) {
        CPUPlacement.minimizeTimerSlack()
        if let cpu { try CPUPlacement.pinCurrentThread(to: cpu) }
    }

    /// The ring of messages in flight (the whole run's, without a stream) must fit in half the machine's memory.
    static func checkMemory(_ configuration: RunConfiguration, streaming: Bool) throws(RunError) {
        let memory = Posix.physicalMemory
        let rows = streaming ? RunRecording.window(for: configuration) : configuration.sequencesPerClient
        let (held, overflow) = configuration.messagesPerSequence.multipliedReportingOverflow(by: rows)
        let needed = held.multipliedReportingOverflow(by: RunError.bytesPerMessage(configuration.timestamps))
        guard !overflow, !needed.overflow, needed.partialValue <= memory / 2 else {
            throw .tooManyMessages(messages: held, bytesNeeded: needed.partialValue, bytesAvailable: memory)
        }
    }
}
