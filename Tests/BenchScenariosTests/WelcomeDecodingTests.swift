@testable import BenchClients
import BenchCore
import Testing
import BenchProtocols

@testable import BenchScenarios

/// What clients elsewhere (an agent's, a child's) are told of a run becomes the same ``RunConfiguration`` the command
/// line builds, through one decoder: a target's settings become its role, and what does not fit is refused.
struct WelcomeDecodingTests {
    private func welcome(scenario: UInt8 = 0, first: UInt32 = 2, clients: UInt32 = 3, total: UInt32 = 8) -> AgentWelcome {
        AgentWelcome(
            scenario: scenario, timestamps: 1, firstClient: first, clients: clients, runToken: 77, payload: 128,
            totalClients: total, heartbeat: 1_000_000_000)
    }

    @Test func aTargetsSpecBecomesItsRoleWithEverySetting() throws {
        var settings = TargetSettings(try TargetURL("mqtt://127.0.0.1:1883/prices"))
        settings.qos = 2
        settings.subscribeText = "hello"
        let spec = try ClientSpec(fields: ClientSpec(transport: .tcp, target: settings).encoded().dropFirst(5))
        let configuration = try RunConfiguration(welcome: welcome(), spec: spec)
        #expect(configuration.role == .target(settings, agentToken: nil))
        #expect(configuration.localClients == 2..<5 && configuration.clients == 8 && configuration.token == 77)
        #expect(configuration.timestamps == .kernel && configuration.payload == 128 && configuration.scenario == .fanout)
    }

    @Test func theBuiltInServersClientsGetItsTransportAndNoTarget() throws {
        let configuration = try RunConfiguration(
            welcome: welcome(scenario: 1), spec: ClientSpec(transport: .ws, webSocketPath: "/live"))
        #expect(configuration.role == .local && configuration.transport == .ws && configuration.webSocketPath == "/live")
    }

    @Test(arguments: [
        (2, 2, 3, 8), (0, 6, 3, 8), (0, 0, 0, 8), (0, 0, 3, 0),
    ] as [(UInt8, UInt32, UInt32, UInt32)])
    func aWelcomeThatDoesNotFitIsRefused(scenario: UInt8, first: UInt32, clients: UInt32, total: UInt32) {
        #expect(throws: RunError.self) {
            try RunConfiguration(
                welcome: welcome(scenario: scenario, first: first, clients: clients, total: total),
                spec: ClientSpec(transport: .tcp))
        }
    }

    @Test func aRoundTripOfATargetThatHasNoneIsRefused() throws {
        let spec = ClientSpec(transport: .tcp, target: TargetSettings(try TargetURL("redis://127.0.0.1:6379/news")))
        #expect(throws: RunError.self) { try RunConfiguration(welcome: welcome(scenario: 1), spec: spec) }
    }
}
