import BenchCore
import BenchNet

extension ChatRelay {
    /// `bench chat` without `--target`: the relay on its own thread, measured by the run's clients as they measure a
    /// user's server (a `tcp://` target with line framing and `join {room}`); what the relay dropped is said in the
    /// run's events. With agents (`bench serve chat`), the relay listens on `--listen`'s address, the port after its
    /// (any free one with port 0; a Service exposes both), and an agent told a wildcard address connects to the one it
    /// joined at.
    static func measure(
        _ configuration: RunConfiguration, control: RunControl, stream: SettledQueue?
    ) throws(RunError) -> RunRecording {
        try ScenarioRunner.checkCPUs(configuration)
        // The relay's end of every member and, unless children or agents hold them, the member's own (and behind a
        // link, the link's two ends of it).
        let limit = DescriptorLimit.raiseToHardLimit()
        let local = configuration.clientGroupChannels.isEmpty && configuration.agentToken == nil
        let perClient = local ? (configuration.link == nil ? 2 : 4) : 1
        guard perClient * configuration.clients + 1 + 2 * configuration.clientThreads + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: configuration.clients, descriptorLimit: limit, perClient: perClient)
        }
        let relay = try ChatRelay(
            host: configuration.host, port: relayPort(of: configuration),
            cpu: configuration.serverCPU, engine: configuration.ioEngine, clients: configuration.clients,
            maximumMessageSize: max(64 << 10, 4 * configuration.payload),
            maximumQueuedBytes: configuration.maximumQueuedBytes)
        let url: TargetURL
        do throws(TargetURL.Invalid) {
            url = try TargetURL("tcp://\(relay.address)")
        } catch {
            throw .setupFailed("the chat relay's address \(relay.address) is no target: \(error.reason)")
        }
        var settings = TargetSettings(url)
        settings.framing = framing
        settings.subscribeText = joinText
        var relayed = configuration
        relayed.role = .target(settings, agentToken: configuration.agentToken)
        try relay.start()
        let result = Result { () throws(RunError) in
            try TargetRunner.run(relayed, settings: settings, control: control, stream: stream) { [relay] in
                let joined = relay.joined.load(ordering: .acquiring)
                return joined >= configuration.clients ? nil : "the relay had \(joined) of them in their rooms"
            }
        }
        let counts = relay.finish()
        var recording = try result.get()
        recording.merge(relayCounts: counts, configuration: configuration)
        if let refusal = counts.uringRefusal {
            recording.record(ConnectionEvent(side: .server, client: nil, time: MonotonicClock.now(), reason: refusal))
        }
        if counts.dropped > 0 {
            recording.record(ConnectionEvent(
                side: .server, client: nil, time: MonotonicClock.now(),
                reason: "the chat relay dropped \(counts.dropped) of \(counts.dropped + counts.relayed) messages to "
                    + "members whose write queue was full (--max-queue): they are lost"))
        }
        return recording
    }

    /// Where the relay listens: the run's port, or with agents the one after `--listen`'s (0: any).
    static func relayPort(of configuration: RunConfiguration) -> UInt16 {
        guard configuration.agentToken != nil else { return configuration.port }
        return configuration.port == 0 ? 0 : configuration.port &+ 1
    }
}
