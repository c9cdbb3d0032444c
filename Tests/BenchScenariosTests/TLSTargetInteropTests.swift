@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing
import BenchProtocols

@testable import BenchScenarios

/// The push protocols over TLS, against real servers given a self-signed certificate that the run pins (`--tls-ca`):
/// mqtts:// (mosquitto with a TLS listener) fanout and roundtrip, sses:// with an https:// publish URL (the standard
/// library's SSE server), socketios:// roundtrip at an Engine.IO path of its own (`--ws-path`), each client's connect
/// in its phases (TCP, TLS, the WebSocket upgrade where there is one, the protocol's handshake). Serialized, as the
/// other real servers' tests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TLSTargetInteropTests {
    static let openSSL = TLSTools.openSSLLoads && TLSTools.hasOpenSSLTool

    @Test(.enabled(if: openSSL && MQTTInteropTests.hasMosquitto, "mosquitto or OpenSSL 3 is not installed: apt-get install -y mosquitto openssl libssl3"),
        arguments: [Scenario.fanout, .roundtrip])
    func mqttOverTLSMeasuresEveryMessage(_ scenario: Scenario) throws {
        let folder = try TemporaryFolder()
        let (certificate, key) = try folder.makeCertificate(named: "broker")
        // mosquitto started as root reads its files as the user mosquitto.
        for (path, mode) in [(folder.path, 0o755), (certificate, 0o644), (key, 0o644)] { chmod(path, mode_t(mode)) }
        let server = try ExternalServer.start(name: "mosquitto-tls") { port in
            let configuration = folder.path + "/mosquitto-\(port).conf"
            try? "listener \(port) 127.0.0.1\ncertfile \(certificate)\nkeyfile \(key)\nallow_anonymous true\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            return (MQTTInteropTests.mosquitto, ["-c", configuration])
        }
        defer { server.stop() }
        let target = "mqtts://127.0.0.1:\(server.port)/prices"
        var configuration = scenario == .fanout
            ? try TargetServerTests.fanout(target, subscribers: 20, broadcasts: 20)
            : try TargetServerTests.roundtrip(target, clients: 10, messages: 20)
        configuration.tlsTrust = .pin(path: certificate)
        configuration.changeTarget { $0.qos = 1 }
        try Self.expectEveryMessageMeasured(configuration, target: target)
    }

    /// Runs `configuration` against `target`: every broadcast delivered (fanout) or message echoed (roundtrip), each
    /// connect in its TCP and TLS phases.
    static func expectEveryMessageMeasured(_ configuration: RunConfiguration, target: String) throws {
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        if configuration.scenario == .fanout {
            try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        } else {
            _ = try TargetServerTests.expectEveryMessageEchoed(recording, target: target)
        }
        expectConnectPhases(recording, webSocket: false)
    }

    /// Every client's connect in its phases: a TCP connect and a TLS handshake that took time, a WebSocket upgrade
    /// exactly where the scheme has one, and the first three adding up to its connect time; the run reports the
    /// phases its scheme has.
    static func expectConnectPhases(_ recording: RunRecording, webSocket: Bool) {
        let clients = recording.configuration.clients
        #expect(recording.connectPhases.count == clients && recording.connectTimes.allSatisfy { $0 > 0 })
        for (reported, time) in zip(recording.connectPhases, recording.connectTimes) {
            guard let phases = reported else {
                Issue.record("a client reported no phases")
                continue
            }
            #expect(phases.tcp > 0 && phases.tls > 0 && (phases.webSocket > 0) == webSocket, "\(phases)")
            #expect(phases.tcp + phases.tls + phases.webSocket == time, "\(phases) against \(time) ns")
        }
        let analysis = RunAnalysis(recording: recording)
        let reported = analysis.summaries.map(\.metric)
        #expect(reported.contains("connect_tls") && reported.contains("subscribe") && reported.contains("connect_ws") == webSocket)
        #expect(analysis.summary(of: .connectTLS)?.count == clients)
    }

    @Test(.enabled(if: openSSL, "OpenSSL 3 is not installed: apt-get install -y openssl libssl3"))
    func serverSentEventsOverTLSDeliverEveryBroadcast() throws {
        try Self.withEventsOverTLS { certificate, port in
            let target = "sses://127.0.0.1:\(port)/events"
            var configuration = try TargetServerTests.fanout(target, subscribers: 10, broadcasts: 20)
            try configuration.changeTarget { $0.publishURL = try TargetURL("https://127.0.0.1:\(port)/publish") }
            configuration.tlsTrust = .pin(path: certificate)
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        }
    }

    /// gRPC over TLS (grpcs://): HTTP/2 chosen by ALPN, every message measured, each connect in its phases.
    @Test(.enabled(if: openSSL && GRPCInteropTests.hasGRPC, "python3-grpcio or OpenSSL 3 is not installed"),
        arguments: [Scenario.fanout, .roundtrip])
    func grpcOverTLSMeasuresEveryMessage(_ scenario: Scenario) throws {
        let folder = try TemporaryFolder()
        let (certificate, key) = try folder.makeCertificate(named: "relay")
        let server = try ExternalServer.python("grpc_relay_server.py", certificate, key)
        defer { server.stop() }
        let target = "grpcs://127.0.0.1:\(server.port)/bench.Relay/" + (scenario == .fanout ? "Subscribe" : "Echo")
        var configuration: RunConfiguration
        if scenario == .fanout {
            configuration = try TargetServerTests.fanout(target, subscribers: 10, broadcasts: 20)
            try GRPCInteropTests.relay(&configuration)
        } else {
            configuration = try TargetServerTests.roundtrip(target, clients: 6, messages: 20)
            try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"2: "{marker}{padding}""#) }
        }
        configuration.tlsTrust = .pin(path: certificate)
        try Self.expectEveryMessageMeasured(configuration, target: target)
    }

    /// A server over TLS that does not choose HTTP/2 by ALPN (an HTTPS server of Server-Sent Events) is refused with
    /// what it chose, before any HTTP/2 byte goes.
    @Test(.enabled(if: openSSL, "OpenSSL 3 is not installed: apt-get install -y openssl libssl3"))
    func aServerThatDoesNotChooseHTTP2ByALPNIsRefused() throws {
        try Self.withEventsOverTLS { certificate, port in
            var configuration = try TargetServerTests.fanout("grpcs://127.0.0.1:\(port)/bench.Relay/Subscribe", subscribers: 2, broadcasts: 5)
            try GRPCInteropTests.relay(&configuration)
            configuration.tlsTrust = .pin(path: certificate)
            #expect {
                _ = try ScenarioRunner.run(configuration, control: RunControl())
            } throws: { error in
                "\(error)".contains("the server chose no protocol by ALPN, not h2")
            }
        }
    }

    @Test(.enabled(if: openSSL && SocketIOInteropTests.hasSocketIO, "python3-socketio, python3-aiohttp or OpenSSL 3 is not installed"))
    func socketIOOverTLSAtItsOwnPathEchoesEveryMessage() throws {
        let folder = try TemporaryFolder()
        let (certificate, key) = try folder.makeCertificate(named: "chat")
        let (server, port) = try PortFileFixture.start("socketio_server.py", ["1", "realtime", certificate, key])
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let target = "socketios://127.0.0.1:\(port)/chat"
        var configuration = try TargetServerTests.roundtrip(target, clients: 6, messages: 10)
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"["echo","{marker}{padding}"]"#) }
        configuration.changeTarget { $0.webSocketPath = "/realtime" }
        configuration.tlsTrust = .pin(path: certificate)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        _ = try TargetServerTests.expectEveryMessageEchoed(recording, target: target)
        Self.expectConnectPhases(recording, webSocket: true)
    }

    /// The SSE fixture over TLS (chunked), with a certificate of its own made for the test, for `body` (given the
    /// certificate's path and the port); killed after.
    static func withEventsOverTLS(_ body: (_ certificate: String, _ port: Int) throws -> Void) throws {
        let folder = try TemporaryFolder()
        let (certificate, key) = try folder.makeCertificate(named: "events")
        let (server, port) = try PortFileFixture.start("sse_server.py", ["chunked", certificate, key])
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try body(certificate, port)
    }
}
