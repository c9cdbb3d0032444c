@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// `bench chat --target` against real servers nobody here wrote: nats-server (room r is `chat.r`), mosquitto at QoS 0
/// and 1 (`chat/r`), redis-server (`chat:r`, published on each thread's own connection), and a python-socketio server whose "say" event goes to the rest of a room. Every message must reach
/// every other member of its sender's room, as the seed dealt them, and nobody else; where the server sends the sender
/// its own copy (NATS, MQTT, Redis), that copy is every message's round trip. Small and bounded (30 members, 10 messages each, 10 ms apart,
/// a 2 s timeout); serialized: on 2 CPUs two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ChatTargetTests {
    static func chat(_ target: String, clients: Int = 30, rooms: ChatRoomPlan = ChatRoomPlan(rooms: 5)) throws -> RunConfiguration {
        var configuration = try TargetServerTests.base(.chat, target, clients: clients, messages: 10)
        configuration.chatRooms = rooms
        configuration.interval = 10_000_000
        configuration.clientThreads = 2
        return configuration
    }

    /// Complete, no event, every delivery in time and each message at exactly the other members of its room.
    static func expectEveryMessageReachedItsRoom(_ recording: RunRecording) throws {
        defer { expectRoundTrips(recording) }
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        let configuration = recording.configuration
        let files = try RunFiles.write(recording)
        let rooms = ChatRooms(clients: configuration.clients, plan: configuration.chatRooms!, seed: configuration.seed)
        let expected = (0..<configuration.clients).reduce(0) { $0 + configuration.messages * (rooms.roomSize(of: $1) - 1) }
        #expect(files.samples.count == expected, "messages × (members − 1)")
        #expect(files.samples.allSatisfy { $0["lost"] == "0" })
        for (key, rows) in Dictionary(grouping: files.samples, by: { [$0.int("sender")!, $0.int("seq")!] }) {
            let room = rooms.members(ofRoom: Int(rooms.roomOfClient[key[0]])).map(Int.init).filter { $0 != key[0] }
            #expect(rows.map { $0.int("client")! }.sorted() == room, "message \(key)")
        }
    }

    /// NATS and MQTT send the sender its own copy: every message has its round trip; the others have none.
    static func expectRoundTrips(_ recording: RunRecording) {
        let configuration = recording.configuration
        let rtt = RunAnalysis(recording: recording).summary(of: .rtt)
        guard configuration.chatEchoesToSender else { return #expect(rtt == nil) }
        #expect(rtt?.count == configuration.clients * configuration.messages && rtt?.lost == 0, "\(String(describing: rtt))")
    }

    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func chatThroughNATSReachesEveryOtherMemberOfEachRoom() throws {
        let server = try ExternalServer.start(name: "nats") { port in
            (TargetServerTests.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)"])
        }
        defer { server.stop() }
        let configuration = try Self.chat(
            "nats://127.0.0.1:\(server.port)/chat", rooms: ChatRoomPlan(rooms: 5, sizes: .zipf(1.3)))
        try Self.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }

    /// A subscribed Redis connection cannot publish: each thread's members publish on one more connection of theirs.
    @Test(.enabled(if: TargetServerTests.hasRedis, "redis-server is not installed: apt-get install -y redis-server"))
    func chatThroughRedisPublishesOnEachThreadsOwnConnection() throws {
        let server = try ExternalServer.start(name: "redis") { port in
            (TargetServerTests.redisServer, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        }
        defer { server.stop() }
        var configuration = try Self.chat("redis://127.0.0.1:\(server.port)/chat")
        configuration.timestamps = .kernel  // the publishing connection's transmit stamps are each message's t0
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try Self.expectEveryMessageReachedItsRoom(recording)
        #expect(RunAnalysis(recording: recording).missingKernelStamps.send == 0)
    }

    /// A thread's members publish on one connection: it holds as many messages waiting for their transmit stamps as the
    /// members' own connections would. A pass on a busy machine sends several ticks of every member's messages on it,
    /// and at one connection's 32 the oldest gave their stamps up before they came.
    @Test func aGroupsPublishingConnectionWaitsForEveryMembersTransmitStamps() throws {
        let publisher = GroupPublisher<BenchNet.TCP>(
            .redis(channel: "chat", password: nil), maximumMessageSize: 1 << 10, stampsTransmits: true, members: 15)
        var waiting = try #require(publisher.transmitStamps)
        for message in 0..<15 * 32 { #expect(waiting.expect(message: message, lastByte: UInt64(message)) == nil) }
        #expect(waiting.expect(message: 15 * 32, lastByte: UInt64(15 * 32)) == 0, "one more: the oldest gives up")
    }

    @Test(.enabled(if: MQTTInteropTests.hasMosquitto, MQTTInteropTests.notice), arguments: [UInt8(0), 1])
    func chatThroughMosquittoReachesEveryOtherMemberOfEachRoom(qos: UInt8) throws {
        let server = try MQTTInteropTests.broker()
        defer { server.stop() }
        var configuration = try Self.chat("mqtt://127.0.0.1:\(server.port)/chat")
        configuration.changeTarget { $0.qos = qos }
        try Self.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }

    /// The same chat over mosquitto's WebSocket listener (mqtt+ws://) and nats-server's (nats+ws://): each member's
    /// MQTT or NATS, in binary WebSocket messages.
    @Test(
        .enabled(if: MQTTInteropTests.hasMosquitto && TargetServerTests.hasNATS, "mosquitto or nats-server is not installed"),
        arguments: ["mqtt", "nats"])
    func chatOverWebSocketReachesEveryOtherMemberOfEachRoom(protocolName: String) throws {
        let server = protocolName == "mqtt" ? try MQTTInteropTests.broker(webSocket: true) : try TargetServerTests.natsOverWebSocket()
        defer { server.stop() }
        let configuration = try Self.chat("\(protocolName)+ws://127.0.0.1:\(server.port)/chat")
        try Self.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }

    @Test(.enabled(
        if: SocketIOInteropTests.hasSocketIO,
        "python3-socketio or python3-aiohttp is not installed: apt-get install -y python3-socketio python3-aiohttp"))
    func chatThroughASocketIOServerReachesEveryOtherMemberOfEachRoom() throws {
        let (server, port) = try SocketIOInteropTests.start()
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var configuration = try Self.chat("socketio://127.0.0.1:\(port)/chat", clients: 12, rooms: ChatRoomPlan(rooms: 3))
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"["say","{room}","{marker}{padding}"]"#) }
        configuration.changeTarget { $0.subscribeText = #"["join","{room}"]"# }
        configuration.interval = 50_000_000  // python: a slower timetable
        try Self.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }
}
