@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// `--target` against hostile servers: each a POSIX listening socket on 127.0.0.1 (port 0) whose accepted
/// connections a thread of their own misbehaves on, every one bounded in time. The promise under attack: nothing a
/// target sends traps the process, hangs the run past its timeouts or grows memory without bound; a bad reply is an
/// event or closes its connection with a reason, and the run ends with its losses counted; a target that refuses or
/// breaks the handshake fails the setup quickly with a reason. Runs are small: 1–3 clients, ≤ 20 messages, 20 s
/// timeouts that a run ending "at once" never nears; each is watched by a watchdog that reports a hang instead of
/// hanging the suite.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetAttackTests {
    // Once every connection is closed the run ends at once with status failed: what was never sent stays
    // not_sent (notDispatched), by design; what was in flight is written_then_closed.

    // MARK: 1–3. Framed echo servers that answer with what the framing cannot hold

    /// 1. Every message is answered with a length32 header of 0xFFFFFFFF (and some bytes).
    @Test func aLength32EchoOfFourGigabytesClosesTheConnectionWithAReason() throws {
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            while reader.frame(.length32) != nil {
                _ = connection.send([0xFF, 0xFF, 0xFF, 0xFF] + Array(repeating: UInt8(ascii: "z"), count: 100))
            }
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip(port: server.port, clients: 2, messages: 10)
        configuration.changeTarget { $0.framing = .length32 }
        let outcome = Self.run(configuration, within: 60)
        let recording = try Self.expectRecording(outcome)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.filter { $0.contains("length32 message of 4294967299 bytes") }.count == 2, "\(reasons)")
        #expect(!recording.ledger.outcome.contains(.echoed), "nothing was echoed")
        #expect(recording.ledger.outcome.allSatisfy { [.writtenThenClosed, .droppedClosed, .notDispatched].contains($0) }, "\(Self.tally(recording))")
        #expect(recording.status == .failed, "every connection was closed: \(recording.status)")
        #expect(outcome.seconds < 10, "the run ends when the last connection is closed, \(outcome.seconds) s")
    }

    /// 2. A line-framed echo server sends 16 MiB without a newline (1 MiB at a time, while the client takes it).
    @Test func aLineOfSixteenMebibytesWithoutANewlineClosesTheConnection() throws {
        let sent = LockedCounter()
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            guard reader.frame(.line) != nil else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<16 {
                guard connection.send(chunk) else { break }
                sent.add(chunk.count)
            }
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip(port: server.port, clients: 1, messages: 10)
        configuration.changeTarget { $0.framing = .line }
        let residentBefore = Self.residentBytes()
        let outcome = Self.run(configuration, within: 60)
        let recording = try Self.expectRecording(outcome)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.contains { $0.contains("a line longer than 65536 bytes") }, "\(reasons)")
        #expect(!recording.ledger.outcome.contains(.echoed))
        #expect(recording.ledger.outcome.allSatisfy { [.writtenThenClosed, .droppedClosed, .notDispatched].contains($0) }, "\(Self.tally(recording))")
        #expect(recording.status == .failed, "\(recording.status)")
        // The client stops reading at 64 KiB: the server cannot push much more than the socket buffers hold.
        #expect(sent.value < 16 << 20, "the client kept reading a line it should have given up on: \(sent.value) bytes")
        let growth = Self.residentBytes() - residentBefore
        #expect(growth < 64 << 20, "resident memory grew by \(growth) bytes")
    }

    /// 3. An stx echo server that echoes every message with its CRC flipped.
    @Test func anSTXEchoWithABadCRCClosesTheConnectionWithTheCRCReason() throws {
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            while var frame = reader.frame(.stx)?.frame {
                frame[frame.count - 1] ^= 0xFF
                _ = connection.send(frame)
            }
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip(port: server.port, clients: 2, messages: 10)
        configuration.changeTarget { $0.framing = .stx }
        let recording = try Self.expectRecording(Self.run(configuration, within: 60))
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.filter { $0.contains("an stx message's CRC is") }.count == 2, "\(reasons)")
        #expect(!recording.ledger.outcome.contains(.echoed))
        #expect(recording.ledger.outcome.allSatisfy { [.writtenThenClosed, .droppedClosed, .notDispatched].contains($0) }, "\(Self.tally(recording))")
    }

    /// An stx "echo" whose first byte is not STX.
    @Test func anSTXEchoWithoutSTXClosesTheConnection() throws {
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            while var frame = reader.frame(.stx)?.frame {
                frame[0] = 0x03
                _ = connection.send(frame)
            }
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip(port: server.port, clients: 1, messages: 10)
        configuration.changeTarget { $0.framing = .stx }
        let recording = try Self.expectRecording(Self.run(configuration, within: 60))
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.contains { $0.contains("does not start with STX") }, "\(reasons)")
    }

    // MARK: 4. Echo servers that echo too much, or the wrong markers

    /// Every message is echoed twice (in one write, so the two arrive in one read too).
    @Test func anEchoServerThatEchoesTwiceCountsDuplicatesAndMeasuresOnce() throws {
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            while let frame = reader.frame(.length32)?.frame { _ = connection.send(frame + frame) }
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip(port: server.port, clients: 3, messages: 10)
        let recording = try Self.expectRecording(Self.run(configuration, within: 60))
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(Self.tally(recording))")
        #expect(recording.ledger.duplicateEchoes == configuration.totalMessages, "\(recording.ledger.duplicateEchoes)")
        #expect(recording.connectionEvents.isEmpty, "\(recording.connectionEvents.map(\.reason))")
        let files = try RunFiles.write(recording)
        #expect(files.samples.count == 3 * 10, "one row per message, not per echo")
        #expect(files.summary["rtt"]?.int("count") == 3 * 10)
    }

    /// Before each true echo, three forged ones: another client's marker, sequence 0xFFFFFFFF, a run of all f's.
    /// Each is an event; the true echo is measured; no connection is closed.
    @Test func forgedMarkersAreEventsAndTheTrueEchoIsMeasured() throws {
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            while let (frame, body) = reader.frame(.length32) {
                let marker = body.lowerBound
                var otherClient = frame, lastSequence = frame, otherRun = frame
                // client: body[24..<32]; sequence: body[33..<41]; run: body[7..<23] (lowercase hex).
                let client = UInt32(String(decoding: frame[marker + 24..<marker + 32], as: UTF8.self), radix: 16) ?? 0
                otherClient.replaceSubrange(marker + 24..<marker + 32, with: Array(String(format: "%08x", client ^ 1).utf8))
                lastSequence.replaceSubrange(marker + 33..<marker + 41, with: Array("ffffffff".utf8))
                otherRun.replaceSubrange(marker + 7..<marker + 23, with: Array("ffffffffffffffff".utf8))
                _ = connection.send(otherClient + lastSequence + otherRun + frame)
            }
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip(port: server.port, clients: 2, messages: 10)
        let recording = try Self.expectRecording(Self.run(configuration, within: 60))
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(Self.tally(recording))")
        #expect(recording.ledger.duplicateEchoes == 0)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.count == 3 * configuration.totalMessages, "\(reasons.count) events")
        #expect(reasons.allSatisfy { $0.contains("received a marker of another run or client") }, "\(Set(reasons).prefix(5))")
        #expect(reasons.contains { $0.contains("message 4294967295") })
        // A stray marker closes no connection: run.csv's connections_closed_early must not count it.
        #expect(recording.connectionsClosedEarly == 0, "connections_closed_early = \(recording.connectionsClosedEarly) though none closed")
    }

    // MARK: 5. A "Redis" that confirms the subscription, then sends poison once publishing began

    static let redisPoisons: [(name: String, bytes: String, reason: String)] = [
        ("an array of 99999999999", "*99999999999\r\n", "a RESP array header that is not a small count"),
        ("a bulk of length -5", "$-5\r\n", "RESP"),
        ("a message whose payload is 99999999999 bytes", "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$99999999999\r\n", "RESP"),
    ]

    @Test(arguments: 0..<3)
    func aRedisThatSendsPoisonAfterSubscribingClosesTheSubscriberWithAReason(_ poison: Int) throws {
        let (_, bytes, reason) = Self.redisPoisons[poison]
        let published = LockedFlag()
        let server = try HostileServer { connection in
            guard let first = connection.receive() else { return }
            if first.holds("SUBSCRIBE") {
                _ = connection.send(Array("*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n".utf8))
                while !published.isSet && !connection.isOver { usleep(5_000) }
                _ = connection.send(Array(bytes.utf8))
            } else {
                published.set()  // the publisher's first PUBLISH
            }
            while connection.receive() != nil {}
        }
        defer { server.stop() }
        let configuration = try Self.fanout("redis://127.0.0.1:\(server.port)/news", subscribers: 2)
        let outcome = Self.run(configuration, within: 60)
        try Self.expectClosedOrRefused(outcome, reason: reason, subscribers: 2)
    }

    // MARK: 6. A "NATS" that greets, answers PING, then sends poison once publishing began

    static let natsPoisons: [(name: String, bytes: [UInt8], reason: String)] = [
        ("MSG of -5 bytes", Array("MSG news 1 -5\r\n".utf8), "a NATS MSG line without a valid size"),
        ("MSG of 99999999999 bytes", Array("MSG news 1 99999999999\r\n".utf8), "a NATS MSG line without a valid size"),
        ("a 100 KiB line without CRLF", [UInt8](repeating: UInt8(ascii: "M"), count: 100 << 10), "KiB"),
    ]

    @Test(arguments: 0..<3)
    func aNATSThatSendsPoisonAfterSubscribingClosesTheSubscriberWithAReason(_ poison: Int) throws {
        let (_, bytes, reason) = Self.natsPoisons[poison]
        let published = LockedFlag()
        let server = try HostileServer { connection in
            _ = connection.send(Array("INFO {}\r\n".utf8))
            var seen: [UInt8] = []
            while !seen.holds("PING\r\n") {
                guard let more = connection.receive() else { return }
                seen += more
            }
            _ = connection.send(Array("PONG\r\n".utf8))
            if seen.holds("SUB ") {
                while !published.isSet && !connection.isOver { usleep(5_000) }
                _ = connection.send(bytes)
            } else {
                while !seen.holds("PUB ") {
                    guard let more = connection.receive() else { return }
                    seen += more
                }
                published.set()
            }
            while connection.receive() != nil {}
        }
        defer { server.stop() }
        let configuration = try Self.fanout("nats://127.0.0.1:\(server.port)/news", subscribers: 2)
        try Self.expectClosedOrRefused(Self.run(configuration, within: 60), reason: reason, subscribers: 2)
    }

    // MARK: 7. WebSocket servers that break the Upgrade, or mask their frames

    @Test func aWebSocketAnswerWithAWrongAcceptFailsTheSetupAtOnce() throws {
        let server = try HostileServer { connection in
            guard HostileReader(connection).httpHead() != nil else { return }
            _ = connection.send(Array((
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n").utf8))
            while connection.receive() != nil {}
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip("ws://127.0.0.1:\(server.port)/", clients: 2, messages: 10)
        let outcome = Self.run(configuration, within: 60)
        guard case .failure(.setupFailed(let reason))? = outcome.result else {
            Issue.record("expected a setup failure, got \(String(describing: outcome.result))")
            return
        }
        #expect(reason.contains("Accept"), "\(reason)")
        #expect(outcome.seconds < 10, "a wrong answer fails at once, not at the 20 s setup timeout: \(outcome.seconds) s")
    }

    @Test func aWebSocketServerThatNeverAnswersTheUpgradeFailsAtTheSetupTimeout() throws {
        let server = try HostileServer { connection in
            while connection.receive() != nil {}
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip("ws://127.0.0.1:\(server.port)/", clients: 2, messages: 10)
        configuration.setupTimeout = 3_000_000_000
        let outcome = Self.run(configuration, within: 60)
        guard case .failure(.setupFailed(let reason))? = outcome.result else {
            Issue.record("expected a setup failure, got \(String(describing: outcome.result))")
            return
        }
        #expect(reason.contains("0 of 2 clients were ready"), "\(reason)")
        #expect(outcome.seconds >= 2.9 && outcome.seconds < 30, "at the 3 s setup timeout, not before: \(outcome.seconds) s")
    }

    /// An endless HTTP head (no blank line ever): the reader's limit, not the setup timeout, ends it.
    @Test func aWebSocketServerWithAnEndlessHTTPHeadFailsTheSetupAtOnce() throws {
        let server = try HostileServer { connection in
            guard HostileReader(connection).httpHead() != nil else { return }
            _ = connection.send(Array("HTTP/1.1 101 Switching Protocols\r\n".utf8))
            let header = Array("X-Filler: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8)
            for _ in 0..<10_000 where connection.send(header) {}
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip("ws://127.0.0.1:\(server.port)/", clients: 1, messages: 10)
        let outcome = Self.run(configuration, within: 60)
        guard case .failure(.setupFailed(let reason))? = outcome.result else {
            Issue.record("expected a setup failure, got \(String(describing: outcome.result))")
            return
        }
        #expect(reason.contains("longer than"), "\(reason)")
        #expect(outcome.seconds < 10, "not at the 20 s setup timeout: \(outcome.seconds) s")
    }

    /// A refusal whose body (its reason) is announced longer than it comes before the server closes: the client,
    /// waiting for the reason, reports the refusal with what came, not a bare close.
    @Test func aRefusalClosedBeforeItsAnnouncedReasonIsStillTheRefusal() throws {
        let server = try HostileServer { connection in
            guard HostileReader(connection).httpHead() != nil else { return }
            _ = connection.send(Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 40\r\n\r\n".utf8))
            _ = connection.send(Array("partial reason".utf8))
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip("ws://127.0.0.1:\(server.port)/", clients: 1, messages: 10)
        guard case .failure(.setupFailed(let reason))? = Self.run(configuration, within: 60).result else {
            Issue.record("expected a setup failure")
            return
        }
        #expect(reason.contains("refused client 0: handshake failed:") && reason.contains("403 Forbidden: partial reason"), "\(reason)")
    }

    /// A server frame must not be masked (RFC 6455 5.1): the client closes with 1002 (protocol error).
    @Test func aMaskedFrameFromAWebSocketServerClosesWith1002() throws {
        let closeCode = LockedCounter()
        let server = try HostileServer { connection in
            let reader = HostileReader(connection)
            guard let head = reader.httpHead(),
                let keyLine = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("sec-websocket-key:") })
            else { return }
            let key = keyLine.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces)
            _ = connection.send(Array((
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\r\n").utf8))
            guard reader.webSocketFrame() != nil else { return }  // the first message
            let payload = Array("hello".utf8), mask: [UInt8] = [1, 2, 3, 4]
            _ = connection.send([0x81, 0x80 | UInt8(payload.count)] + mask + payload.enumerated().map { $1 ^ mask[$0 % 4] })
            while let (opcode, body) = reader.webSocketFrame() {
                if opcode == 0x8 {
                    closeCode.add(body.count >= 2 ? Int(body[0]) << 8 | Int(body[1]) : -1)
                    return
                }
            }
        }
        defer { server.stop() }
        let configuration = try Self.roundtrip("ws://127.0.0.1:\(server.port)/", clients: 1, messages: 10)
        let recording = try Self.expectRecording(Self.run(configuration, within: 60))
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.contains { $0.contains("a server frame is masked") }, "\(reasons)")
        #expect(!recording.ledger.outcome.contains(.echoed))
        // The close frame is in the server's socket before the run ends, but the server's thread may not have read it
        // yet on a busy machine: wait for it to (a bound only a hang reaches), then stop the server.
        let deadline = Date() + 30
        while closeCode.value == 0 && Date() < deadline { usleep(10_000) }
        server.stop()
        #expect(closeCode.value == 1002, "the client closed with \(closeCode.value), not 1002 (protocol error)")
    }

    // MARK: 8. A roundtrip target that accepts and never reads

    @Test func aTargetThatNeverReadsEndsTheRunWithEveryMessageLost() throws {
        let server = try HostileServer(receiveBuffer: 4096) { connection in
            while !connection.isOver { usleep(20_000) }
        }
        defer { server.stop() }
        var configuration = try Self.roundtrip(port: server.port, clients: 2, messages: 18)
        configuration.payload = 1 << 20
        configuration.maximumQueuedBytes = 2 << 20
        configuration.timeout = 1_000_000_000  // its messages can only time out
        let outcome = Self.run(configuration, within: 60)
        let recording = try Self.expectRecording(outcome)
        #expect(!recording.ledger.outcome.contains(.echoed))
        #expect(recording.ledger.outcome.allSatisfy { [.timedOut, .droppedQueueFull].contains($0) }, "\(Self.tally(recording))")
        #expect(recording.ledger.outcome.contains(.droppedQueueFull), "the queue filled: \(Self.tally(recording))")
        #expect(recording.queueFullDrops.reduce(0, +) == recording.ledger.outcome.filter { $0 == .droppedQueueFull }.count)
        // 20 messages 5 ms apart, then the 1 s timeout: over in seconds, whatever the load, unless it hung.
        #expect(outcome.seconds < 30, "\(outcome.seconds) s")
    }

    // MARK: Runs

    struct Outcome {
        /// nil when the run did not end within the watchdog's time (a hang).
        let result: Result<RunRecording, RunError>?
        let seconds: Double
    }

    /// Runs `configuration` on a thread of its own; after `seconds` asks it to stop and reports the hang.
    static func run(_ configuration: RunConfiguration, within seconds: Double) -> Outcome {
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        let control: RunControl
        do { control = try RunControl() } catch { return Outcome(result: .failure(.system(error)), seconds: 0) }
        let started = Date()
        let thread = Thread {
            box.set(Result { () throws(RunError) in try ScenarioRunner.run(configuration, control: control) })
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        if done.wait(timeout: .now() + seconds) == .timedOut {
            Issue.record("the run hung: it did not end within \(seconds) s")
            control.requestStop()
            _ = done.wait(timeout: .now() + 10)
            return Outcome(result: nil, seconds: Date().timeIntervalSince(started))
        }
        return Outcome(result: box.value, seconds: Date().timeIntervalSince(started))
    }

    static func expectRecording(_ outcome: Outcome, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunRecording {
        switch outcome.result {
        case .success(let recording)?: return recording
        case .failure(let error)?:
            Issue.record("the run failed: \(error)", sourceLocation: sourceLocation)
            throw error
        case nil:
            throw SystemError("the run hung", errno: ETIMEDOUT)
        }
    }

    /// A fanout whose subscribers were poisoned: either the setup was refused with `reason`, or every subscriber's
    /// connection was closed with it and the run ended with the broadcasts lost.
    static func expectClosedOrRefused(
        _ outcome: Outcome, reason: String, subscribers: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        switch outcome.result {
        case .failure(.setupFailed(let text))?:
            #expect(text.contains(reason), "\(text)", sourceLocation: sourceLocation)
        case .failure(let error)?:
            Issue.record("expected a setup failure or a recording, got \(error)", sourceLocation: sourceLocation)
        case .success(let recording)?:
            let closing = recording.connectionEvents.filter { $0.client != nil && $0.reason.contains(reason) }
            #expect(
                Set(closing.compactMap(\.client)) == Set(0..<subscribers),
                "every subscriber closed with a reason containing '\(reason)': \(recording.connectionEvents.map(\.reason)); \(tally(recording))",
                sourceLocation: sourceLocation)
            #expect(!recording.ledger.outcome.contains(.echoed), sourceLocation: sourceLocation)
            #expect(!recording.ledger.outcome.contains(.written), sourceLocation: sourceLocation)
        case nil:
            break  // recorded as a hang
        }
        #expect(outcome.seconds < 10, "not at a 20 s timeout: \(outcome.seconds) s", sourceLocation: sourceLocation)
    }

    static func tally(_ recording: RunRecording) -> [String: Int] {
        Dictionary(grouping: recording.ledger.outcome, by: { "\($0)" }).mapValues(\.count)
    }

    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
    }

    // MARK: Configurations

    /// ``TargetServerTests/base(_:_:clients:messages:)`` with 20 s timeouts: a run that ends "at once" (in under 10 s)
    /// is told apart from one that waited a timeout out by a margin no busy machine eats (they were 1 s and 3 s, against
    /// bounds of 1.5 s and 3 s).
    static func base(_ scenario: Scenario, _ target: String, clients: Int, messages: Int) throws -> RunConfiguration {
        var configuration = try TargetServerTests.base(scenario, target, clients: clients, messages: messages)
        configuration.seed = 131
        configuration.timeout = 20_000_000_000
        configuration.setupTimeout = 20_000_000_000
        return configuration
    }

    static func roundtrip(port: UInt16, clients: Int, messages: Int) throws -> RunConfiguration {
        try roundtrip("tcp://127.0.0.1:\(port)", clients: clients, messages: messages)
    }

    static func roundtrip(_ target: String, clients: Int, messages: Int) throws -> RunConfiguration {
        var configuration = try base(.roundtrip, target, clients: clients, messages: messages)
        configuration.interval = 5_000_000
        return configuration
    }

    static func fanout(_ target: String, subscribers: Int) throws -> RunConfiguration {
        var configuration = try base(.fanout, target, clients: subscribers, messages: 10)
        configuration.interval = 20_000_000
        return configuration
    }
}

// MARK: - Hostile servers

final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<RunRecording, RunError>?
    func set(_ result: Result<RunRecording, RunError>) { lock.withLock { stored = result } }
    var value: Result<RunRecording, RunError>? { lock.withLock { stored } }
}

final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var isSet: Bool { lock.withLock { flag } }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ amount: Int) { lock.withLock { count += amount } }
    var value: Int { lock.withLock { count } }
}

/// A listening socket on 127.0.0.1 (port 0) whose every accepted connection runs `handler` on a thread of its own;
/// everything ends after `lifetime` seconds or at ``stop()``, whichever comes first.
final class HostileServer: @unchecked Sendable {
    let port: UInt16
    let deadline: Date
    private let listener: Int32
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var stopped = false
    private let acceptDone = DispatchSemaphore(value: 0)

    init(receiveBuffer: Int32? = nil, lifetime: TimeInterval = 15, _ handler: @escaping @Sendable (HostileConnection) -> Void) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw SystemError("socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBuffer { setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            let error = errno
            Posix.close(listener)
            throw SystemError("bind/listen", errno: error)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        deadline = Date() + lifetime
        let thread = Thread { [self] in
            acceptLoop(handler)
            acceptDone.signal()
        }
        thread.start()
    }

    var isOver: Bool { lock.withLock { stopped } || Date() > deadline }

    private func acceptLoop(_ handler: @escaping @Sendable (HostileConnection) -> Void) {
        while !isOver {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            lock.withLock { _ = open.insert(fd) }
            let thread = Thread { [self] in
                handler(HostileConnection(fd: fd, server: self))
                lock.withLock {
                    open.remove(fd)
                    Posix.close(fd)
                }
            }
            thread.start()
        }
        Posix.close(listener)
    }

    /// Stops accepting and shuts every connection down (its thread then ends and closes it). Safe to call twice.
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
            return !stopped
        }
        if first { acceptDone.wait() }
    }
}

/// One accepted connection: blocking-with-deadline sends and receives.
struct HostileConnection: Sendable {
    let fd: Int32
    let server: HostileServer

    var isOver: Bool { server.isOver }

    /// Sends everything; false once the peer is gone or the server is over.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            if isOver { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { return false }
            guard poller.revents != 0 else { continue }
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return false
            }
            sent += count
        }
        return true
    }

    /// What one read brought; nil at end of stream, on an error, or once the server is over.
    func receive(max: Int = 65_536) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: max)
        while !isOver {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { return nil }
            guard poller.revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return nil }
            return Array(buffer[0..<count])
        }
        return nil
    }
}

/// Buffers what a ``HostileConnection`` reads, to cut it into messages.
final class HostileReader {
    let connection: HostileConnection
    private var buffer: [UInt8] = []

    init(_ connection: HostileConnection) {
        self.connection = connection
    }

    func exactly(_ count: Int) -> [UInt8]? {
        while buffer.count < count {
            guard let more = connection.receive() else { return nil }
            buffer += more
        }
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    func through(_ terminator: [UInt8]) -> [UInt8]? {
        while true {
            if let range = buffer.firstRange(of: terminator) {
                defer { buffer.removeFirst(range.upperBound) }
                return Array(buffer[0..<range.upperBound])
            }
            guard let more = connection.receive() else { return nil }
            buffer += more
        }
    }

    /// One whole message as the harness framed it, and where its body lies in it.
    func frame(_ framing: MessageFraming) -> (frame: [UInt8], body: Range<Int>)? {
        switch framing {
        case .length32:
            guard let head = exactly(4) else { return nil }
            let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            guard let body = exactly(size) else { return nil }
            return (head + body, 4..<4 + size)
        case .length16:
            guard let head = exactly(2) else { return nil }
            let size = Int(head[0]) << 8 | Int(head[1])
            guard let body = exactly(size) else { return nil }
            return (head + body, 2..<2 + size)
        case .line:
            guard let line = through([10]) else { return nil }
            return (line, 0..<line.count - 1)
        case .stx:
            guard let head = exactly(5) else { return nil }
            let size = Int(head[3]) << 8 | Int(head[4])
            guard let rest = exactly(size + 2) else { return nil }
            return (head + rest, 5..<5 + size)
        }
    }

    func httpHead() -> String? {
        through(Array("\r\n\r\n".utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// One client frame (masked): its opcode and unmasked payload.
    func webSocketFrame() -> (opcode: UInt8, payload: [UInt8])? {
        guard let head = exactly(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            guard let extended = exactly(2) else { return nil }
            length = Int(extended[0]) << 8 | Int(extended[1])
        } else if length == 127 {
            guard let extended = exactly(8) else { return nil }
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        let mask = head[1] & 0x80 != 0 ? exactly(4) : [0, 0, 0, 0]
        guard let mask, let payload = exactly(length) else { return nil }
        return (head[0] & 0x0F, payload.enumerated().map { $1 ^ mask[$0 % 4] })
    }
}

extension Array where Element == UInt8 {
    func holds(_ text: String) -> Bool { firstRange(of: Array(text.utf8)) != nil }
}
