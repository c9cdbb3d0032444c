@testable import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import Foundation
import Testing

@testable import BenchScenarios

/// WebSocket and Server-Sent Events over HTTP/2 (`--http2`) through a real HTTP/2 front: Debian's nghttpx before the
/// WebSocket relay and the SSE server of Tests/Fixtures, as HAProxy, Envoy or nghttpx stand before a team's servers. The
/// front's access log says which HTTP each request came in (`$alpn`: h2c, h2), so a run that fell back to HTTP/1.1 fails.
/// Serialized, as the other real servers' tests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HTTP2FrontInteropTests {
    static let nghttpx = "/usr/sbin/nghttpx"
    static let available = FileManager.default.isExecutableFile(atPath: nghttpx) && WebSocketTransportTests.pythonHasWebSockets
    static let notice: Comment = "nghttpx or python3-websockets is not installed: apt-get install -y nghttp2-proxy python3-websockets"
    static let broadcast = "{\"type\":\"broadcast\",\"payload\":\"{marker}{padding}\"}"

    enum Placement: String, CaseIterable, Sendable { case twoThreads, twoAgents }

    /// nghttpx before `backend`: cleartext HTTP/2 on its front (prior knowledge, h2c; HTTP/1.1 too), or TLS with
    /// `certificate` and `key` (ALPN h2 or http/1.1). Each request's protocol, method, path and status in its log.
    static func front(to backend: Int, certificate: String? = nil, key: String? = nil) throws -> ExternalServer {
        try ExternalServer.start(name: "nghttpx") { port in
            (nghttpx, [
                "--conf=/dev/null", "--single-process", "--workers=1", "--no-ocsp",
                "--frontend=127.0.0.1,\(port)" + (certificate == nil ? ";no-tls" : ""), "--backend=127.0.0.1,\(backend)",
                "--accesslog-file=/dev/stdout", "--accesslog-format=request $alpn $method $path $status",
            ] + (certificate.map { [key!, $0] } ?? []))
        }
    }

    /// The requests the front's log shows, each `ALPN METHOD PATH STATUS`.
    static func requests(_ front: ExternalServer) throws -> [String] {
        try String(contentsOfFile: front.logPath, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("request ") }.map { String($0.dropFirst("request ".count)) }
    }

    @Test(.enabled(if: available, notice), arguments: Placement.allCases)
    func aWebSocketFanoutThroughAnHTTP2FrontDeliversEveryBroadcast(_ placement: Placement) throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        let front = try Self.front(to: Int(relay.port))
        defer { front.stop() }
        let target = "ws://127.0.0.1:\(front.port)/"
        var configuration = try TargetServerTests.fanout(target, subscribers: 6, broadcasts: 20)
        configuration.warmup = 3  // the relay registers a connection just after its handshake
        try configuration.changeTarget {
            $0.publishTemplate = try PublishTemplate(Self.broadcast)
            $0.overHTTP2 = true
        }
        let recording: RunRecording
        switch placement {
        case .twoThreads:
            configuration.clientThreads = 2
            recording = try ScenarioRunner.run(configuration, control: RunControl())
        case .twoAgents:  // they learn --http2 in their client spec
            let (run, agents) = try BackgroundRun.withAgents(configuration, agents: 2, clientsEach: 3, token: "h2")
            recording = try run.finish()
            for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }
        }
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let requests = try Self.requests(front)
        // nghttpx logs a CONNECT's authority as its path, and the status its backend's Upgrade answered.
        #expect(requests.count == 7 && requests.allSatisfy { $0.hasPrefix("h2c CONNECT ") && $0.hasSuffix(" 101") }, "\(requests)")
    }

    @Test(.enabled(if: available, notice))
    func eventStreamsThroughAnHTTP2FrontDeliverEveryBroadcast() throws {
        let (server, port) = try SSEInteropTests.start("chunked")
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let front = try Self.front(to: port)
        defer { front.stop() }
        let target = "sse://127.0.0.1:\(front.port)/events"
        var configuration = try TargetServerTests.fanout(target, subscribers: 8, broadcasts: 20)
        try configuration.changeTarget {
            $0.publishURL = try TargetURL("http://127.0.0.1:\(front.port)/publish")
            $0.overHTTP2 = true
        }
        configuration.clientThreads = 2
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let requests = try Self.requests(front)
        #expect(requests.filter { $0 == "h2c GET /events 200" }.count == 8, "\(requests)")
        #expect(requests.filter { $0.hasSuffix("POST /publish 204") }.count >= 20, "the publisher's POSTs: \(requests.suffix(3))")
    }

    /// Over TLS, HTTP/2 is chosen by ALPN (h2): a wss:// WebSocket through the front, each connect in its phases.
    @Test(.enabled(if: available && TLSTargetInteropTests.openSSL, notice))
    func aSecureWebSocketOverHTTP2IsChosenByALPN() throws {
        let folder = try TemporaryFolder()
        let (certificate, key) = try folder.makeCertificate(named: "front")
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        let front = try Self.front(to: Int(relay.port), certificate: certificate, key: key)
        defer { front.stop() }
        let target = "wss://127.0.0.1:\(front.port)/"
        var configuration = try TargetServerTests.fanout(target, subscribers: 4, broadcasts: 20)
        configuration.warmup = 3
        try configuration.changeTarget {
            $0.publishTemplate = try PublishTemplate(Self.broadcast)
            $0.overHTTP2 = true
        }
        configuration.tlsTrust = .pin(path: certificate)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let requests = try Self.requests(front)
        #expect(requests.count == 5 && requests.allSatisfy { $0.hasPrefix("h2 CONNECT ") }, "\(requests)")
        TLSTargetInteropTests.expectConnectPhases(recording, webSocket: true)
    }

    /// A server that speaks HTTP/1.1 only (the relay itself) is refused with why, before the run.
    @Test(.enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed"))
    func aServerWithoutHTTP2IsRefusedWithWhy() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        var configuration = try TargetServerTests.fanout("ws://127.0.0.1:\(relay.port)/", subscribers: 2, broadcasts: 5)
        try configuration.changeTarget {
            $0.publishTemplate = try PublishTemplate(Self.broadcast)
            $0.overHTTP2 = true
        }
        #expect {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            "\(error)".contains("the server answered in HTTP/1.1, not HTTP/2")
        }
    }

    /// The relay's refusal (401 and its reason, for a handshake without the bearer token it wants) comes back through
    /// the front as the CONNECT's status and body, in the server's words.
    @Test(.enabled(if: available, notice))
    func aRefusedCONNECTIsTheServersWords() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py", "s3cret")
        defer { relay.stop() }
        let front = try Self.front(to: Int(relay.port))
        defer { front.stop() }
        var configuration = try TargetServerTests.fanout("ws://127.0.0.1:\(front.port)/", subscribers: 2, broadcasts: 5)
        try configuration.changeTarget {
            $0.publishTemplate = try PublishTemplate(Self.broadcast)
            $0.overHTTP2 = true
        }
        #expect {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            "\(error)".contains("the server answered :status 401")
        }
    }
}
