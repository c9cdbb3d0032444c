@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// The deploy, against servers nobody here wrote: the user's server killed mid-run and started again on its port while
/// the run goes on with `--reconnect`. Every subscriber and the publisher come back (a whole new handshake each), every
/// subscriber's outage is counted with the phases of the connect that brought it back, the broadcasts of the outage are
/// lost (counted, not dropped silently), and those after every return reach everyone. Its clients on two threads of this
/// process, and in two agents (the same groups a child process runs, told the backoff by their client spec).
/// Serialized, as the other real servers' tests: two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetRestartTests {
    enum Server: String, CaseIterable, Sendable {
        case nats, redis, mosquitto, wsRelay, lineChat
        /// A gRPC relay (Tests/Fixtures/grpc_relay_server.py, python3-grpcio): a server-streaming Subscribe, a unary
        /// Publish.
        case grpcRelay
    }

    enum Placement: String, CaseIterable, Sendable {
        case twoThreads, twoAgents
    }

    static let subscribers = 6

    static var everyServerIsInstalled: Bool {
        TargetServerTests.hasNATS && TargetServerTests.hasRedis && MQTTInteropTests.hasMosquitto
            && WebSocketTransportTests.pythonHasWebSockets && GRPCInteropTests.hasGRPC
    }

    /// The trait of the tests that need every server here.
    static var serversInstalled: ConditionTrait {
        .enabled(if: everyServerIsInstalled,
            "a server is missing: apt-get install -y nats-server redis-server mosquitto python3-websockets python3-grpcio")
    }

    /// The backoff of these runs' clients: tries 50 ms apart at first, at most 400 ms, a hundred of them.
    static let backoff = ReconnectBackoff(base: 50_000_000, maximum: 400_000_000, tries: 100)

    /// A fan-out of ``subscribers`` through `server` at `target`, `broadcasts` measured, its clients coming back by
    /// ``backoff``; the WebSocket relay's broadcasts wrapped as it wants them, after 3 of warmup (it registers a
    /// connection just after its handshake); the line chat's subscribers JOIN, and its lines are the bare marker.
    static func fanout(_ server: Server, _ target: String, broadcasts: Int) throws -> RunConfiguration {
        var configuration = try TargetServerTests.fanout(target, subscribers: subscribers, broadcasts: broadcasts)
        configuration.reconnect = backoff
        if server == .wsRelay {
            configuration.warmup = 3
            try configuration.changeTarget {
                $0.publishTemplate = try PublishTemplate("{\"type\":\"broadcast\",\"payload\":\"{marker}{padding}\"}")
            }
        }
        if server == .grpcRelay { try GRPCInteropTests.relay(&configuration) }
        if server == .lineChat {
            configuration.warmup = 3  // a JOIN may reach the server after the first broadcast
            try configuration.changeTarget {
                $0.framing = .line
                $0.subscribeText = "JOIN"
                $0.publishTemplate = try PublishTemplate("{marker}{padding}")
            }
        }
        return configuration
    }

    @Test(
        serversInstalled,
        arguments: Server.allCases, Placement.allCases)
    func aServerRestartedMidRunHasEverySubscriberBackAndItsOutageCounted(_ server: Server, _ placement: Placement) throws {
        var (external, target) = try Self.start(server)
        defer { external.stop() }
        let configuration = try Self.fanout(server, target, broadcasts: 400)
        let (run, agents) = try Self.begin(configuration, placement)
        run.waitUntilDispatched(30 * Self.subscribers)
        try Self.restart(&external)
        let recording = try run.finish()
        for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(recording.outages.count == Self.subscribers, "each subscriber dropped once: \(events.prefix(12))")
        #expect(recording.outagesBack == Self.subscribers, "every one back: \(events.prefix(12))")
        #expect(recording.clientThreads.reconnects == Self.subscribers && recording.clientThreads.gaveUp == 0)
        #expect(recording.outages.allSatisfy { $0.returnPhases != nil && ($0.reconnectTime ?? 0) > 0 })
        #expect(events.contains { $0.hasPrefix("publisher: back after") }, "\(events.prefix(12))")

        let files = try RunFiles.write(recording)
        #expect(files.settings["client_outages"] == "\(Self.subscribers)")
        #expect(files.settings["client_outages_back"] == "\(Self.subscribers)")
        #expect(files.settings["clients_gave_up"] == "0")
        // The herd: the last return after the first close, and the most returns within a second, derived here apart.
        let firstClose = try #require(recording.outages.map(\.closed).min())
        let backs = recording.outages.map(\.back).sorted()
        #expect(files.settings["returns_last_back_ns"] == "\(backs.last! - firstClose)")
        let peak = backs.indices.map { end in backs[...end].filter { backs[end] - $0 < 1_000_000_000 }.count }.max()
        #expect(files.settings["returns_peak_per_s"] == peak.map { "\($0)" })
        for page in ["summary.md", "report.html"] {  // what a person reads: the outages and the herd
            let text = try String(contentsOfFile: files.folder + "/" + page, encoding: .utf8)
            #expect(text.contains("\(Self.subscribers) came back, 0 did not; the last back "), "\(page)")
            #expect(text.contains("at most \(peak ?? 0) returns in a second"), "\(page)")
        }
        let returns = try files.table("reconnects.csv")
        #expect(returns.count == Self.subscribers)
        for row in returns {
            let outage = try #require(recording.outages.first { $0.client == row.int("client") })
            #expect(row.int("reconnect_ns") == outage.reconnectTime.map(Int.init), "\(row)")
            let tcp = try #require(row.int("connect_tcp_ns"), "\(row)")
            let subscribe = try #require(row.int("subscribe_ns"), "\(row)")
            #expect(tcp + subscribe <= row.int("reconnect_ns") ?? 0, "its connect within its outage: \(row)")
        }
        // The outage's broadcasts are lost, and counted; the ones sent once every subscriber and the publisher were back
        // reach everyone.
        let delivery = try #require(files.summary["delivery"])
        let lost = try #require(delivery.int("lost"))
        #expect(lost > 0, "broadcasts went while the server was away")
        #expect((delivery.int("count") ?? 0) + lost == Self.subscribers * configuration.messages)
        let afterwards = try Self.broadcastsAfterEveryReturn(recording, files)
        #expect(afterwards.count >= 20, "the run went on after the returns")
        let undelivered = afterwards.filter { $0.int("delivered") != Self.subscribers }
        let start = recording.startNanoseconds
        #expect(undelivered.isEmpty, "\(undelivered.prefix(3).map { ($0["broadcast"]!, $0["t0_ns"]!) }); outages \(recording.outages.map { ($0.closed &- start, $0.back &- start) }); \(recording.connectionEvents.map { ($0.time &- start, $0.reason) })")
    }

    /// A hung server: the process stopped (SIGSTOP) with its sockets still there, its kernel still taking connects, then
    /// continued. Each subscriber hears nothing past `--dead-after`, takes the server for dead, closes and tries again;
    /// tries that hear nothing fail in turn; once the server goes on, every one is back and the run measures again.
    /// mosquitto, once continued, also reads the tries it accepted while stopped: each connection's client identifier
    /// is its own (``ProtocolSession/connectionName(_:connect:)``), so none of them takes a live session over (with one
    /// identifier per client, a delivery after the returns was lost to such a takeover). The line chat has no ping: its
    /// subscribers hear the run's broadcasts alone, as `--dead-after` on a tcp:// target does (no `--heartbeat`).
    @Test(
        serversInstalled,
        arguments: [Server.nats, .redis, .mosquitto, .wsRelay, .lineChat, .grpcRelay])
    func aServerStoppedMidRunIsFoundDeadAndEverySubscriberComesBackOnceItGoesOn(_ server: Server) throws {
        let log = server == .mosquitto ? NSTemporaryDirectory() + "bench-mosquitto-\(UUID().uuidString).log" : nil
        let (external, target) = try Self.start(server, log: log)
        defer {
            external.stop()
            if let log { try? FileManager.default.removeItem(atPath: log) }
        }
        var configuration = try Self.fanout(server, target, broadcasts: 500)
        // As the command line allows them: a silence longer than the pings' interval, and where there is no ping (the
        // line chat: nothing is sent, as the command line sets it), longer than the run's quietest time, its timeout.
        switch server {
        case .lineChat: (configuration.heartbeat, configuration.timeout, configuration.silenceLimit) = (0, 400_000_000, 500_000_000)
        case .mosquitto: (configuration.heartbeat, configuration.silenceLimit) = (200_000_000, 800_000_000)  // PINGREQ each 0.5 s
        default: (configuration.heartbeat, configuration.silenceLimit) = (200_000_000, 500_000_000)
        }
        let (run, _) = try Self.begin(configuration, .twoThreads)
        run.waitUntilDispatched(30 * Self.subscribers)
        kill(external.process.processIdentifier, SIGSTOP)
        usleep(UInt32(3 * configuration.silenceLimit / 1_000))  // every subscriber takes it for dead meanwhile
        kill(external.process.processIdentifier, SIGCONT)
        let recording = try run.finish()

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        let dead = events.filter { $0.contains("taken for dead") }
        #expect(dead.count >= Self.subscribers, "every subscriber found it dead: \(events.prefix(12))")
        #expect(recording.outages.count >= Self.subscribers && recording.outagesBack == recording.outages.count,
            "\(recording.outages)")
        #expect(recording.clientThreads.gaveUp == 0)
        let files = try RunFiles.write(recording)
        let delivery = try #require(files.summary["delivery"])
        #expect((delivery.int("lost") ?? 0) > 0, "broadcasts went while the server was stopped")
        let afterwards = try Self.broadcastsAfterEveryReturn(recording, files)
        #expect(afterwards.count >= 20, "the run went on after the returns")
        #expect(afterwards.allSatisfy { $0.int("delivered") == Self.subscribers }, "\(afterwards.prefix(3))")
        if let log {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(said.contains("New client connected"), "the broker logged its clients")
            let takeovers = said.split(separator: "\n").filter { $0.contains("already connected") }
            #expect(takeovers.isEmpty, "no connection took another's client identifier over: \(takeovers.prefix(3))")
        }
    }

    /// A round trip's clients (their own topic each, through nats-server and mosquitto) after the server restarts: each
    /// comes back; in open loop the messages due while it was away are lost and counted, in closed loop its next
    /// message waits for it (parked, then sent again on its return). Every message scheduled once all were back is
    /// echoed.
    @Test(
        serversInstalled,
        arguments: [(Server.nats, false), (.nats, true), (.mosquitto, false)])
    func aRoundTripsClientsComeBackAfterTheServerRestarts(_ server: Server, closedLoop: Bool) throws {
        var (external, target) = try Self.start(server)
        defer { external.stop() }
        var configuration = try TargetServerTests.roundtrip(target, clients: Self.subscribers, messages: 400)
        if closedLoop {
            configuration.interval = 0
            configuration.arrival = .fixed
            configuration.messages = 3_000
        }
        configuration.reconnect = Self.backoff
        let (run, _) = try Self.begin(configuration, .twoThreads)
        run.waitUntilDispatched(50 * Self.subscribers)
        try Self.restart(&external)
        let recording = try run.finish()

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(recording.outages.count == Self.subscribers && recording.outagesBack == Self.subscribers, "\(events.prefix(12))")
        let files = try RunFiles.write(recording)
        let lastBack = Int(try #require(recording.outages.map(\.back).max()) &- recording.startNanoseconds)
        let afterwards = files.samples.filter { ($0.int("scheduled_ns") ?? 0) > lastBack }
        #expect(afterwards.count >= 20 * Self.subscribers, "the run went on after the returns")
        #expect(afterwards.allSatisfy { $0["outcome"] == "echoed" }, "\(afterwards.filter { $0["outcome"] != "echoed" }.prefix(3))")
        let rtt = try #require(files.summary["rtt"])
        if closedLoop {
            #expect(rtt.int("lost") ?? 0 <= Self.subscribers, "at most the message in flight at the drop: \(rtt)")
        } else {
            #expect((rtt.int("lost") ?? 0) > 0, "messages fell due while the server was away")
        }
    }

    /// The server killed and not started again: every client of a closed-loop round trip uses its tries and gives up,
    /// each outage is counted as one that did not come back, the rest of each series is lost, and the run ends.
    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func clientsThatGiveUpEndTheRunInsteadOfWaitingForThem() throws {
        let (external, target) = try Self.start(.nats)
        defer { external.stop() }
        var configuration = try TargetServerTests.roundtrip(target, clients: Self.subscribers, messages: 3_000)
        configuration.interval = 0
        configuration.arrival = .fixed
        configuration.reconnect = ReconnectBackoff(base: 20_000_000, maximum: 50_000_000, tries: 2)
        let (run, _) = try Self.begin(configuration, .twoThreads)
        run.waitUntilDispatched(50 * Self.subscribers)
        external.stop()
        let recording = try run.finish()
        #expect(recording.clientThreads.gaveUp == Self.subscribers, "\(recording.connectionEvents.map(\.reason).prefix(8))")
        #expect(recording.outages.count == Self.subscribers && recording.outagesBack == 0)
        let files = try RunFiles.write(recording)
        #expect((files.summary["rtt"]?.int("lost") ?? 0) > 0, "the series of those that gave up is lost")
    }

    /// `--dead-after` on a quiet run (a broadcast every 1.5 s, the limit 600 ms): each subscriber pings every
    /// `--heartbeat` (NATS `PING`, Redis `PING`, a WebSocket ping frame, an HTTP/2 PING) and the answers show the server alive, so none
    /// is taken for dead and every broadcast arrives. Without the pings each was closed in every gap.
    @Test(
        serversInstalled,
        arguments: [Server.nats, .redis, .wsRelay, .grpcRelay])
    func aQuietServerThatAnswersItsPingsIsNotTakenForDead(_ server: Server) throws {
        let (external, target) = try Self.start(server)
        defer { external.stop() }
        var configuration = try Self.fanout(server, target, broadcasts: 3)
        configuration.interval = 1_500_000_000
        configuration.warmup = 1  // a broadcast every 1.5 s: one of warmup leaves the relay time to register
        configuration.silenceLimit = 600_000_000
        configuration.heartbeat = 200_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let events = recording.connectionEvents.map(\.reason)
        #expect(!events.contains { $0.contains("taken for dead") }, "\(events.prefix(6))")
        #expect(recording.outages.isEmpty, "\(events.prefix(6))")
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
    }

    /// broadcasts.csv's rows sent once every subscriber was back (its outage's end) and the publisher too (its event
    /// "publisher: back after …", where it went away), and the measuring thread had heard so: what every subscriber
    /// must have had. A broadcast sent between a return's stamp and the measuring thread hearing of it is the
    /// subscriber's all the same (``TargetClients/receivesNow(_:)``); the 100 ms after the last return are for the
    /// server, which may still be setting the returned subscriptions up.
    static func broadcastsAfterEveryReturn(_ recording: RunRecording, _ files: RunFiles) throws -> [[String: String]] {
        let subscribersBack = try #require(recording.outages.map(\.back).max())
        let publisherBack = recording.connectionEvents.filter { $0.reason.hasPrefix("publisher: back after") }.map(\.time).max()
        let everyoneBack = max(subscribersBack, publisherBack ?? 0) &- recording.startNanoseconds + 100_000_000
        return files.broadcasts.filter { ($0.int("t0_ns") ?? 0) > Int(everyoneBack) }
    }

    /// Kills the server (SIGKILL: every connection ends at once, as in a crash or a deploy's restart) and starts it
    /// again on its port 200 ms later.
    static func restart(_ external: inout ExternalServer) throws {
        external.stop()
        usleep(200_000)
        external = try external.restarted()
    }

    /// The server started, and its target URL; mosquitto logging to `log` when given.
    static func start(_ server: Server, log: String? = nil) throws -> (ExternalServer, String) {
        switch server {
        case .nats:
            let external = try ExternalServer.start(name: "nats") { port in
                (TargetServerTests.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)"])
            }
            return (external, "nats://127.0.0.1:\(external.port)/deploy")
        case .redis:
            let external = try ExternalServer.start(name: "redis") { port in
                (TargetServerTests.redisServer, ["--port", "\(port)", "--save", "", "--appendonly", "no"])
            }
            return (external, "redis://127.0.0.1:\(external.port)/deploy")
        case .mosquitto:
            let external = try MQTTInteropTests.broker(log: log)
            return (external, "mqtt://127.0.0.1:\(external.port)/deploy")
        case .wsRelay:
            let external = try ExternalServer.python("ws_broadcast_server.py")
            return (external, "ws://127.0.0.1:\(external.port)/")
        case .lineChat:
            let external = try ExternalServer.python("line_chat_server.py")
            return (external, "tcp://127.0.0.1:\(external.port)")
        case .grpcRelay:
            let external = try ExternalServer.python("grpc_relay_server.py")
            return (external, "grpc://127.0.0.1:\(external.port)/bench.Relay/Subscribe")
        }
    }

    /// The run started in the background with its clients on two threads, or in two agents on threads of the test.
    static func begin(
        _ configuration: RunConfiguration, _ placement: Placement
    ) throws -> (BackgroundRun, [NativeThread<Result<AgentRunner.Outcome, RunError>>]) {
        var configuration = configuration
        switch placement {
        case .twoThreads:
            configuration.clientThreads = 2
            return (try BackgroundRun(configuration), [])
        case .twoAgents:
            return try BackgroundRun.withAgents(configuration, agents: 2, clientsEach: subscribers / 2, token: "deploy")
        }
    }
}
