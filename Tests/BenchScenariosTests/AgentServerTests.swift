import BenchCore
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
