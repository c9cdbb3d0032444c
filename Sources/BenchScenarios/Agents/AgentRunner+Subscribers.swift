import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

extension AgentRunner {
    /// `bench clients --channel FD`: a child of a target run (`--client-procs`). It reads its share of the clients and
    /// what they speak from the inherited channel (a welcome, then the run's ``ClientSpec`` with the target), runs them
    /// as a ``ClientGroup`` reporting on the same channel (in roundtrip, taking its send orders from it too), and
    /// ends when the run closes it.
    ///
    /// - Throws: ``RunError/setupFailed(_:)`` when what comes over the channel is not a target's share.
    public static func runSubscribers(channel: Int32, joinTimeout: UInt64) throws(RunError) -> AgentWelcome {
        let welcome: AgentWelcome
        let spec: ClientSpec
        do throws(SystemError) {
            try Posix.setReceiveTimeout(channel, nanoseconds: joinTimeout)
            welcome = try readWelcome(channel, what: "share of the run", whenClosed: "the run closed the channel")
            spec = try readClientSpec(channel)
        } catch {
            throw .setupFailed("cannot read this child's share of the run: \(error)")
        }
        let share = try ClientGroupShare(welcome, spec)
        let writer = ReportWriter(descriptor: channel)
        do throws(SystemError) {
            try share.run(share.ids, writer: writer, endSignal: channel)
        } catch {
            throw .system(error)
        }
        share.reportLinkEvents(on: writer)
        return welcome
    }

    /// An agent of `bench serve fanout|roundtrip --target` (its welcome's spec names the target): its clients run on
    /// `threads` threads, reporting on the control connection; meanwhile this thread measures the collector's clock
    /// every ``clockRoundInterval`` on the same connection (whole writes under one lock) and passes each
    /// order on to the client threads it is for; when the collector closes the connection, the clients end. Its
    /// clients leave from its own `sources` (`--source-addresses`; none: the kernel's choice, or on loopback as many
    /// addresses as they need), not the run's host's.
    static func runTargetClients(
        _ welcome: AgentWelcome, _ spec: ClientSpec, sources: [String], controlSocket: Int32, threads: Int,
        control: RunControl, status: AgentStatus?
    ) throws(RunError) {
        let share = try ClientGroupShare(welcome, spec, sources: sources)
        let lock = SocketWriteLock()
        // Each thread's orders (roundtrip's and chat's messages, and any run's drop of every connection) come over a
        // pair of its own, and its end is the pair's.
        let relay = OrderRelay()
        let shares = ClientThreadSet<Void>.shares(
            of: share.ids, threads: threads, perConnection: share.configuration.subscribersPerConnection)
        var endSignals: [SharedDescriptor] = []
        do throws(SystemError) {
            for ids in shares {
                let (relayed, thread) = try Posix.socketPair()
                relay.add(ids, at: SharedDescriptor(owning: relayed, owner: "an agent's order relay"))
                endSignals.append(SharedDescriptor(owning: thread, owner: "an agent's clients' thread's orders"))
            }
        } catch {
            for end in endSignals { end.close() }
            relay.end()
            throw .system(error)
        }
        let started = ClientThreadSet(shares, name: "bench-subs", cpu: share.configuration.clientCPU) {
            [endSignals] index, ids, placement in
            defer { endSignals[index].close() }
            let writer = ReportWriter(descriptor: controlSocket, lock: lock)
            do throws(SystemError) {
                if let placement { throw placement }
                try share.run(ids, writer: writer, endSignal: endSignals[index].rawValue)
            } catch {
                writer.report(ClientReport(
                    .closed, client: UInt32(ids.lowerBound), time: MonotonicClock.now(),
                    text: "the agent's clients' thread could not start: \(error)"))
                writer.flush()
            }
        }
        if let failure = started.startFailure {
            for end in endSignals.dropFirst(started.startedCount) { end.close() }
            relay.end()
            control.clientsWake.notify()
            _ = started.join()
            throw .system(failure)
        }
        watchControlConnection(
            controlSocket, until: { started.allFinished }, relay: relay, writeLock: lock, control: control, status: status)
        _ = started.join()
        share.reportLinkEvents(on: ReportWriter(descriptor: controlSocket, lock: lock))
    }
}

/// A share of a target run's clients, as a child or an agent was told it: the run's settings its
/// subscribers need, their ids, and how to reach the target. Every field of the welcome and spec is checked first.
struct ClientGroupShare: Sendable {
    let configuration: RunConfiguration
    let ids: Range<Int>
    let target: TargetURL
    let address: SocketAddress
    let settings: TransportSettings
    let kind: ServerProtocol
    let kernelClock: KernelClockMapping?
    /// With `--link` (``ClientSpec/link``): the link this share's subscribers sit behind, ended by its owner.
    let link: LinkEmulator?
    let routes: ClientRoutes

    /// The share `welcome` gives, speaking as `spec` says; its clients leave from `sources` when given (an agent's
    /// own), else from the spec's.
    init(_ welcome: AgentWelcome, _ spec: ClientSpec, sources: [String]? = nil) throws(RunError) {
        var configuration = try RunConfiguration(welcome: welcome, spec: spec)
        if let sources { configuration.sourceAddresses = sources }
        guard let settings = configuration.target else {
            throw .setupFailed("the run's spec names no target for a target's clients")
        }
        let target = settings.url
        guard let address = SocketAddress(resolving: target.host, port: target.port) else { throw .invalidHost(target.host) }
        self.configuration = configuration
        self.ids = configuration.localClients
        self.target = target
        self.address = address
        self.settings = try TargetRunner.transportSettings(for: settings, payload: configuration.payload, trust: spec.tlsTrust)
        self.kind = TargetRunner.speech(of: settings, configuration)
        self.kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        _ = DescriptorLimit.raiseToHardLimit()
        if spec.relayPorts.isEmpty {
            (link, routes) = try AgentRunner.link(spec.link, to: address, ids: ids)
        } else {
            // The chat relay's processes, all at the target's host (the spec has no link then).
            let relays = spec.relayPorts.compactMap { SocketAddress(resolving: target.host, port: $0) }
            guard let plan = configuration.chatRooms, relays.count == spec.relayPorts.count else {
                throw .invalidHost(target.host)
            }
            link = nil
            routes = ClientRoutes(relays: relays, plan: plan, clients: configuration.clients, seed: configuration.seed)
        }
    }

    /// Once its clients ended (the run is over: the measuring side shut its end of the channel), what its link did to
    /// them, sent on `writer` for the run's events. Nothing without a link.
    func reportLinkEvents(on writer: ReportWriter) {
        guard let link else { return }
        link.report(on: writer, client: UInt32(ids.lowerBound))
    }

    /// Runs subscribers `ids` on this thread until `endSignal` is readable or `writer` breaks.
    func run(_ ids: Range<Int>, writer: ReportWriter, endSignal: Int32) throws(SystemError) {
        switch target.scheme.transport {
        case .ws where configuration.target?.overHTTP2 == true: try group(WebSocketOverHTTP2.self, ids, writer, endSignal).run()
        case .wss where configuration.target?.overHTTP2 == true: try group(SecureWebSocketOverHTTP2.self, ids, writer, endSignal).run()
        case .tcp: try group(TCP.self, ids, writer, endSignal).run()
        case .ws: try group(WebSocket.self, ids, writer, endSignal).run()
        case .tls: try group(TLS.self, ids, writer, endSignal).run()
        case .wss: try group(SecureWebSocket.self, ids, writer, endSignal).run()
        }
    }

    private func group<T: Transport>(
        _: T.Type, _ ids: Range<Int>, _ writer: ReportWriter, _ endSignal: Int32
    ) throws(SystemError) -> ClientGroup<T> {
        try ClientGroup<T>(
            configuration, ids: ids, target: target, routes: routes, transport: settings, protocol: kind,
            writer: writer, endSignal: endSignal, kernelClock: kernelClock)
    }
}
