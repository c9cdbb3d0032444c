import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

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
        if !configuration.serverShards.isEmpty {
            return try measureAcrossProcesses(configuration, control: control, stream: stream)
        }
        // The relay's end of every member and, unless children or agents hold them, the member's own.
        let limit = DescriptorLimit.raiseToHardLimit()
        let local = configuration.clientGroupChannels.isEmpty && configuration.agentToken == nil
        let perClient = local ? 2 : 1
        guard perClient * configuration.clients + ServerShards.relayOverhead(configuration, inRunsProcess: true) <= limit else {
            throw .tooManyClients(requested: configuration.clients, descriptorLimit: limit, perClient: perClient)
        }
        let relay = try ChatRelay(
            host: configuration.host, port: relayPort(of: configuration),
            cpu: configuration.serverCPU, engine: configuration.ioEngine, clients: configuration.clients,
            maximumMessageSize: max(64 << 10, 4 * configuration.payload),
            maximumQueuedBytes: configuration.maximumQueuedBytes)
        try relay.start()
        let result = Result { () throws(RunError) in
            try measureMembers(configuration, at: relay.address, control: control, stream: stream) { [relay] in
                let joined = relay.joined.load(ordering: .acquiring)
                return joined >= configuration.clients ? nil : "the relay had \(joined) of them in their rooms"
            }
        }
        let counts = relay.finish()
        var recording = try result.get()
        recording.merge(relayCounts: counts, configuration: configuration)
        for event in counts.events(at: MonotonicClock.now()) { recording.record(event) }
        return recording
    }

    /// `--server-procs`: the relay in the processes of `configuration.serverShards`, each hosting whole rooms
    /// (``ServerShards/serveChatRooms(_:place:channel:control:)``); the members connect to the one of their room and
    /// are measured here, in one ledger, as they would be with one relay. A relay process that ends without its
    /// summary fails the run (the setup at once), saying which; its members' messages were lost as their connections
    /// closed.
    private static func measureAcrossProcesses(
        _ configuration: RunConfiguration, control: RunControl, stream: SettledQueue?
    ) throws(RunError) -> RunRecording {
        let processes = try ChatRelayProcesses(configuration.serverShards)
        var relayed = configuration
        do throws(RunError) {
            let ports = try processes.ports(by: MonotonicClock.now().addingClamped(configuration.setupBudget), control: control)
            relayed.chatRelays = ports.compactMap { SocketAddress(host: configuration.host, port: $0) }
            guard relayed.chatRelays.count == ports.count else { throw .invalidHost(configuration.host) }
        } catch {
            _ = processes.finish(grace: ShardedRun.hangGrace)
            throw error
        }
        let result = Result { () throws(RunError) in
            try measureMembers(relayed, at: relayed.chatRelays[0], control: control, stream: stream) {
                processes.stillWaiting(for: configuration.clients)
            }
        }
        // A relay process that ended during the setup is why the setup failed, whatever a member said first.
        let failure = processes.failure
        let ended = processes.finish(grace: ShardedRun.hangGrace)
        var recording: RunRecording
        do {
            recording = try result.get()
        } catch {
            guard case .setupFailed(let reason) = error, let failure, !reason.hasPrefix(failure) else { throw error }
            throw .setupFailed("\(failure) (\(reason))")
        }
        let sizes = ChatRooms.sizes(clients: configuration.clients, plan: configuration.chatRooms!)
        let members = ChatRooms.members(sizes: sizes, relays: ended.count)
        recording.merge(relays: ended, members: members, at: relayed.chatRelays, configuration: configuration)
        return recording
    }

    /// Measures the members of `configuration`'s rooms as a `tcp://` target's clients, with line framing and
    /// `join {room}`, at `address` (or each at its room's relay process, ``RunConfiguration/chatRelays``);
    /// `serverWait` says what the relays still wait for before the run may send.
    private static func measureMembers(
        _ configuration: RunConfiguration, at address: SocketAddress, control: RunControl, stream: SettledQueue?,
        serverWait: @escaping TargetRunner.ServerWait
    ) throws(RunError) -> RunRecording {
        let url: TargetURL
        do throws(TargetURL.Invalid) {
            url = try TargetURL("tcp://\(address)")
        } catch {
            throw .setupFailed("the chat relay's address \(address) is no target: \(error.reason)")
        }
        var settings = TargetSettings(url)
        settings.framing = framing
        settings.subscribeText = joinText
        var relayed = configuration
        relayed.role = .target(settings, agentToken: configuration.agentToken)
        return try TargetRunner.run(relayed, settings: settings, control: control, stream: stream, serverWait: serverWait)
    }

    /// Where the relay listens: the run's port, or with agents the one after `--listen`'s (0: any).
    static func relayPort(of configuration: RunConfiguration) -> UInt16 {
        guard configuration.agentToken != nil else { return configuration.port }
        return configuration.port == 0 ? 0 : configuration.port &+ 1
    }
}
