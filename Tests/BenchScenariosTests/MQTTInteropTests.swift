@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing
import BenchProtocols

@testable import BenchScenarios

/// `bench fanout --target mqtt://…` against a real broker (Debian's mosquitto, started on a free loopback port with
/// a configuration of its own and killed after): every QoS, a run longer than three keepalives whose subscribers only
/// receive, and a wrong password. Serialized, as the other real servers' tests: two runs at once would only measure
/// each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct MQTTInteropTests {
    static let mosquitto = "/usr/sbin/mosquitto"
    static let hasMosquitto = FileManager.default.isExecutableFile(atPath: mosquitto)
    static let notice: Comment = "mosquitto is not installed: apt-get install -y mosquitto"

    /// A broker on 127.0.0.1; with `password`, only user `bench` with it may connect; with `webSocket`, its listener
    /// speaks MQTT over WebSocket (at any path, subprotocol `mqtt`); with `log`, it logs (connects, takeovers) to that file.
    static func broker(password: String? = nil, webSocket: Bool = false, log: String? = nil) throws -> ExternalServer {
        let folder = NSTemporaryDirectory() + "bench-mqtt-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // mosquitto started as root runs as its own user: it must be able to make its Unix socket here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder)
        var access = "allow_anonymous true\n"
        if let password {
            try "bench:\(password)\n".write(toFile: folder + "/passwords", atomically: true, encoding: .utf8)
            let hash = Process()
            hash.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
            hash.arguments = ["-U", folder + "/passwords"]
            try hash.run()
            hash.waitUntilExit()
            access = "allow_anonymous false\npassword_file \(folder)/passwords\n"
        }
        return try ExternalServer.start(name: "mosquitto") { port in
            let configuration = folder + "/mosquitto-\(port).conf"
            // mosquitto 2.0 with libwebsockets starts only beside a listener of its own kind: a Unix socket's, unused;
            // its WebSocket listener binds every address, so it is held to the loopback interface.
            let protocolLine = webSocket
                ? "protocol websockets\nbind_interface lo\nlistener 0 \(folder)/mqtt-\(port).sock\n" : ""
            let logLine = log.map { "log_dest file \($0)\nlog_type all\n" } ?? ""
            try? "listener \(port) 127.0.0.1\n\(protocolLine)\(access)\(logLine)".write(toFile: configuration, atomically: true, encoding: .utf8)
            return (Self.mosquitto, ["-c", configuration])
        }
    }

    @Test(.enabled(if: hasMosquitto, notice), arguments: [UInt8(0), 1, 2])
    func fanoutAtEachQoSDeliversEveryBroadcastToEverySubscriber(qos: UInt8) throws {
        let server = try Self.broker()
        defer { server.stop() }
        let target = "mqtt://127.0.0.1:\(server.port)/prices"
        var configuration = try TargetServerTests.fanout(target, subscribers: 100, broadcasts: 30)
        configuration.changeTarget { $0.qos = qos }
        configuration.clientThreads = qos == 1 ? 2 : 1
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
    }

    /// Roundtrip: each client subscribes to `prices/<client>` and publishes there; at QoS 0 and 1, on two threads, every
    /// message comes back to its own client.
    @Test(.enabled(if: hasMosquitto, notice), arguments: [UInt8(0), 1])
    func roundtripAtEachQoSEchoesEveryMessageToItsOwnClient(qos: UInt8) throws {
        let server = try Self.broker()
        defer { server.stop() }
        let target = "mqtt://127.0.0.1:\(server.port)/prices"
        var configuration = try TargetServerTests.roundtrip(target, clients: 20, messages: 30)
        configuration.changeTarget { $0.qos = qos }
        configuration.clientThreads = 2
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        _ = try TargetServerTests.expectEveryMessageEchoed(recording, target: target)
    }

    /// A keepalive of 1 s (from --heartbeat): the broker drops a client silent for 1.5 s, and subscribers at QoS 0 only
    /// receive, every 2 s. Their PINGREQs keep them over 8 s: every broadcast arrives and no connection closes.
    @Test(.enabled(if: hasMosquitto, notice))
    func subscribersThatOnlyReceiveOutliveThreeKeepalives() throws {
        let server = try Self.broker()
        defer { server.stop() }
        let target = "mqtt://127.0.0.1:\(server.port)/prices"
        var configuration = try TargetServerTests.fanout(target, subscribers: 10, broadcasts: 3)
        configuration.heartbeat = 1_000_000_000
        configuration.deadAfter = 0
        configuration.interval = 2_000_000_000
        configuration.warmup = 1
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        #expect(recording.endNanoseconds - recording.startNanoseconds > 3_000_000_000, "longer than three keepalives")
    }

    /// The publisher connects first and waits for the subscribers: a setup longer than 1.5 keepalives (10,000
    /// subscribers took 12 s) used to end with the broker closing the silent publisher ("exceeded timeout") and the run
    /// failing, when the broker's check came in time. Here 6 subscribers paced 1 a second take 5 s behind a 1 s
    /// keepalive: the publisher sends its PINGREQs meanwhile (the broker's log counts them; it sent none before).
    @Test(.enabled(if: hasMosquitto, notice))
    func thePublisherKeepsAliveThroughALongSetup() throws {
        let log = NSTemporaryDirectory() + "bench-mqtt-keepalive-\(UUID().uuidString).log"
        let server = try Self.broker(log: log)
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let target = "mqtt://127.0.0.1:\(server.port)/prices"
        var configuration = try TargetServerTests.fanout(target, subscribers: 6, broadcasts: 3)
        configuration.heartbeat = 1_000_000_000
        configuration.deadAfter = 0
        configuration.connectInterval = 1_000_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        let pings = lines.filter { $0.contains("Received PINGREQ from ") && $0.hasSuffix("-p") }
        #expect(pings.count >= 3, "a PINGREQ every half keepalive through 5 s of setup: \(pings.count)")
    }

    @Test(.enabled(if: hasMosquitto && FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd"), notice))
    func aWrongPasswordFailsTheSetupAtOnceWithTheBrokersReturnCode() throws {
        let server = try Self.broker(password: "s3cret")
        defer { server.stop() }
        var configuration = try TargetServerTests.fanout(
            "mqtt://bench:wrong@127.0.0.1:\(server.port)/prices", subscribers: 3, broadcasts: 5)
        configuration.setupTimeout = 60_000_000_000
        let started = Date()
        let control = try RunControl()
        do throws(RunError) {
            _ = try ScenarioRunner.run(configuration, control: control)
            Issue.record("a wrong password did not fail the run")
        } catch {
            if case .setupFailed(let reason) = error {
                #expect(reason.contains("CONNACK refused the connection"), "\(reason)")
                #expect(!reason.contains("wrong"), "the password leaked: \(reason)")
            } else {
                Issue.record("expected a setup failure, got \(error)")
            }
        }
        #expect(Date().timeIntervalSince(started) < 30, "at once, not at the 60 s setup timeout")
        var right = configuration
        right.role = .target(TargetSettings(try TargetURL("mqtt://bench:s3cret@127.0.0.1:\(server.port)/prices")), agentToken: nil)
        let recording = try ScenarioRunner.run(right, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: "mqtt://bench:***@127.0.0.1:\(server.port)/prices")
    }
}
