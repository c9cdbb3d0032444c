@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// STOMP 1.2 against a real broker (Debian's RabbitMQ with its STOMP and Web-STOMP plugins, started once per test: it
/// takes seconds): fan-out over TCP, round trip and chat over WebSocket, and a refused CONNECT in the broker's words.
/// Serialized, as the other real servers' tests: two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct STOMPInteropTests {
    @Test(.enabled(if: RabbitMQBroker.isInstalled, RabbitMQBroker.notice))
    func eachScenarioThroughRabbitMQOverTCPAndWebSocket() throws {
        let broker = try RabbitMQBroker()
        defer { broker.stop() }

        let fanout = "stomp://127.0.0.1:\(broker.stompPort)/topic/prices"
        var configuration = try TargetServerTests.fanout(fanout, subscribers: 50, broadcasts: 30)
        configuration.clientThreads = 2
        try TargetServerTests.expectEveryBroadcastDelivered(try ScenarioRunner.run(configuration, control: RunControl()), target: fanout)

        // Each client on its own destination, /topic/echo.<client>: the broker sends its messages back to it alone.
        let roundtrip = "stomp+ws://127.0.0.1:\(broker.webSocketPort)/topic/echo"
        configuration = try TargetServerTests.roundtrip(roundtrip, clients: 10, messages: 30)
        _ = try TargetServerTests.expectEveryMessageEchoed(try ScenarioRunner.run(configuration, control: RunControl()), target: roundtrip)

        // Rooms at /topic/chat.<room>; the sender gets its own copy back: its round trip.
        configuration = try ChatTargetTests.chat("stomp+ws://127.0.0.1:\(broker.webSocketPort)/topic/chat")
        try ChatTargetTests.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }

    @Test(.enabled(if: RabbitMQBroker.isInstalled, RabbitMQBroker.notice))
    func aRefusedLoginStopsTheSetupWithTheBrokersWords() throws {
        let broker = try RabbitMQBroker()
        defer { broker.stop() }
        let configuration = try TargetServerTests.fanout(
            "stomp://guest:wrong@127.0.0.1:\(broker.stompPort)/topic/prices", subscribers: 3, broadcasts: 5)
        #expect {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            guard case .setupFailed(let reason) = error as? RunError else { return false }
            return reason.contains("STOMP ERROR: Bad CONNECT") && reason.contains("Access refused for user 'guest'")
        }
    }
}
