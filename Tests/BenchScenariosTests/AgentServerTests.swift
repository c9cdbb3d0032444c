@testable import BenchClients
import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// The server side of `bench serve`: it holds one descriptor per client, the agents the others.
@Suite(.timeLimit(.minutes(10))) struct AgentServerTests {
    @Test func aServerWhoseClientsComeFromAgentsIsNotRefusedForTheirDescriptors() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 15_000  // more than one process holds with its own clients (9,968 here)
        configuration.localClientRange = 0..<0
        configuration.clientThreads = 1
        configuration.admitAgents(tokenHash: AgentToken.hash("t"))
        configuration.setupTimeout = 200_000_000
        #expect {
            try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            guard case .setupFailed(let reason) = error as? RunError else { return false }
            return reason.contains("0 of 15000 clients") && reason.contains("agents joined: none")
                && reason.contains("15000 client ids not taken by any agent")
        }
    }
}

/// An agent's clients' reports (``ClientReport``, as every client thread's): a connect time, with its phases over tls,
/// ws and wss, kept for its own clients; an agent that reports another's client, no time, or phases that do not add up
/// to the connect time is cut off.
@Suite(.timeLimit(.minutes(10))) struct AgentConnectTimesTests {
    private func report(_ what: ClientReport.What, client: UInt32, time: UInt64, text: String = "") -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: WireFormat.clientReportMaximumSize)
        let size = bytes.withUnsafeMutableBytes { ClientReport(what, client: client, time: time, text: text).encode(into: $0) }
        return Array(bytes[0..<size])
    }

    /// A fan-out of 4 clients that agents bring, and a raw agent welcomed with clients 0 and 1 (the welcome checked).
    static func runWithAnAgentOfClients0And1() throws -> (BackgroundRun, RawPeer) {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 4
        configuration.localClientRange = 0..<0
        configuration.admitAgents(tokenHash: AgentToken.hash("t"))
        configuration.setupTimeout = 10_000_000_000
        let run = try BackgroundRun(configuration)
        let agent = try RawPeer(port: run.port())
        var hello = [UInt8](repeating: 0, count: WireFormat.agentFrameSize)
        hello.withUnsafeMutableBytes {
            AgentHello(clients: 2, token: AgentToken.hash("t"), pid: 1, host: "test", boot: 0).encode(into: $0)
        }
        agent.send(hello)
        let welcome = try #require(agent.receiveFrame(size: WireFormat.agentFrameSize))
        #expect(welcome[4] == FrameKind.agentWelcome.rawValue)
        return (run, agent)
    }

    @Test(arguments: [
        (client: UInt32(2), time: UInt64(1_000), phases: "", why: "another agent's client"),
        (client: UInt32(1), time: UInt64(0), phases: "", why: "a connect of no time"),
        (client: UInt32(1), time: UInt64(1_000), phases: "401,0,600,0", why: "phases that do not add up to its connect time"),
        (client: UInt32(1), time: UInt64(1_000), phases: "400,0,six hundred,0", why: "phases that do not read"),
    ])
    func aConnectTimeThatIsNotItsClientsClosesTheAgentsControlConnection(
        client: UInt32, time: UInt64, phases: String, why: String
    ) throws {
        let (run, agent) = try Self.runWithAnAgentOfClients0And1()
        agent.send(report(.subscribed, client: 0, time: 1_000, text: "400,0,600,0"))  // its own, adding up: kept
        agent.send(report(.load, client: 0, time: 500_000))  // its thread's load: kept
        agent.send(report(.closed, client: ClientReport.noClient, time: 1, text: "a note of its thread"))
        #expect(!agent.serverCloses(within: 1))
        agent.send(report(.subscribed, client: client, time: time, text: phases))
        #expect(agent.serverCloses(), "\(why)")
        agent.close()
        #expect {
            try run.finish()
        } throws: { error in
            guard case .setupFailed(let reason) = error as? RunError else { return false }
            return reason.contains("left before the run began")
        }
    }
}

/// `bench clients` against a server whose welcome is out of every run's bounds: the agent refuses it (setup fails),
/// it does not trap on the heartbeat deadline or allocate the payload's read buffers.
@Suite(.timeLimit(.minutes(10))) struct AgentWelcomeBoundsTests {
    private func welcome(heartbeat: UInt64 = 0, payload: UInt32 = 64, total: UInt32? = nil) -> @Sendable (HostileConnection) -> Void {
        { connection in
            guard let hello = HostileReader(connection).exactly(WireFormat.agentFrameSize) else { return }
            let asked = hello[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
            defer { frame.deallocate() }
            AgentWelcome(
                scenario: 0, timestamps: 0, firstClient: 0, clients: asked, runToken: 1, payload: payload,
                totalClients: total ?? asked, heartbeat: heartbeat
            ).encode(into: frame)
            connection.send(Array(frame))
            while !connection.isOver, connection.receive() != nil {}
        }
    }

    @Test(arguments: [(UInt64.max, UInt32(64), UInt32?.none), (0, UInt32.max, nil), (0, 64, UInt32.max)])
    func aWelcomeBeyondTheLimitsIsRefused(heartbeat: UInt64, payload: UInt32, total: UInt32?) throws {
        let server = try HostileServer(lifetime: 10, welcome(heartbeat: heartbeat, payload: payload, total: total))
        defer { server.stop() }
        let address = try #require(SocketAddress(host: "127.0.0.1", port: server.port))
        #expect(throws: RunError.self) {
            _ = try AgentRunner.run(
                server: address, clients: 1, token: "t", clientThreads: 1, joinTimeout: 2_000_000_000,
                control: try RunControl(clientsStopOnRequest: true))
        }
    }
}
