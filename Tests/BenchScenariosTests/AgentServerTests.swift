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

/// An agent's connect times: kept for its own clients, and an agent that sends others' (or no time) is cut off.
@Suite(.timeLimit(.minutes(10))) struct AgentConnectTimesTests {
    private func frame(_ entries: [(client: UInt32, nanoseconds: UInt64)]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: WireFormat.agentFrameSize)
        bytes.withUnsafeMutableBytes { AgentConnectTimes(entries).encode(into: $0) }
        return bytes
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

    @Test func connectTimesOfClientsNotItsOwnCloseTheAgentsControlConnection() throws {
        let (run, agent) = try Self.runWithAnAgentOfClients0And1()
        agent.send(frame([(0, 1_000), (1, 2_000)]))  // its own: kept
        #expect(!agent.serverCloses(within: 1))
        agent.send(frame([(2, 1_000)]))  // another agent's id
        #expect(agent.serverCloses())
        agent.close()
        #expect {
            try run.finish()
        } throws: { error in
            guard case .setupFailed(let reason) = error as? RunError else { return false }
            return reason.contains("left before the run began")
        }
    }

    @Test func aConnectTimesFrameRoundTripsAndACountPastThreeIsRefused() {
        var bytes = frame([(7, 123), (8, UInt64.max), (9, 1)])
        let read = bytes.withUnsafeMutableBytes { AgentConnectTimes(Frame(kind: .connectTimes, bytes: $0)) }
        #expect(read == AgentConnectTimes([(7, 123), (8, .max), (9, 1)]))
        for count: UInt8 in [0, 4, 255] {
            bytes[5] = count
            #expect(bytes.withUnsafeMutableBytes { AgentConnectTimes(Frame(kind: .connectTimes, bytes: $0)) } == nil)
        }
    }
}

/// An agent's clients' connect phases (over tls, ws, wss): kept where they add up to the connect time the agent gave,
/// and an agent that sends phases of another's client, or phases that do not add up, is cut off.
@Suite(.timeLimit(.minutes(10))) struct AgentConnectPhasesTests {
    private func frame(client: UInt32, tcp: UInt64, webSocket: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: WireFormat.agentFrameSize)
        bytes.withUnsafeMutableBytes {
            AgentConnectPhases(client: client, phases: ConnectPhases(tcp: tcp, tls: 0, webSocket: webSocket, subscribe: 0))
                .encode(into: $0)
        }
        return bytes
    }

    @Test func aConnectPhasesFrameRoundTripsAndAPhaseLongerThanAnHourIsRefused() {
        var bytes = frame(client: 7, tcp: 300, webSocket: 900)
        let read = bytes.withUnsafeMutableBytes { AgentConnectPhases(Frame(kind: .connectPhases, bytes: $0)) }
        #expect(read == AgentConnectPhases(client: 7, phases: ConnectPhases(tcp: 300, tls: 0, webSocket: 900, subscribe: 0)))
        bytes = frame(client: 7, tcp: ConnectPhases.longest + 1, webSocket: 0)
        #expect(bytes.withUnsafeMutableBytes { AgentConnectPhases(Frame(kind: .connectPhases, bytes: $0)) } == nil)
    }

    @Test(arguments: [(client: UInt32(2), tcp: UInt64(400), why: "another agent's client"),
                      (client: UInt32(0), tcp: UInt64(401), why: "phases that do not add up to its connect time")])
    func connectPhasesThatAreNotItsClientsCloseTheAgentsControlConnection(
        client: UInt32, tcp: UInt64, why: String
    ) throws {
        let (run, agent) = try AgentConnectTimesTests.runWithAnAgentOfClients0And1()
        var times = [UInt8](repeating: 0, count: WireFormat.agentFrameSize)
        times.withUnsafeMutableBytes { AgentConnectTimes([(0, 1_000), (1, 2_000)]).encode(into: $0) }
        agent.send(times)
        agent.send(frame(client: 0, tcp: 400, webSocket: 600))  // its own, adding up: kept
        #expect(!agent.serverCloses(within: 1))
        agent.send(frame(client: client, tcp: tcp, webSocket: 600))
        #expect(agent.serverCloses(), "\(why)")
        agent.close()
        #expect(throws: RunError.self) { try run.finish() }
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
