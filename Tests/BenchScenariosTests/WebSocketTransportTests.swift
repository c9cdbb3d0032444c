@testable import BenchClients
import BenchCore
import BenchNet
import BenchReports
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// The WebSocket transport (`--transport ws`) end to end: the run's own server and clients over RFC 6455, hostile
/// peers whose every byte is built by hand here, and a client written with Python's `websockets`, an implementation
/// nobody here wrote.
@Suite(.timeLimit(.minutes(10))) struct WebSocketTransportTests {
    // MARK: The run's own clients

    @Test func aFanoutRunOverWebSocketDeliversEveryBroadcastAndTheSamplesRecompute() throws {
        var configuration = Self.configuration(.fanout, clients: 10, messages: 30)
        configuration.warmup = 2
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.connectTimes.count == 10)
        #expect(recording.connectTimes.allSatisfy { $0 > 0 }, "a handshake for every client: \(recording.connectTimes)")

        let files = try RunFiles.write(recording)
        #expect(files.settings["status"] == "complete")
        #expect(files.settings["transport"] == "ws")
        #expect(files.settings["ws_path"] == "/")
        #expect(files.events.isEmpty)
        #expect(files.samples.count == 10 * 30)
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            let t0 = try #require(row.int("t0_ns")), write = try #require(row.int("write_ns"))
            let received = try #require(row.int("recv_ns")), echo = try #require(row.int("echo_ns"))
            #expect(t0 <= write && write <= received && received <= echo, "\(row)")
            #expect(row.int("delivery_ns") == received - t0)
            #expect(row.int("rtt_ns") == echo - write)
        }
        let byBroadcast = Dictionary(grouping: files.samples) { $0.int("broadcast")! }
        #expect(byBroadcast.keys.sorted() == Array(0..<30))
        for (_, rows) in byBroadcast {
            #expect(rows.map { $0.int("client")! }.sorted() == Array(0..<10), "each client once per broadcast")
        }
        let deliveries = files.samples.map { $0.int("delivery_ns")! }.sorted()
        let summary = try #require(files.summary["delivery"])
        #expect(summary.int("count") == 10 * 30)
        #expect(summary.int("lost") == 0)
        #expect(summary.double("p50_us") == Double(exactPercentile(deliveries, 50)) / 1000)
    }

    /// Closed loop (interval 0) and open loop (a Poisson timetable, 2 ms mean).
    @Test(arguments: [UInt64(0), 2_000_000])
    func aRoundtripRunOverWebSocketEchoesEveryMessage(interval: UInt64) throws {
        var configuration = Self.configuration(.roundtrip, clients: 3, messages: 30)
        configuration.interval = interval
        configuration.arrival = .poisson
        let recording = try ScenarioRunner.run(configuration, control: RunControl())

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.connectTimes.count == 3 && recording.connectTimes.allSatisfy { $0 > 0 })

        let files = try RunFiles.write(recording)
        #expect(files.settings["transport"] == "ws")
        #expect(files.settings["arrival"] == (interval == 0 ? "closed-loop" : "poisson"))
        #expect(files.samples.count == 3 * 30)
        for client in 0..<3 {
            let rows = files.samples.filter { $0.int("client") == client }
            #expect(rows.map { $0.int("seq")! } == Array(0..<30))
            if interval == 0 {
                for (previous, next) in zip(rows, rows.dropFirst()) {
                    #expect(next.int("sent_ns")! >= previous.int("echo_ns")!, "one message in flight per client")
                }
            }
        }
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            #expect(row.int("rtt_ns") == row.int("echo_ns")! - row.int("sent_ns")!)
        }
        let rtts = files.samples.map { $0.int("rtt_ns")! }.sorted()
        let summary = try #require(files.summary["rtt"])
        #expect(summary.int("count") == 90)
        #expect(summary.int("lost") == 0)
        #expect(summary.double("p99_us") == Double(exactPercentile(rtts, 99)) / 1000)
    }

    // MARK: Hostile peers

    /// A frame that breaks RFC 6455, sent right after a good handshake, as the connection's first frame.
    enum ViolatingFrame: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case unmaskedHello, reservedBitSet, textMessage, messageLargerThanTheLimit

        var testDescription: String { rawValue }

        /// The close status the server must answer with.
        var closeCode: UInt16 {
            switch self {
            case .unmaskedHello, .reservedBitSet: 1002
            case .textMessage: 1003
            case .messageLargerThanTheLimit: 1009
            }
        }

        /// What the event's reason must say.
        var reason: String {
            switch self {
            case .unmaskedHello: "not masked"
            case .reservedBitSet: "reserved bits"
            case .textMessage: "text message"
            case .messageLargerThanTheLimit: "more than 64 bytes"
            }
        }

        func bytes(client: UInt32, token: UInt64) -> [UInt8] {
            let hello = HandWebSocket.hello(client: client, token: token)
            switch self {
            case .unmaskedHello:
                return HandWebSocket.frame(opcode: 0x2, payload: hello, masked: false)
            case .reservedBitSet:
                return HandWebSocket.frame(opcode: 0x2, payload: hello, reserved: 0x4)  // RSV1
            case .textMessage:
                return HandWebSocket.frame(opcode: 0x1, payload: Array("hello".utf8))
            case .messageLargerThanTheLimit:
                return HandWebSocket.frame(
                    opcode: 0x2, payload: [UInt8](repeating: 7, count: 64), announcedLength: 1 << 20)
            }
        }
    }

    @Test(arguments: ViolatingFrame.allCases)
    func aFrameThatBreaksTheProtocolIsAnsweredWithItsCloseStatusAndTheRunGoesOn(_ violation: ViolatingFrame) throws {
        var configuration = Self.configuration(.fanout, clients: 4, messages: 20)
        configuration.localClientRange = 0..<3  // client 3 is taken by a hand-made client once the hostile one is gone
        let run = try BackgroundRun(configuration)
        let port = try run.port()

        let hostile = try HandWebSocket(port: port)
        defer { hostile.close() }
        try hostile.openingHandshake()
        hostile.send(violation.bytes(client: 3, token: configuration.token))
        let close = try #require(hostile.nextFrame(skippingPings: true), "the server sends a close frame")
        #expect(close.opcode == 0x8)
        #expect(close.closeCode == violation.closeCode, "close payload \(close.payload)")
        #expect(hostile.serverCloses(), "and closes the connection")

        // The hostile connection never took client 3: a well-behaved client can.
        let good = try HandWebSocket(port: port)
        defer { good.close() }
        try good.openingHandshake()
        good.sayHello(as: 3, token: configuration.token)
        try good.echo(count: configuration.sequencesPerClient, size: configuration.payload)
        let recording = try run.finish()

        #expect(recording.status == .complete)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.count == 1, "\(reasons)")
        #expect(reasons.first?.contains(violation.reason) == true, "\(reasons)")
        #expect(reasons.first?.contains("\(violation.closeCode)") == true, "\(reasons)")
        #expect(recording.connectionEvents.first?.client == nil, "the hostile connection had no client id")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "every client's messages, the run's own and client 3's")
        let files = try RunFiles.write(recording)
        #expect(files.events.count == 1)
        #expect(files.events.first?["reason"]?.contains(violation.reason) == true)
        #expect(files.summary["delivery"]?.int("lost") == 0)
    }

    /// An Upgrade request the server must refuse with an HTTP status instead of a 101.
    enum BadHandshake: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case wrongPath, noKey, wrongVersion

        var testDescription: String { rawValue }

        var status: Int {
            switch self {
            case .wrongPath: 404
            case .noKey: 400
            case .wrongVersion: 426
            }
        }

        var request: String {
            switch self {
            case .wrongPath: HandWebSocket.request(path: "/elsewhere")
            case .noKey: HandWebSocket.request(key: nil)
            case .wrongVersion: HandWebSocket.request(version: "8")
            }
        }
    }

    @Test(arguments: BadHandshake.allCases)
    func aRefusedHandshakeGetsItsHTTPStatusAndTheRunGoesOn(_ handshake: BadHandshake) throws {
        var configuration = Self.configuration(.fanout, clients: 3, messages: 30)
        configuration.interval = 5_000_000  // 150 ms of broadcasts, while the refused connection comes and goes
        let run = try BackgroundRun(configuration)  // every client is the run's own
        let port = try run.port()

        let refused = try HandWebSocket(port: port)
        defer { refused.close() }
        refused.send(Array(handshake.request.utf8))
        let head = try #require(refused.responseHead(), "the server answers")
        #expect(head.hasPrefix("HTTP/1.1 \(handshake.status) "), "\(head)")
        #expect(!head.contains("101"))
        #expect(refused.serverCloses())
        let recording = try run.finish()

        #expect(recording.status == .complete)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.count == 1 && reasons.first?.contains("refused with \(handshake.status)") == true, "\(reasons)")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
    }

    @Test func aMaskedPingIsAnsweredWithAPongCarryingItsPayload() throws {
        var configuration = Self.configuration(.fanout, clients: 2, messages: 20)
        configuration.localClientRange = 0..<1  // client 1 is the hand-made one
        let run = try BackgroundRun(configuration)
        let port = try run.port()
        let client = try HandWebSocket(port: port)
        defer { client.close() }
        try client.openingHandshake()

        let payload = Array("bench ping \u{1F3D3}".utf8) + [0, 255, 128]
        client.send(HandWebSocket.frame(opcode: 0x9, payload: payload))
        let pong = try #require(client.nextFrame(skippingPings: false))
        #expect(pong.opcode == 0xA)
        #expect(pong.payload == payload)
        #expect(!pong.masked, "a server never masks")

        let empty = HandWebSocket.frame(opcode: 0x9, payload: [])
        client.send(empty)
        let emptyPong = try #require(client.nextFrame(skippingPings: false))
        #expect(emptyPong.opcode == 0xA && emptyPong.payload.isEmpty)

        // Then a client like any other: pings in between change nothing.
        client.sayHello(as: 1, token: configuration.token)
        try client.echo(count: configuration.sequencesPerClient, size: configuration.payload, pingEvery: 5)
        let recording = try run.finish()
        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
    }

    // MARK: Interop

    static let pythonHasWebSockets: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import websockets"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    static let echoClientScript = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ws_echo_client.py").path

    @Test(.enabled(if: pythonHasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"))
    func aClientWrittenWithPythonsWebSocketsLibraryIsEchoedLikeTheRunsOwn() throws {
        var configuration = Self.configuration(.fanout, clients: 4, messages: 30)
        configuration.localClientRange = 0..<3  // client 3 is Python's
        let run = try BackgroundRun(configuration)
        let port = try run.port()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            Self.echoClientScript, "\(port)", "3", "\(configuration.token)", configuration.webSocketPath,
            "\(WireFormat.version)",
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        let recording = try run.finish()  // bounded by the setup timeout and the messages' timeout
        for _ in 0..<1_000 where process.isRunning { usleep(10_000) }  // it exits once the server closed (≤ 10 s)
        #expect(!process.isRunning, "the Python client exits when the server closes")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason)) \(stderr)")
        let files = try RunFiles.write(recording)
        let python = files.samples.filter { $0.int("client") == 3 }
        #expect(python.count == 30)
        for row in files.samples {
            #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
            let t0 = try #require(row.int("t0_ns")), received = try #require(row.int("recv_ns"))
            #expect(row.int("delivery_ns") == received - t0)
        }
        #expect(files.summary["delivery"]?.int("lost") == 0)
        #expect(files.summary["delivery"]?.int("count") == 4 * 30)
    }

    // MARK: Helpers

    /// A small run over WebSocket: fixed gaps of 3 ms, no warmup, no heartbeats, every wait bounded.
    static func configuration(_ scenario: Scenario, clients: Int, messages: Int) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: scenario, seed: 61)
        configuration.transport = .ws
        configuration.clients = clients
        configuration.messages = messages
        configuration.warmup = 0
        configuration.interval = 3_000_000
        configuration.arrival = .fixed
        configuration.timeout = 2_000_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        configuration.setupTimeout = 15_000_000_000
        return configuration
    }

    /// On WebSocket the clients' heartbeat is a ping (as SocketRocket's): the server answers it, counts it, and takes
    /// it as a sign of life. Between the two messages only pings come from the clients, for longer than dead-after,
    /// yet none is taken for dead. Dead-after is 30 heartbeats: only a stall of well over a second (a hang, on any
    /// machine) could make a live client look silent; the gap the proof rests on is read from the echoes, not assumed.
    @Test(arguments: [(Scenario.fanout, 3), (.roundtrip, 1)])
    func pingsAreTheHeartbeatAndKeepClientsAlive(scenario: Scenario, clients: Int) throws {
        var configuration = RunConfiguration(scenario: scenario, seed: 31)
        configuration.transport = .ws
        configuration.clients = clients
        configuration.messages = 2  // at 0 s and 4 s: four seconds of nothing but pings
        configuration.warmup = 0
        configuration.interval = 4_000_000_000
        configuration.arrival = .fixed
        configuration.heartbeat = 50_000_000
        configuration.deadAfter = 1_500_000_000
        let recording = try ScenarioRunner.run(configuration, control: try RunControl())
        #expect(recording.status == .complete)
        #expect(recording.server.deadClients.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed })
        #expect(recording.server.heartbeatsReceived >= clients && recording.server.heartbeatsReceived <= recording.clientThreads.heartbeatsSent)
        let files = try RunFiles.write(recording)
        for rows in Dictionary(grouping: files.samples, by: { $0["client"] ?? "" }).values {
            let echoes = rows.compactMap { Int($0["echo_ns"] ?? "") }.sorted()
            #expect(echoes.count == 2 && echoes[1] - echoes[0] > Int(configuration.deadAfter), "\(echoes)")
        }
    }
}

/// A WebSocket client made by hand on a blocking TCP socket: every byte of the handshake and of every frame is built
/// here, independently of the code under test, so that it can send what no correct client would.
final class HandWebSocket {
    /// The sample key of RFC 6455 (1.3) and the accept value the RFC gives for it.
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    struct Message {
        var opcode: UInt8
        var payload: [UInt8]
        var masked: Bool
        /// The status of a close frame.
        var closeCode: UInt16? {
            payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    private let peer: RawPeer
    private var inbox: [UInt8] = []

    init(port: UInt16) throws {
        peer = try RawPeer(port: port)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(peer.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    static func request(path: String = "/", key: String? = sampleKey, version: String = "13") -> String {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        if let key { text += "Sec-WebSocket-Key: \(key)\r\n" }
        return text + "Sec-WebSocket-Version: \(version)\r\n\r\n"
    }

    /// Sends a proper Upgrade request and checks the 101 and its accept value.
    func openingHandshake() throws {
        send(Array(Self.request().utf8))
        let head = try #require(responseHead(), "the server answers the Upgrade request")
        let lines = head.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasPrefix("HTTP/1.1 101") == true, "\(head)")
        #expect(lines.contains { $0.lowercased() == "sec-websocket-accept: \(Self.sampleAccept.lowercased())" }, "\(head)")
        guard lines.first?.hasPrefix("HTTP/1.1 101") == true else { throw SystemError("handshake", errno: EPROTO) }
    }

    /// The server's HTTP response head, without its empty line; nil if the connection ended or timed out first.
    func responseHead() -> String? {
        while true {
            if let end = Self.endOfHead(in: inbox) {
                let head = String(decoding: inbox[..<end], as: UTF8.self)
                inbox.removeFirst(end + 4)
                return head
            }
            guard fill() else { return nil }
        }
    }

    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        return (0...bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
    }

    /// Reads more into the inbox; false when the server closed or nothing came within 10 s.
    private func fill() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(peer.fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        inbox += buffer[0..<count]
        return true
    }

    private func take(_ count: Int) -> [UInt8]? {
        while inbox.count < count { guard fill() else { return nil } }
        defer { inbox.removeFirst(count) }
        return Array(inbox[0..<count])
    }

    /// The next whole frame from the server; nil if it closed first. Pings are skipped when asked.
    func nextFrame(skippingPings: Bool) -> Message? {
        while true {
            guard let start = take(2) else { return nil }
            var length = UInt64(start[1] & 0x7F)
            if length == 126 {
                guard let bytes = take(2) else { return nil }
                length = bytes.reduce(0) { $0 << 8 | UInt64($1) }
            } else if length == 127 {
                guard let bytes = take(8) else { return nil }
                length = bytes.reduce(0) { $0 << 8 | UInt64($1) }
            }
            let masked = start[1] & 0x80 != 0
            var mask: [UInt8] = [0, 0, 0, 0]
            if masked { guard let bytes = take(4) else { return nil }; mask = bytes }
            guard length < 1 << 24, var payload = take(Int(length)) else { return nil }
            for index in payload.indices { payload[index] ^= mask[index % 4] }
            #expect(start[0] & 0x80 != 0 && start[0] & 0x70 == 0, "FIN set, no reserved bits: \(start[0])")
            let message = Message(opcode: start[0] & 0x0F, payload: payload, masked: masked)
            if skippingPings && message.opcode == 0x9 { continue }
            return message
        }
    }

    /// A frame built by hand: FIN, `reserved` (RSV1 = 4, RSV2 = 2, RSV3 = 1), the payload masked with a random key
    /// unless `masked` is false, and a length field saying `announcedLength` when given (a lie, then).
    static func frame(
        opcode: UInt8, payload: [UInt8], masked: Bool = true, reserved: UInt8 = 0, announcedLength: Int? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | reserved << 4 | opcode]
        let length = announcedLength ?? payload.count
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(8 * $0)) }
        }
        guard masked else { return bytes + payload }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        return bytes + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] }
    }

    static func hello(client: UInt32, token: UInt64) -> [UInt8] {
        var hello = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
        hello.withUnsafeMutableBytes { _ = Frame.encodeHello(into: $0, client: client, token: token) }
        return hello
    }

    func send(_ bytes: [UInt8]) {
        peer.send(bytes)
    }

    /// The hello, as one masked binary message.
    func sayHello(as client: UInt32, token: UInt64) {
        send(Self.frame(opcode: 0x2, payload: Self.hello(client: client, token: token)))
    }

    /// Echoes `count` data frames of `size` bytes, each as one masked binary message, received now; with `pingEvery`,
    /// a ping goes before every so many echoes (its pong is checked).
    func echo(count: Int, size: Int, pingEvery: Int? = nil) throws {
        var pongsOwed: [[UInt8]] = []
        var echoed = 0
        while echoed < count {
            let message = try #require(nextFrame(skippingPings: true), "data frame \(echoed) of \(count)")
            if message.opcode == 0xA {
                #expect(message.payload == pongsOwed.first, "a pong carries its ping's payload")
                if !pongsOwed.isEmpty { pongsOwed.removeFirst() }
                continue
            }
            try #require(message.opcode == 0x2, "a binary message, got opcode \(message.opcode)")
            #expect(message.payload.count == size && !message.masked)
            var echo = message.payload
            echo.withUnsafeMutableBytes { bytes in
                Frame(kind: .data, bytes: bytes).convertToEcho(receivedNanoseconds: MonotonicClock.now())
            }
            if let pingEvery, echoed % pingEvery == 0 {
                let payload = Array("ping \(echoed)".utf8)
                pongsOwed.append(payload)
                send(Self.frame(opcode: 0x9, payload: payload))
            }
            send(Self.frame(opcode: 0x2, payload: echo))
            echoed += 1
        }
    }

    /// True when the server closes within 10 s (what came before is dropped).
    func serverCloses() -> Bool {
        inbox.removeAll()
        return peer.serverCloses()
    }

    func close() {
        peer.close()
    }
}
