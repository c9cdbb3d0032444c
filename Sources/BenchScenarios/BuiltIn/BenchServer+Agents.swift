import BenchClients
import BenchCore
import BenchNet
import Glibc

/// An agent that joined a `bench serve` run: who, and which client ids it simulates.
public struct AgentRecord: Sendable, Equatable {
    public let host: String
    public let pid: Int
    public let firstClient: Int
    public let clients: Int
    /// True when it runs on the server's machine, since the same boot (a clock namespace may still shift its clock).
    public let sameBoot: Bool
    /// Its clock put on the server's: the rounds it measured and reported, the drift between them.
    public var clock = ClockModel()
    /// The link its clients sit behind (`bench clients --link`, as given); nil for none.
    public var link: String?
    /// The pieces of its link report read so far (a link longer than the run's frames comes in pieces).
    var linkPieces = ""
}

extension BenchServer {
    /// An agent (`bench clients`) asks for client ids on its control connection: with the run's `--token`, before the
    /// run, for no more ids than are left (then it measures the server's clock: ``handleAgentFrame``). It is welcomed with its ids and the settings its clients need; anything else
    /// closes the connection with the reason, and the run goes on waiting for the others.
    func handleAgentHello(_ frame: Frame, slot: Int, at now: UInt64) -> Bool {
        let hello = AgentHello(frame)
        let left = configuration.clients - configuration.localClients.count - agentClients
        let refusal = AgentAdmission.refusal(
            of: frame, saidHelloBefore: peers[slot].client != nil || peers[slot].agent != nil,
            expected: configuration.agentToken, running: isRunning, left: left, total: configuration.clients)
        if let refusal {
            closePeer(slot: slot, reason: refusal, at: now)
            return false
        }
        let first = configuration.localClients.upperBound + agentClients
        let welcome = AgentWelcome(
            configuration, firstClient: first, clients: Int(hello.clients),
            runToken: AgentToken.clients(ofRun: configuration.token, from: first))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { buffer.deallocate() }
        welcome.encode(into: buffer)
        var spec = clientSpec.encoded()
        do {
            guard try peers[slot].connection.send(buffer, stamped: false) != .dropped,
                try spec.withUnsafeMutableBytes({ try peers[slot].connection.send($0, stamped: false) }) != .dropped
            else { throw SystemError("send (the agent reads nothing)", errno: ENOBUFS) }
        } catch {
            closePeer(slot: slot, reason: "agent \(hello.host) (pid \(hello.pid)): its welcome could not be sent: \(error)", at: now)
            return false
        }
        peers[slot].agent = recording.agents.count
        peers[slot].frames.allowFrames(upTo: WireFormat.clientReportMaximumSize)  // its reports, a link event's text among them
        agentClients += Int(hello.clients)
        recording.admit(AgentAdmission.record(of: frame, firstClient: first))
        return true
    }

    /// A frame on a welcomed agent's control connection: a clock probe is answered at once (t2: the read's return,
    /// t3: right before the write), a clock report kept for `agents.csv`, its clients' reports taken
    /// (``takeAgentClientReport(_:agent:slot:at:)``), its link's account at the end; anything else closes it.
    func handleAgentFrame(_ frame: Frame, agent: Int, slot: Int, at now: UInt64) -> Bool {
        let isLinkEvent = frame.kind == .clientReport && ClientReport.What(rawValue: frame.bytes[5])?.isLinksAccount == true
        if collectingLinkEvents && !isLinkEvent { return true }  // the run is over: only what its link did is taken
        switch frame.kind {
        case .clientReport where isLinkEvent:  // at the run's end, or where its clients all ended before it
            let record = recording.agents[agent]
            guard let report = ClientReport(frame), report.client == UInt32(record.firstClient) else {
                closePeer(slot: slot, reason: "agent \(agent) sent a link event not as its own", at: now)
                return false
            }
            agentLinkEvent(report, agent: agent)
            return true
        case .clockProbe:
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.clockFrameSize, alignment: 8)
            defer { buffer.deallocate() }
            AgentAdmission.clockReply(to: frame, readAt: now, into: buffer)
            do {
                _ = try peers[slot].connection.send(buffer, stamped: false)
            } catch {
                closePeer(slot: slot, reason: "agent \(agent): its clock reply could not be sent: \(error)", at: now)
                return false
            }
            return true
        case .clockReport:
            recording.agent(agent, measured: ClockEstimate(frame), at: now)
            return true
        case .clientReport where frame.bytes[5] == ClientReport.What.link.rawValue:
            let others = recording.agents.compactMap(\.link)
            switch AgentAdmission.take(
                linkReport: ClientReport(frame), of: recording.agents[agent], running: isRunning,
                runLink: configuration.link, otherLinks: others)
            {
            case .piece(let sofar):
                recording.agents[agent].linkPieces = sofar
                return true
            case .link(let link):
                (recording.agents[agent].link, recording.agents[agent].linkPieces) = (link, "")
                return true
            case .refused(let reason):
                closePeer(slot: slot, reason: "agent \(agent): \(reason)", at: now)
                return false
            }
        case .clientReport:
            return takeAgentClientReport(frame, agent: agent, slot: slot, at: now)
        default:
            closePeer(slot: slot, reason: "agent \(agent) sent \(frame.kind.withArticle) frame on its control connection", at: now)
            return false
        }
    }

    /// A report of agent `agent`'s client threads (``ClientReport``), as this process's own threads make them: a
    /// thread's load (the latest counts), a client's connect time and phases, an event of the run (its time put on
    /// this clock). Anything not of its clients closes its control connection.
    private func takeAgentClientReport(_ frame: Frame, agent: Int, slot: Int, at now: UInt64) -> Bool {
        let record = recording.agents[agent]
        let clients = record.firstClient..<record.firstClient + record.clients
        guard var report = ClientReport(frame) else {
            closePeer(slot: slot, reason: "agent \(agent) sent a report that does not read", at: now)
            return false
        }
        switch report.what {
        case .load where report.time <= 1_000_000 && clients.contains(Int(report.client)):
            agentThreadLoad[Int(report.client)] = Double(report.time) / 10_000  // the latest counts
            return true
        case .closed, .note, .gaveUp, .serverError:
            report.time = min(RemoteClock(model: record.clock).time(of: report.time), now)
        default:
            break
        }
        guard let refusal = recording.take(clientReport: report, of: clients) else { return true }
        closePeer(slot: slot, reason: "agent \(agent) sent \(refusal)", at: now)
        return false
    }

    /// The token client `client`'s hello must carry: the run's own for this process's clients (and for every client
    /// of a run without agents: tests bring some of their own), its agent's for an agent's; nil for an id no agent
    /// was given (yet).
    func helloToken(ofClient client: Int) -> UInt64? {
        if configuration.agentToken == nil || configuration.localClients.contains(client) { return configuration.token }
        guard let agent = agent(ofClient: client) else { return nil }
        return AgentToken.clients(ofRun: configuration.token, from: recording.agents[agent].firstClient)
    }

    /// The agent (its place in `recording.agents`) that was given client id `client`; nil for none. Agents are given
    /// consecutive ids in the order they join, so a binary search finds it (this runs for every echo of an agent's
    /// client).
    func agent(ofClient client: Int) -> Int? {
        var (low, high) = (0, recording.agents.count)
        while low < high {  // the first agent whose ids start after `client`
            let middle = (low + high) / 2
            if recording.agents[middle].firstClient <= client { low = middle + 1 } else { high = middle }
        }
        guard low > 0, client - recording.agents[low - 1].firstClient < recording.agents[low - 1].clients else { return nil }
        return low - 1
    }

    /// An agent's control connection closed: before the run began, its clients will not all come, so the setup fails
    /// at once, naming it (rather than at the join timeout).
    func agentLeft(slot: Int) {
        guard !isRunning, let agent = peers[slot].agent else { return }
        let record = recording.agents[agent]
        control.failSetup(
            "agent \(record.host) (pid \(record.pid)) left before the run began; it had clients \(record.firstClient) to "
                + "\(record.firstClient + record.clients - 1)")
    }

    /// How long the end of a run waits for agents' connect times still on their way.
    static var connectTimesGrace: UInt64 { 1_000_000_000 }

    /// The end of the run: agents send their clients' connect times a moment after their clients said hello, so a run
    /// of a few milliseconds can end before they arrive. While an agent still connected has clients without one, the
    /// server reads its control connections (nothing else: no sending, no accepting), up to ``connectTimesGrace``.
    func awaitAgentsConnectTimes() {
        guard !recording.agents.isEmpty, !isStopping, isWaitingForConnectTimes else { return }
        for descriptor in [listener, sendTimer.descriptor, loop.housekeepingTimer.descriptor] { try? epoll.remove(descriptor) }
        let deadline = MonotonicClock.now() + Self.connectTimesGrace
        while isWaitingForConnectTimes && !isStopping {
            let now = MonotonicClock.now()
            guard now < deadline else { return }
            do { try waitForEvents(timeout: min(deadline - now, 20_000_000)) } catch { return }
        }
    }

    /// True while an agent whose control connection is open has a client whose connect time has not come.
    private var isWaitingForConnectTimes: Bool {
        peers.contains { peer in
            guard let agent = peer.agent, peer.connection.isOpen else { return false }
            let record = recording.agents[agent]
            return recording.connectTimes[record.firstClient..<record.firstClient + record.clients].contains(0)
        }
    }

    /// What a setup that timed out waiting for agents says about them: who joined with how many, and how many are
    /// missing.
    var agentsSummary: String {
        guard configuration.agentToken != nil else { return "" }
        let missing = configuration.clients - configuration.localClients.count - agentClients
        return AgentAdmission.summary(of: recording.agents, missing: missing, ids: "client")
    }
}
