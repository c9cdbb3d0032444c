@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// Every kind of user's server with the placements that take it apart from the measuring thread: its clients on two
/// threads of this process, and in two agents (`bench serve fanout|roundtrip --target`, the agents here on threads of
/// the test, speaking over loopback as on other hosts). Each completes with every message measured. (Child processes
/// are the same groups started by the command line: `TargetCompositionTests`.)
/// Serialized, as the other real servers' tests: two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetPlacementMatrixTests {
    enum Server: String, CaseIterable, Sendable {
        case wsEcho, natsRoundtrip, mqttRoundtrip, redisFanout, natsFanout, wsPubSub
        /// A WebSocket relay that refuses a handshake without `Authorization: Bearer …` (`--header`).
        case wsBearerPubSub
        /// MQTT and NATS over WebSocket (mqtt+ws://, nats+ws://): mosquitto's and nats-server's WebSocket listeners.
        case mqttOverWebSocketFanout, natsOverWebSocketRoundtrip
        /// STOMP over WebSocket (stomp+ws://): RabbitMQ's Web-STOMP.
        case stompOverWebSocketFanout
    }

    enum Placement: String, CaseIterable, Sendable {
        case twoThreads, twoAgents
    }

    static var available: [Server] {
        Server.allCases.filter { server in
            switch server {
            case .wsEcho, .wsPubSub, .wsBearerPubSub: WebSocketTransportTests.pythonHasWebSockets
            case .natsRoundtrip, .natsFanout, .natsOverWebSocketRoundtrip: TargetServerTests.hasNATS
            case .mqttRoundtrip, .mqttOverWebSocketFanout: MQTTInteropTests.hasMosquitto
            case .redisFanout: TargetServerTests.hasRedis
            case .stompOverWebSocketFanout: RabbitMQBroker.isInstalled
            }
        }
    }

    @Test(
        .enabled(if: available.count == Server.allCases.count,
            "a server is missing: apt-get install -y python3-websockets nats-server mosquitto redis-server rabbitmq-server"),
        arguments: Server.allCases, Placement.allCases)
    func everyServerWithEveryPlacementMeasuresEveryMessage(_ server: Server, _ placement: Placement) throws {
        let (stop, target) = try Self.start(server)
        defer { stop() }
        var configuration = [.redisFanout, .natsFanout, .wsPubSub, .wsBearerPubSub, .mqttOverWebSocketFanout, .stompOverWebSocketFanout]
            .contains(server)
            ? try TargetServerTests.fanout(target, subscribers: 6, broadcasts: 20)
            : try TargetServerTests.roundtrip(target, clients: 6, messages: 20)
        if server == .wsPubSub || server == .wsBearerPubSub {
            configuration.warmup = 3  // the relay registers a connection just after its handshake
            try configuration.changeTarget { $0.publishTemplate = try PublishTemplate("{\"type\":\"broadcast\",\"payload\":\"{marker}{padding}\"}") }
        }
        if server == .wsBearerPubSub {  // the agents learn it over their control channel, in their client spec
            try configuration.changeTarget { $0.headers = [try HeaderField(parsing: "Authorization: Bearer \(Self.bearer)")] }
        }
        let recording: RunRecording
        switch placement {
        case .twoThreads:
            configuration.clientThreads = 2
            recording = try ScenarioRunner.run(configuration, control: RunControl())
        case .twoAgents:
            let (run, agents) = try BackgroundRun.withAgents(configuration, agents: 2, clientsEach: 3, token: "matrix")
            recording = try run.finish()
            for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }
            #expect(recording.agents.map(\.clients) == [3, 3])
        }
        if configuration.scenario == .fanout {
            try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        } else {
            _ = try TargetServerTests.expectEveryMessageEchoed(recording, target: target)
        }
    }

    /// The token the bearer relay wants.
    static let bearer = "t0k-matrix"

    /// The server started, how to stop it, and the target URL of it.
    static func start(_ server: Server) throws -> (stop: () -> Void, target: String) {
        switch server {
        case .wsEcho:
            let external = try ExternalServer.python("ws_echo_server.py")
            return (external.stop, "ws://127.0.0.1:\(external.port)/")
        case .wsPubSub:
            let external = try ExternalServer.python("ws_broadcast_server.py")
            return (external.stop, "ws://127.0.0.1:\(external.port)/")
        case .wsBearerPubSub:
            let external = try ExternalServer.python("ws_broadcast_server.py", Self.bearer)
            return (external.stop, "ws://127.0.0.1:\(external.port)/")
        case .mqttOverWebSocketFanout:
            let external = try MQTTInteropTests.broker(webSocket: true)
            return (external.stop, "mqtt+ws://127.0.0.1:\(external.port)/matrix")
        case .stompOverWebSocketFanout:
            let broker = try RabbitMQBroker()
            return (broker.stop, "stomp+ws://127.0.0.1:\(broker.webSocketPort)/topic/matrix")
        case .natsOverWebSocketRoundtrip:
            let external = try TargetServerTests.natsOverWebSocket()
            return (external.stop, "nats+ws://127.0.0.1:\(external.port)/matrix")
        case .natsRoundtrip, .natsFanout:
            let external = try ExternalServer.start(name: "nats") { port in
                (TargetServerTests.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)"])
            }
            return (external.stop, "nats://127.0.0.1:\(external.port)/matrix")
        case .mqttRoundtrip:
            let external = try MQTTInteropTests.broker()
            return (external.stop, "mqtt://127.0.0.1:\(external.port)/matrix")
        case .redisFanout:
            let external = try ExternalServer.start(name: "redis") { port in
                (TargetServerTests.redisServer, ["--port", "\(port)", "--save", "", "--appendonly", "no"])
            }
            return (external.stop, "redis://127.0.0.1:\(external.port)/matrix")
        }
    }
}
