import BenchClients
import BenchCore
import BenchNet

extension RunConfiguration {
    /// The run as its clients elsewhere are told it — an agent's (`bench clients`), a child's (`--client-procs`) —
    /// built from the welcome's numbers and the spec's transport and target, the same type the command line builds:
    /// one decoder, whose checks every such client passes. Every field comes from the network.
    ///
    /// - Parameters:
    ///   - welcome: the ids given (from its first client) and the run's numbers.
    ///   - spec: the transport, and a target run's ``TargetSettings`` (its role: a target measured by these clients).
    /// - Throws: ``RunError/setupFailed(_:)`` naming what does not fit.
    init(welcome: AgentWelcome, spec: ClientSpec) throws(RunError) {
        let first = Int(welcome.firstClient), count = Int(welcome.clients), total = Int(welcome.totalClients)
        guard welcome.scenario <= 2, welcome.timestamps <= 2, count > 0, first + count <= total,
            Limits.clients.contains(total), welcome.payload >= WireFormat.minimumMessageSize,
            welcome.payload <= WireFormat.maximumFrameSize, welcome.heartbeat <= Limits.longestDuration
        else {
            throw .setupFailed("the run's welcome does not fit: \(welcome)")
        }
        self.init(scenario: [Scenario.fanout, .roundtrip, .chat][Int(welcome.scenario)], seed: spec.chat?.seed ?? 0)
        chatRooms = spec.chat?.plan
        guard (scenario == .chat) == (spec.chat != nil) else {
            throw .setupFailed("the run's spec \(scenario == .chat ? "gives no rooms for its chat" : "gives rooms to no chat")")
        }
        if let refusal = chatRooms?.refusal(clients: total) { throw .setupFailed("the run's chat rooms do not fit: \(refusal)") }
        clients = total
        localClientRange = first..<first + count
        payload = Int(welcome.payload)
        heartbeat = welcome.heartbeat
        timestamps = [TimestampSource.user, .kernel, .both][Int(welcome.timestamps)]
        token = welcome.runToken
        transport = spec.transport
        webSocketPath = spec.webSocketPath
        connectInterval = spec.connectInterval
        if spec.reconnect != nil { reconnect = spec.reconnect }
        silenceLimit = spec.silenceLimit
        sourceAddresses = spec.sourceAddresses
        if let target = spec.target {
            if scenario == .roundtrip, let refusal = target.url.scheme.roundtripRefusal {
                throw .setupFailed("the run's spec asks a round trip of \(target.url): \(refusal)")
            }
            if scenario == .chat, let refusal = target.url.scheme.chatRefusal {
                throw .setupFailed("the run's spec asks a chat of \(target.url): \(refusal)")
            }
            role = .target(target, agentToken: nil)
        }
    }
}
