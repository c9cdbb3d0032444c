import BenchCore
import BenchNet

extension AgentRunner {
    /// `bench clients --channel FD`: a child of a fan-out target run (`--client-procs`). It reads its share of the
    /// subscribers and what they speak from the inherited channel (a welcome, then the run's ``ClientSpec`` with the
    /// target), runs them as a ``SubscriberGroup`` reporting on the same channel, and ends when the run closes it.
    ///
    /// - Throws: ``RunError/setupFailed(_:)`` when what comes over the channel is not a fan-out target's share.
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
        let first = Int(welcome.firstClient), count = Int(welcome.clients)
        guard let target = spec.target, welcome.scenario == 0, welcome.timestamps <= 2, count > 0,
            first + count <= Int(welcome.totalClients), RunConfiguration.Limits.clients.contains(Int(welcome.totalClients)),
            welcome.payload >= WireFormat.minimumMessageSize, welcome.payload <= WireFormat.maximumFrameSize
        else {
            throw .setupFailed("the run's welcome does not fit a fan-out target's subscribers: \(welcome)")
        }
        var configuration = RunConfiguration(scenario: .fanout, seed: 0)
        configuration.clients = Int(welcome.totalClients)
        configuration.payload = Int(welcome.payload)
        configuration.timestamps = [TimestampSource.user, .kernel, .both][Int(welcome.timestamps)]
        configuration.token = welcome.runToken
        configuration.framing = spec.framing
        configuration.subscribeText = spec.subscribeText
        guard let address = SocketAddress(host: target.host, port: target.port) else { throw .invalidHost(target.host) }
        let settings = try TargetRunner.transportSettings(
            for: target, payload: configuration.payload,
            pinning: spec.tlsCertificatePEM.isEmpty ? nil : Array(spec.tlsCertificatePEM.utf8), from: "the run's certificate")
        let kind = TargetRunner.speech(of: target, configuration)
        let kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        let ids = first..<first + count
        do throws(SystemError) {
            _ = DescriptorLimit.raiseToHardLimit()
            switch target.scheme {
            case .ws:
                try SubscriberGroup<WebSocket>(
                    configuration, ids: ids, target: target, address: address, transport: settings, protocol: kind,
                    channel: channel, kernelClock: kernelClock
                ).run()
            case .wss:
                try SubscriberGroup<SecureWebSocket>(
                    configuration, ids: ids, target: target, address: address, transport: settings, protocol: kind,
                    channel: channel, kernelClock: kernelClock
                ).run()
            case .tcp, .redis, .nats:
                try SubscriberGroup<TCP>(
                    configuration, ids: ids, target: target, address: address, transport: settings, protocol: kind,
                    channel: channel, kernelClock: kernelClock
                ).run()
            }
        } catch {
            throw .system(error)
        }
        return welcome
    }
}
