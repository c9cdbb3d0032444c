import BenchCore
import BenchNet

/// An agent that joined a `bench serve` run: who, and which client ids it simulates.
public struct AgentRecord: Sendable, Equatable {
    public let host: String
    public let pid: Int
    public let firstClient: Int
    public let clients: Int
}

extension BenchServer {
    /// An agent (`bench clients`) asks for client ids on its control connection: with the run's `--token`, from this
    /// machine (its monotonic clock is the server's: offsets between hosts are not estimated yet), before the run,
    /// for no more ids than are left. It is welcomed with its ids and the settings its clients need; anything else
    /// closes the connection with the reason, and the run goes on waiting for the others.
    func handleAgentHello(_ frame: Frame, slot: Int, at now: UInt64) -> Bool {
        let hello = AgentHello(frame)
        let who = "agent \(hello.host) (pid \(hello.pid))"
        let left = configuration.clients - configuration.localClients.count - agentClients
        let refusal: String?
        if peers[slot].client != nil || peers[slot].agent != nil {
            refusal = "\(who) said hello twice"
        } else if frame.bytes[5] != WireFormat.version {
            refusal = "\(who) speaks protocol version \(frame.bytes[5]); this server speaks \(WireFormat.version)"
        } else if configuration.agentToken == nil {
            refusal = "\(who): this run takes no agents (bench serve does)"
        } else if hello.token != configuration.agentToken {
            refusal = "\(who) does not know this run's --token"
        } else if hello.boot != Self.bootHash {
            refusal = "\(who) runs on another machine: agents must share the server's clock (its host) for now"
        } else if running {
            refusal = "\(who) came after the run started"
        } else if hello.clients == 0 || Int(hello.clients) > left {
            refusal = "\(who) asked for \(hello.clients) clients; \(left) of the run's \(configuration.clients) are left"
        } else {
            refusal = nil
        }
        if let refusal {
            closePeer(slot: slot, reason: refusal, at: now)
            return false
        }
        let first = configuration.localClients.upperBound + agentClients
        let welcome = AgentWelcome(
            scenario: configuration.scenario == .fanout ? 0 : 1,
            timestamps: configuration.timestamps == .user ? 0 : configuration.timestamps == .kernel ? 1 : 2,
            firstClient: UInt32(first), clients: hello.clients,
            runToken: AgentToken.clients(ofRun: configuration.token, from: first),
            payload: UInt32(configuration.payload), totalClients: UInt32(configuration.clients),
            heartbeat: configuration.heartbeat)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { buffer.deallocate() }
        welcome.encode(into: buffer)
        do {
            _ = try peers[slot].connection.send(buffer, stamped: false)
        } catch {
            closePeer(slot: slot, reason: "\(who): its welcome could not be sent: \(error)", at: now)
            return false
        }
        peers[slot].agent = recording.agents.count
        agentClients += Int(hello.clients)
        recording.agents.append(
            AgentRecord(host: hello.host, pid: Int(hello.pid), firstClient: first, clients: Int(hello.clients)))
        return true
    }

    /// The token client `client`'s hello must carry: the run's own for this process's clients (and for every client
    /// of a run without agents: tests bring some of their own), its agent's for an agent's; nil for an id no agent
    /// was given (yet).
    func helloToken(ofClient client: Int) -> UInt64? {
        if configuration.agentToken == nil || configuration.localClients.contains(client) { return configuration.token }
        guard let agent = recording.agents.first(where: { (0..<$0.clients).contains(client - $0.firstClient) }) else {
            return nil
        }
        return AgentToken.clients(ofRun: configuration.token, from: agent.firstClient)
    }

    /// An agent's control connection closed: before the run began, its clients will not all come, so the setup fails
    /// at once, naming it (rather than at the join timeout).
    func agentLeft(slot: Int) {
        guard !running, let agent = peers[slot].agent else { return }
        let record = recording.agents[agent]
        control.failSetup(
            "agent \(record.host) (pid \(record.pid)) left before the run began; it had clients \(record.firstClient) to "
                + "\(record.firstClient + record.clients - 1)")
    }

    /// This boot's identifier, hashed as agents send theirs.
    static var bootHash: UInt64 { AgentToken.hash(Posix.bootIdentifier) }

    /// What a setup that timed out waiting for agents says about them: who joined with how many, and how many are
    /// missing.
    var agentsSummary: String {
        guard configuration.agentToken != nil else { return "" }
        let joined = recording.agents.map { "\($0.host) (pid \($0.pid)): \($0.clients)" }
        let missing = configuration.clients - configuration.localClients.count - agentClients
        return "; agents joined: " + (joined.isEmpty ? "none" : joined.joined(separator: ", "))
            + "; \(missing) client ids not taken by any agent"
    }
}
