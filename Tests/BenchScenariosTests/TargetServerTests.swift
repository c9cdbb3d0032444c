@testable import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchProtocols
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// `--target` end to end: the harness measuring real servers nobody here wrote (redis-server, nats-server, and
/// servers written with Python's `websockets` and `asyncio` in Tests/Fixtures), each started on a free loopback port
/// and killed after the run. Every run is small and bounded: tens of messages, 5–10 ms apart, a 2 s timeout and a
/// 15 s setup timeout. Serialized: on a 2-core machine two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetServerTests {
    static let redisServer = "/usr/bin/redis-server"
    static let natsServer = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let hasRedis = FileManager.default.isExecutableFile(atPath: redisServer)
    static let hasNATS = natsServer != nil

    /// A nats-server whose WebSocket listener (without TLS) is the port returned; its client port is its own choice.
    static func natsOverWebSocket() throws -> ExternalServer {
        let folder = NSTemporaryDirectory() + "bench-nats-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return try ExternalServer.start(name: "nats-ws") { port in
            let configuration = folder + "/nats-\(port).conf"
            try? "host: 127.0.0.1\nport: -1\nwebsocket {\n  listen: \"127.0.0.1:\(port)\"\n  no_tls: true\n}\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            return (Self.natsServer!, ["-c", configuration])
        }
    }
    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    // MARK: Redis

    /// On one subscriber thread and on three (`--client-threads`), each reporting to the measuring thread.
    @Test(.enabled(if: hasRedis, "redis-server is not installed: apt-get install -y redis-server"), arguments: [1, 3])
    func fanoutThroughRedisDeliversEveryBroadcastToTwoHundredSubscribers(threads: Int) throws {
        let server = try ExternalServer.start(name: "redis") { port in
            (Self.redisServer, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        }
        defer { server.stop() }
        let target = "redis://127.0.0.1:\(server.port)/news"
        var configuration = try Self.fanout(target, subscribers: 200, broadcasts: 30)
        configuration.clientThreads = threads
        configuration.messages = 200  // 2 s: each subscribers' thread reports its load a second after all subscribed
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try Self.expectEveryBroadcastDelivered(recording, target: target)
        let load = try #require(recording.busiestClientThreadPercent, "the subscribers' threads reported their load")
        #expect(load > 0 && load <= 100)
    }

    @Test(.enabled(if: hasRedis, "redis-server is not installed: apt-get install -y redis-server"))
    func fanoutThroughRedisWithAPasswordAuthenticatesEveryConnection() throws {
        let server = try ExternalServer.start(name: "redis-auth") { port in
            (Self.redisServer, [
                "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--requirepass", "s3cret",
            ])
        }
        defer { server.stop() }
        let configuration = try Self.fanout("redis://:s3cret@127.0.0.1:\(server.port)/news", subscribers: 5, broadcasts: 30)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        // The password never reaches a report: run.csv says :***@.
        let files = try Self.expectEveryBroadcastDelivered(recording, target: "redis://:***@127.0.0.1:\(server.port)/news")
        let everything = try String(contentsOfFile: files.folder + "/run.csv", encoding: .utf8)
        #expect(!everything.contains("s3cret"), "the password leaked into run.csv")
    }

    /// Redis answers AUTH with -WRONGPASS and SUBSCRIBE with -NOAUTH: no subscriber is ever confirmed, so the run
    /// fails its setup when the setup timeout passes (and does not hang).
    @Test(.enabled(if: hasRedis, "redis-server is not installed: apt-get install -y redis-server"))
    func aWrongRedisPasswordFailsTheSetupAtOnceWithRedisOwnAnswer() throws {
        let server = try ExternalServer.start(name: "redis-auth") { port in
            (Self.redisServer, [
                "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--requirepass", "s3cret",
            ])
        }
        defer { server.stop() }
        var configuration = try Self.fanout("redis://:wrong@127.0.0.1:\(server.port)/news", subscribers: 5, broadcasts: 10)
        configuration.setupTimeout = 60_000_000_000  // far beyond the bound below: waiting it out fails the test
        let started = Date()
        let control = try RunControl()
        do throws(RunError) {
            let recording = try ScenarioRunner.run(configuration, control: control)
            Issue.record("a run with a wrong password did not fail: \(recording.status), \(recording.connectionEvents.map(\.reason))")
        } catch {
            guard case .setupFailed(let reason) = error else {
                Issue.record("expected a setup failure, got \(error)")
                return
            }
            // Redis's own answer to the wrong password, at once rather than after the setup timeout.
            #expect(reason.contains("refused") && (reason.contains("WRONGPASS") || reason.contains("NOAUTH")), "\(reason)")
            #expect(!reason.contains("wrong"), "the password leaked into the error: \(reason)")
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 30, "the refusal ends the setup at once, not at the 60 s setup timeout; it took \(elapsed) s")
    }

    // MARK: NATS

    @Test(.enabled(if: hasNATS, "nats-server is not installed: apt-get install -y nats-server"), arguments: [1, 3])
    func fanoutThroughNATSDeliversEveryBroadcastToTwoHundredSubscribers(threads: Int) throws {
        let server = try ExternalServer.start(name: "nats") { port in
            (Self.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)"])
        }
        defer { server.stop() }
        let target = "nats://127.0.0.1:\(server.port)/news"
        var configuration = try Self.fanout(target, subscribers: 200, broadcasts: 30)
        configuration.clientThreads = threads
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try Self.expectEveryBroadcastDelivered(recording, target: target)
    }

    /// Roundtrip through NATS: each client subscribes to `bench.<client>` and publishes there, on one thread and on two.
    @Test(.enabled(if: hasNATS, "nats-server is not installed: apt-get install -y nats-server"), arguments: [1, 2])
    func roundtripThroughNATSEchoesEveryMessageToItsOwnClient(threads: Int) throws {
        let server = try ExternalServer.start(name: "nats") { port in (Self.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)"]) }
        defer { server.stop() }
        let target = "nats://127.0.0.1:\(server.port)/bench"
        var configuration = try Self.roundtrip(target, clients: 20, messages: 30)
        configuration.clientThreads = threads
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        _ = try Self.expectEveryMessageEchoed(recording, target: target)
    }

    // MARK: WebSocket servers written with Python's websockets

    /// Closed loop (interval 0) and open loop (a fixed 5 ms timetable).
    @Test(
        .enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"),
        arguments: [UInt64(0), 5_000_000])
    func roundtripThroughAPythonWebSocketEchoServerEchoesEveryMessage(interval: UInt64) throws {
        let server = try ExternalServer.python("ws_echo_server.py")
        defer { server.stop() }
        let target = "ws://127.0.0.1:\(server.port)/"
        var configuration = try Self.roundtrip(target, clients: 3, messages: 30)
        configuration.interval = interval
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let files = try Self.expectEveryMessageEchoed(recording, target: target)
        #expect(files.settings["arrival"] == (interval == 0 ? "closed-loop" : "fixed"))
        if interval == 0 {
            for client in 0..<3 {
                let rows = files.samples.filter { $0.int("client") == client }
                for (previous, next) in zip(rows, rows.dropFirst()) {
                    #expect(next.int("sent_ns")! >= previous.int("echo_ns")!, "one message in flight per client")
                }
            }
        }
    }

    @Test(.enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"))
    func fanoutThroughAPythonWebSocketRelayWithAJSONTemplateDeliversEveryBroadcast() throws {
        let server = try ExternalServer.python("ws_broadcast_server.py")
        defer { server.stop() }
        let target = "ws://127.0.0.1:\(server.port)/"
        var configuration = try Self.fanout(target, subscribers: 20, broadcasts: 30)
        configuration.warmup = 3  // the relay registers a connection just after its handshake
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate("{\"type\":\"broadcast\",\"payload\":\"{marker}{padding}\"}") }
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try Self.expectEveryBroadcastDelivered(recording, target: target)
    }

    // MARK: asyncio servers over plain TCP

    @Test(
        .enabled(if: hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: MessageFraming.allCases)
    func roundtripThroughARawTCPEchoServerEchoesEveryMessageInEveryFraming(_ framing: MessageFraming) throws {
        let server = try ExternalServer.python("framed_echo_server.py")
        defer { server.stop() }
        let target = "tcp://127.0.0.1:\(server.port)"
        var configuration = try Self.roundtrip(target, clients: 3, messages: 30)
        configuration.changeTarget { $0.framing = framing }
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let files = try Self.expectEveryMessageEchoed(recording, target: target)
        #expect(files.settings["framing"] == framing.rawValue)
    }

    /// A fanout through Redis with kernel stamps: every subscriber's receive and the publisher's send are stamped, so
    /// the order this thread reads the subscribers in stays out of delivery and spread (stack shows how long they waited).
    @Test(.enabled(if: hasRedis, "redis-server is not installed: apt-get install -y redis-server"))
    func fanoutThroughRedisTakesTheKernelsStamps() throws {
        let server = try ExternalServer.start(name: "redis") { port in
            (Self.redisServer, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        }
        defer { server.stop() }
        let target = "redis://127.0.0.1:\(server.port)/news"
        var configuration = try Self.fanout(target, subscribers: 20, broadcasts: 20)
        configuration.timestamps = .both
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.missingKernelStamps.send == 0 && recording.missingKernelStamps.receive == 0)
        let files = try Self.expectEveryBroadcastDelivered(recording, target: target)
        #expect(files.summary["stack"]?.int("count") == 20 * 20)
        for row in files.samples {
            #expect(row.int("user_recv_ns")! >= row.int("recv_ns")!, "the read comes after the kernel's stamp: \(row)")
        }
    }

    /// With kernel stamps (the default of a roundtrip run), every send has its transmit stamp and every echo its receive
    /// stamp, and the rows' rtt is the kernel's echo stamp − its send stamp.
    @Test(.enabled(if: hasPython, "python3 is not installed: apt-get install -y python3"))
    func roundtripThroughATargetTakesTheKernelsStamps() throws {
        let server = try ExternalServer.python("framed_echo_server.py")
        defer { server.stop() }
        let target = "tcp://127.0.0.1:\(server.port)"
        var configuration = try Self.roundtrip(target, clients: 2, messages: 30)
        configuration.timestamps = .both
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.missingKernelStamps.send == 0 && recording.missingKernelStamps.receive == 0)
        let files = try RunFiles.write(recording)
        for row in files.samples {
            let (sent, echo, rtt) = (row.int("sent_ns")!, row.int("echo_ns")!, row.int("rtt_ns")!)
            #expect(rtt == echo - sent, "\(row)")
            #expect(row.int("user_sent_ns")! <= sent + 1_000 && row.int("user_echo_ns")! >= echo, "\(row)")
        }
        #expect(files.summary["stack"]?.int("count") == 60)
    }

    /// The chat server greets every JOIN with a line without a marker: one event per subscriber, and the run goes on.
    @Test(.enabled(if: hasPython, "python3 is not installed: apt-get install -y python3"))
    func fanoutThroughALineChatServerReportsItsGreetingAndDeliversEveryBroadcast() throws {
        let server = try ExternalServer.python("line_chat_server.py")
        defer { server.stop() }
        let target = "tcp://127.0.0.1:\(server.port)"
        let subscribers = 10
        var configuration = try Self.fanout(target, subscribers: subscribers, broadcasts: 30)
        configuration.warmup = 3  // a JOIN may reach the server after the first broadcast
        configuration.changeTarget { $0.framing = .line }
        configuration.changeTarget { $0.subscribeText = "JOIN" }
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate("{marker}{padding}") }
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        let events = recording.connectionEvents
        #expect(events.count == subscribers, "\(events.map(\.reason))")
        #expect(events.allSatisfy { $0.reason.contains("without a bench marker") }, "\(events.map(\.reason))")
        // What it was, in its first bytes (the old note gave its length alone).
        #expect(events.allSatisfy { $0.reason.contains("bytes: \"hello, no marker here") }, "\(events.map(\.reason))")
        #expect(events.compactMap(\.client).sorted() == Array(0..<subscribers), "one greeting per subscriber")
        let files = try Self.expectMeasuredBroadcastsDelivered(recording, target: target)
        #expect(files.settings["framing"] == "line")
        #expect(files.events.count == subscribers)
        #expect(files.events.allSatisfy { $0["reason"]?.contains("without a bench marker") == true }, "\(files.events)")
    }

    // MARK: Targets that cannot be measured

    @Test(arguments: [Scenario.roundtrip, .fanout])
    func aTargetNobodyListensOnFailsTheSetupAsRefused(_ scenario: Scenario) throws {
        let port = try ExternalServer.freePort()
        let configuration = scenario == .fanout
            ? try Self.fanout("tcp://127.0.0.1:\(port)", subscribers: 3, broadcasts: 10)
            : try Self.roundtrip("tcp://127.0.0.1:\(port)", clients: 3, messages: 10)
        let started = Date()
        do {
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            Issue.record("a run against a closed port did not fail: \(recording.status)")
        } catch {
            #expect("\(error)".contains("refused"), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 5, "a refused connection fails at once, not at the setup timeout")
    }

    /// A described handshake stuck at a step (the server echoes the greeting and never sends what the description
    /// awaits): the setup fails naming the step each side waits at and the last message it had (the old error said
    /// only "0 of 2 subscribers were ready").
    @Test(.enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"))
    func aHandshakeStuckAtAStepNamesItWhenTheSetupTimesOut() throws {
        let server = try ExternalServer.python("ws_echo_server.py")
        defer { server.stop() }
        var configuration = try Self.fanout("ws://127.0.0.1:\(server.port)/", subscribers: 2, broadcasts: 5)
        configuration.setupTimeout = 4_000_000_000  // the note half-way in, with 2 s to spare on a busy machine
        let description = try ProtocolDescription(parsing: "send <open/>\nexpect <stream-ready/>", name: "stuck.protocol")
        configuration.changeTarget { $0.protocolDescription = description }
        do {
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            Issue.record("a stuck handshake did not fail the setup: \(recording.status)")
        } catch {
            let text = "\(error)"
            #expect(text.contains("0 of 2 subscribers were ready"), "\(text)")
            #expect(text.contains("the publisher was not either (waiting at step 2 of 2, expect <stream-ready/>; the last message: <open/>)"), "\(text)")
            #expect(text.contains("handshake: waiting at step 2 of 2, expect <stream-ready/>; the last message: <open/>"), "\(text)")
        }
    }

    // MARK: Configurations

    static func base(_ scenario: Scenario, _ target: String, clients: Int, messages: Int) throws -> RunConfiguration {
        var configuration = RunConfiguration(scenario: scenario, seed: 97)
        configuration.role = .target(TargetSettings(try TargetURL(target)), agentToken: nil)
        configuration.timestamps = .user
        configuration.clientThreads = 1
        configuration.clients = clients
        configuration.messages = messages
        configuration.warmup = 2
        configuration.arrival = .fixed
        configuration.timeout = 2_000_000_000
        configuration.setupTimeout = 15_000_000_000
        return configuration
    }

    /// `subscribers`, `broadcasts` measured ones every 10 ms (fixed), 2 of warmup.
    static func fanout(_ target: String, subscribers: Int, broadcasts: Int) throws -> RunConfiguration {
        var configuration = try base(.fanout, target, clients: subscribers, messages: broadcasts)
        configuration.interval = 10_000_000
        return configuration
    }

    /// `clients`, each sending `messages` measured ones every 5 ms (fixed), 2 of warmup.
    static func roundtrip(_ target: String, clients: Int, messages: Int) throws -> RunConfiguration {
        var configuration = try base(.roundtrip, target, clients: clients, messages: messages)
        configuration.interval = 5_000_000
        return configuration
    }

    // MARK: Checks

    /// A complete fanout, without events: every subscriber connected, every broadcast delivered to each.
    @discardableResult
    static func expectEveryBroadcastDelivered(_ recording: RunRecording, target: String) throws -> RunFiles {
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        return try expectMeasuredBroadcastsDelivered(recording, target: target)
    }

    /// Every measured broadcast delivered to every subscriber, and the report's rows recompute from its samples.
    @discardableResult
    static func expectMeasuredBroadcastsDelivered(_ recording: RunRecording, target: String) throws -> RunFiles {
        let configuration = recording.configuration
        let clients = configuration.clients, messages = configuration.messages, warmup = configuration.warmup
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.connectTimes.count == clients)
        #expect(recording.connectTimes.allSatisfy { $0 > 0 }, "a connect time for every subscriber: \(recording.connectTimes)")
        var missing: [String] = []
        for sequence in warmup..<configuration.sequencesPerClient {
            for client in 0..<clients {
                let outcome = recording.ledger.outcome[recording.ledger.messageIndex(sequence: sequence, client: client)]
                if outcome != .echoed { missing.append("broadcast \(sequence) to \(client): \(outcome)") }
            }
        }
        #expect(missing.isEmpty, "\(missing.prefix(20))")

        let files = try RunFiles.write(recording)
        #expect(files.settings["status"] == "complete")
        #expect(files.settings["target"] == target)
        #expect(files.samples.count == clients * messages)
        for row in files.samples {
            // A target's subscribers only read: "delivered", never "echoed" (which it said on the old code).
            #expect(row["lost"] == "0" && row["outcome"] == "delivered", "\(row)")
            let t0 = try #require(row.int("t0_ns")), received = try #require(row.int("recv_ns"))
            #expect(t0 <= received, "\(row)")
            #expect(row.int("delivery_ns") == received - t0, "\(row)")
            #expect(row["rtt_ns"]?.isEmpty != false, "a user's server echoes nothing: \(row)")
        }
        let byBroadcast = Dictionary(grouping: files.samples) { $0.int("broadcast")! }
        #expect(byBroadcast.keys.sorted() == Array(0..<messages))
        #expect(files.broadcasts.count == messages)
        for broadcast in files.broadcasts {
            let index = try #require(broadcast.int("broadcast"))
            let rows = byBroadcast[index] ?? []
            #expect(rows.map { $0.int("client")! }.sorted() == Array(0..<clients), "each subscriber once: broadcast \(index)")
            let received = rows.compactMap { $0.int("recv_ns") }
            let t0 = try #require(broadcast.int("t0_ns"))
            #expect(rows.allSatisfy { $0.int("t0_ns") == t0 }, "broadcast \(index): one t0")
            #expect(broadcast.int("delivered") == clients, "\(broadcast)")
            #expect(broadcast.int("lost") == 0, "\(broadcast)")
            guard let last = received.max(), let first = received.min() else { continue }
            #expect(broadcast.int("first_ns") == first, "\(broadcast)")
            #expect(broadcast.int("last_ns") == last, "\(broadcast)")
            #expect(broadcast.int("spread_ns") == last - first, "\(broadcast)")
            #expect(broadcast.int("completion_ns") == last - t0, "\(broadcast)")
        }
        let metrics = Set(files.summary.keys)
        #expect(metrics.isSuperset(of: ["delivery", "spread", "completion", "lag", "connect"]), "\(metrics.sorted())")
        #expect(!metrics.contains("rtt"), "a fanout through a user's server has no rtt: \(metrics.sorted())")
        let delivery = try #require(files.summary["delivery"])
        #expect(delivery.int("count") == clients * messages)
        #expect(delivery.int("lost") == 0)
        let deliveries = files.samples.map { $0.int("delivery_ns")! }.sorted()
        #expect(delivery.double("p50_us") == Double(exactPercentile(deliveries, 50)) / 1000)
        #expect(files.summary["connect"]?.int("count") == clients)
        return files
    }

    /// A complete roundtrip, without events: every message echoed, rtt = echo − sent per row.
    @discardableResult
    static func expectEveryMessageEchoed(_ recording: RunRecording, target: String) throws -> RunFiles {
        let configuration = recording.configuration
        let clients = configuration.clients, messages = configuration.messages
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.connectTimes.count == clients && recording.connectTimes.allSatisfy { $0 > 0 })
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "warmup included")

        let files = try RunFiles.write(recording)
        #expect(files.settings["status"] == "complete")
        #expect(files.settings["target"] == target)
        #expect(files.samples.count == clients * messages)
        for client in 0..<clients {
            #expect(files.samples.filter { $0.int("client") == client }.map { $0.int("seq")! } == Array(0..<messages))
        }
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            let sent = try #require(row.int("sent_ns")), echo = try #require(row.int("echo_ns"))
            #expect(sent <= echo, "\(row)")
            #expect(row.int("rtt_ns") == echo - sent, "\(row)")
        }
        let rtt = try #require(files.summary["rtt"])
        #expect(rtt.int("count") == clients * messages)
        #expect(rtt.int("lost") == 0)
        let rtts = files.samples.map { $0.int("rtt_ns")! }.sorted()
        #expect(rtt.double("p99_us") == Double(exactPercentile(rtts, 99)) / 1000)
        return files
    }
}

/// A server nobody here wrote, started on a free loopback port with its output in a temporary file, killed by the test.
final class ExternalServer {
    let name: String
    let port: UInt16
    let process: Process
    let logPath: String
    /// What started it, for a start again on the same port (``restarted()``).
    private let command: (executable: String, arguments: [String])

    private init(name: String, port: UInt16, process: Process, logPath: String, command: (String, [String])) {
        self.name = name
        self.port = port
        self.process = process
        self.logPath = logPath
        self.command = command
    }

    /// A fixture in Tests/Fixtures run by /usr/bin/python3 with the port as its argument.
    static func python(_ script: String, _ arguments: String...) throws -> ExternalServer {
        try start(name: script) { port in
            ("/usr/bin/python3", [TargetServerTests.fixtures + "/" + script, "\(port)"] + arguments)
        }
    }

    /// Picks a free port, starts `command(port)` and waits (up to 5 s) until the port accepts; a server that exits
    /// first (the port was taken in between) is tried again on another port.
    static func start(name: String, _ command: (UInt16) -> (String, [String])) throws -> ExternalServer {
        var failures: [String] = []
        for _ in 0..<3 {
            let port = try freePort()
            switch try launch(name: name, port: port, command: command(port)) {
            case .success(let server): return server
            case .failure(let output): failures.append("port \(port): \(output)")
            }
        }
        throw SystemError("\(name) did not accept connections within 5 s: \(failures)", errno: ETIMEDOUT)
    }

    /// The same server started again on its port, once this one has ended (a deploy's restart: ``stop()`` first).
    func restarted() throws -> ExternalServer {
        switch try Self.launch(name: name, port: port, command: command) {
        case .success(let server): return server
        case .failure(let output): throw SystemError("\(name) did not start again on \(port): \(output)", errno: ETIMEDOUT)
        }
    }

    /// Starts `command` and waits (up to 5 s) until `port` accepts: the server, or the end of its output when it
    /// exited or did not listen in time.
    private static func launch(
        name: String, port: UInt16, command: (String, [String])
    ) throws -> Result<ExternalServer, LaunchFailure> {
        let logPath = NSTemporaryDirectory() + "bench-target-\(name)-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.0)
        process.arguments = command.1
        process.currentDirectoryURL = URL(fileURLWithPath: NSTemporaryDirectory())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try? log.close()
        let server = ExternalServer(name: name, port: port, process: process, logPath: logPath, command: command)
        for _ in 0..<250 where process.isRunning {
            if accepts(port) { return .success(server) }
            usleep(20_000)
        }
        let output = String(server.log().suffix(500))
        server.stop()
        return .failure(LaunchFailure(output: output))
    }

    /// What a server that did not start wrote last.
    struct LaunchFailure: Error, CustomStringConvertible {
        let output: String
        var description: String { output }
    }

    /// A port nothing listens on just now: bound to port 0, read back, closed.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno: errno) }
        defer { Posix.close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SystemError("bind", errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw SystemError("getsockname", errno: errno) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// True when a connection to 127.0.0.1:`port` is accepted (it is closed at once).
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Posix.close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGKILL at once: a child of Foundation's `Process` here inherits a signal mask that blocks SIGTERM (seen in
    /// /proc/PID/status), so `terminate()` would only wait; these servers keep nothing worth a clean shutdown.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }  // a stopped one (SIGSTOP) too
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: logPath)
    }
}
