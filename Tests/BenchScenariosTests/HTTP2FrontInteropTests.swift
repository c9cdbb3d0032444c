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

    /// A fan-out of the WebSocket relay's broadcasts at `target`, over HTTP/2.
    static func webSocketFanout(_ target: String, subscribers: Int, broadcasts: Int) throws -> RunConfiguration {
        var configuration = try TargetServerTests.fanout(target, subscribers: subscribers, broadcasts: broadcasts)
        configuration.warmup = 3  // the relay registers a connection just after its handshake
        try configuration.changeTarget {
            $0.publishTemplate = try PublishTemplate(broadcast)
            $0.overHTTP2 = true
        }
        return configuration
    }

    /// The SSE fixture (its streams `encoding`) and nghttpx before it, for `body` (given the front and the fixture's own
    /// port); both ended after.
    static func withEventStreamsBehindAFront(_ encoding: String, _ body: (_ front: ExternalServer, _ port: Int) throws -> Void) throws {
        let (server, port) = try SSEInteropTests.start(encoding)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let front = try front(to: port)
        defer { front.stop() }
        try body(front, port)
    }

    /// A fan-out of event streams through `front` over HTTP/2, the publisher POSTing to `publishPort` (the front's, or
    /// the SSE server's own).
    static func eventStreamFanout(
        through front: ExternalServer, publishPort: Int, subscribers: Int, broadcasts: Int
    ) throws -> RunConfiguration {
        var configuration = try TargetServerTests.fanout(
            "sse://127.0.0.1:\(front.port)/events", subscribers: subscribers, broadcasts: broadcasts)
        try configuration.changeTarget {
            $0.publishURL = try TargetURL("http://127.0.0.1:\(publishPort)/publish")
            $0.overHTTP2 = true
        }
        return configuration
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
        var configuration = try Self.webSocketFanout(target, subscribers: 6, broadcasts: 20)
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
        try Self.withEventStreamsBehindAFront("chunked") { front, _ in
            var configuration = try Self.eventStreamFanout(through: front, publishPort: Int(front.port), subscribers: 8, broadcasts: 20)
            configuration.clientThreads = 2
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            try TargetServerTests.expectEveryBroadcastDelivered(recording, target: "sse://127.0.0.1:\(front.port)/events")
            let requests = try Self.requests(front)
            #expect(requests.filter { $0 == "h2c GET /events 200" }.count == 8, "\(requests)")
            #expect(requests.filter { $0.hasSuffix("POST /publish 204") }.count >= 20, "the publisher's POSTs: \(requests.suffix(3))")
        }
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
        var configuration = try Self.webSocketFanout(target, subscribers: 4, broadcasts: 20)
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
        let configuration = try Self.webSocketFanout("ws://127.0.0.1:\(relay.port)/", subscribers: 2, broadcasts: 5)
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
        let configuration = try Self.webSocketFanout("ws://127.0.0.1:\(front.port)/", subscribers: 2, broadcasts: 5)
        #expect {
            _ = try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            "\(error)".contains("the server answered :status 401")
        }
    }

    /// The deploy, through the front: nghttpx killed mid-run and started again on its port. Every subscriber comes
    /// back with `--reconnect` (a new HTTP/2 connection and CONNECT each), its outage counted, and the publisher too.
    @Test(.enabled(if: available, notice))
    func theFrontRestartedMidRunHasEverySubscriberBack() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        var front = try Self.front(to: Int(relay.port))
        defer { front.stop() }
        var configuration = try TargetRestartTests.fanout(.wsRelay, "ws://127.0.0.1:\(front.port)/", broadcasts: 400)
        configuration.changeTarget { $0.overHTTP2 = true }
        let (run, _) = try TargetRestartTests.begin(configuration, .twoThreads)
        run.waitUntilDispatched(30 * TargetRestartTests.subscribers)
        try TargetRestartTests.restart(&front)
        let recording = try run.finish()
        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(recording.outages.count == TargetRestartTests.subscribers && recording.outagesBack == recording.outages.count,
            "\(events.prefix(12))")
        #expect(events.contains { $0.hasPrefix("publisher: back after") }, "\(events.prefix(12))")
        let files = try RunFiles.write(recording)
        let afterwards = try TargetRestartTests.broadcastsAfterEveryReturn(recording, files)
        #expect(afterwards.count >= 20 && afterwards.allSatisfy { $0.int("delivered") == TargetRestartTests.subscribers })
        let returns = try Self.requests(front)  // the restarted front's own log
        #expect(returns.count == TargetRestartTests.subscribers + 1 && returns.allSatisfy { $0.hasPrefix("h2c CONNECT ") },
            "the returns are HTTP/2's too: \(returns)")
    }

    /// A hung front (SIGSTOP) before event streams: HTTP/2 has the ping an event stream lacks, so `--heartbeat` pings it
    /// and `--dead-after` finds it dead; once it goes on, every subscriber is back. The publisher POSTs to the SSE server
    /// itself, which goes on meanwhile: the broadcasts of the hang are lost, and counted.
    @Test(.enabled(if: available, notice))
    func aStoppedFrontIsFoundDeadByHTTP2PingsAndEveryEventStreamComesBack() throws {
        try Self.withEventStreamsBehindAFront("chunked") { front, port in
            var configuration = try Self.eventStreamFanout(through: front, publishPort: port, subscribers: 6, broadcasts: 500)
            configuration.reconnect = TargetRestartTests.backoff
            (configuration.heartbeat, configuration.silenceLimit) = (200_000_000, 500_000_000)
            let (run, _) = try TargetRestartTests.begin(configuration, .twoThreads)
            run.waitUntilDispatched(30 * 6)
            kill(front.process.processIdentifier, SIGSTOP)
            usleep(UInt32(3 * configuration.silenceLimit / 1_000))
            kill(front.process.processIdentifier, SIGCONT)
            let recording = try run.finish()
            let events = recording.connectionEvents.map(\.reason)
            #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
            #expect(events.filter { $0.contains("taken for dead") }.count >= 6, "\(events.prefix(12))")
            #expect(recording.outages.count >= 6 && recording.outagesBack == recording.outages.count, "\(recording.outages)")
            let files = try RunFiles.write(recording)
            #expect((files.summary["delivery"]?.int("lost") ?? 0) > 0, "broadcasts went while the front was stopped")
            let afterwards = try TargetRestartTests.broadcastsAfterEveryReturn(recording, files)
            #expect(afterwards.count >= 20 && afterwards.allSatisfy { $0.int("delivered") == 6 }, "\(afterwards.prefix(3))")
        }
    }

    /// A quiet event stream over HTTP/2 whose front answers its PINGs is not taken for dead, though no broadcast comes
    /// for longer than `--dead-after`.
    @Test(.enabled(if: available, notice))
    func aQuietEventStreamWhoseFrontAnswersItsPingsIsNotTakenForDead() throws {
        try Self.withEventStreamsBehindAFront("plain") { front, port in
            var configuration = try Self.eventStreamFanout(through: front, publishPort: port, subscribers: 4, broadcasts: 3)
            (configuration.interval, configuration.warmup) = (1_500_000_000, 1)
            (configuration.heartbeat, configuration.silenceLimit) = (200_000_000, 600_000_000)
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            let events = recording.connectionEvents.map(\.reason)
            #expect(!events.contains { $0.contains("taken for dead") } && recording.outages.isEmpty, "\(events.prefix(6))")
            try TargetServerTests.expectEveryBroadcastDelivered(recording, target: "sse://127.0.0.1:\(front.port)/events")
        }
    }

    static let haproxy = "/usr/sbin/haproxy"

    /// HAProxy before `backend`, its front HTTP/2 only (cleartext, prior knowledge), each request in its log.
    static func haproxyFront(to backend: Int) throws -> ExternalServer {
        try ExternalServer.start(name: "haproxy") { port in
            let configuration = NSTemporaryDirectory() + "bench-haproxy-\(port).cfg"
            let text = """
                global
                    log stdout format raw local0
                defaults
                    mode http
                    log global
                    option httplog
                    timeout connect 5s
                    timeout client 60s
                    timeout server 60s
                    timeout tunnel 60s
                frontend front
                    bind 127.0.0.1:\(port) proto h2
                    default_backend relay
                backend relay
                    server relay 127.0.0.1:\(backend)

                """
            FileManager.default.createFile(atPath: configuration, contents: Data(text.utf8))
            return (haproxy, ["-f", configuration, "-db"])
        }
    }

    /// The same WebSocket fan-out through HAProxy 2.6, whose front takes HTTP/2 only: every request came over it (its
    /// log says `HTTP/2.0` for each CONNECT it turned into its backend's Upgrade).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: haproxy) && WebSocketTransportTests.pythonHasWebSockets,
        "haproxy or python3-websockets is not installed: apt-get install -y haproxy python3-websockets"))
    func aWebSocketFanoutThroughHAProxyDeliversEveryBroadcast() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        let front = try Self.haproxyFront(to: Int(relay.port))
        defer {
            front.stop()
            try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "bench-haproxy-\(front.port).cfg")
        }
        let target = "ws://127.0.0.1:\(front.port)/"
        var configuration = try Self.webSocketFanout(target, subscribers: 6, broadcasts: 20)
        configuration.clientThreads = 2
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let requests = try String(contentsOfFile: front.logPath, encoding: .utf8).split(separator: "\n").filter { $0.contains(" front relay/") }
        #expect(requests.count == 7 && requests.allSatisfy { $0.contains(" 101 ") && $0.hasSuffix(" HTTP/2.0\"") }, "\(requests)")
    }
}
