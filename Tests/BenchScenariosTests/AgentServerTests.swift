import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// The server side of `bench serve`: it holds one descriptor per client, the agents the others.
@Suite struct AgentServerTests {
    @Test func aServerWhoseClientsComeFromAgentsIsNotRefusedForTheirDescriptors() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 15_000  // more than one process holds with its own clients (9,968 here)
        configuration.localClientRange = 0..<0
        configuration.clientThreads = 1
        configuration.agentToken = AgentToken.hash("t")
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

/// `bench clients` against a server whose welcome is out of every run's bounds: the agent refuses it (setup fails),
/// it does not trap on the heartbeat deadline or allocate the payload's read buffers.
@Suite struct AgentWelcomeBoundsTests {
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
