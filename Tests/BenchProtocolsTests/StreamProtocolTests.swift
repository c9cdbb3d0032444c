import BenchCore
import Testing

@testable import BenchProtocols

/// Redis, NATS and MQTT as a subscriber reads them, fed the way reads come: split anywhere, coalesced, hostile. Bytes
/// alone: no sockets.
@Suite(.timeLimit(.minutes(10))) struct StreamProtocolTests {
    private func feed(_ session: ProtocolSession, _ chunks: [[UInt8]]) throws(MessageFramingError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        for var chunk in chunks {
            var failure: MessageFramingError?
            chunk.withUnsafeMutableBytes { bytes in
                do throws(MessageFramingError) {
                    try session.received(bytes, endsMessage: false) { action in
                        if case .delivered(let payload) = action { messages.append(Array(payload)) }
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        return messages
    }

    private func redisMessage(_ payload: [UInt8]) -> [UInt8] {
        Array("*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$\(payload.count)\r\n".utf8) + payload + [13, 10]
    }

    @Test func redisMessagesSplitAtEveryByteComeOutWhole() throws {
        let payloads = (0..<3).map { index in [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 50 + index) }
        let stream = payloads.flatMap(redisMessage)
        for cut in 1..<stream.count {
            let session = ProtocolSession(.redis(channel: "news", password: nil), role: .subscriber, maximumMessageSize: 1024)
            #expect(try feed(session, [Array(stream[..<cut]), Array(stream[cut...])]) == payloads, "cut at \(cut)")
        }
    }

    @Test func largeMessagesInFullReadsAreNotTakenForTooLarge() throws {
        // 10,000-byte messages read 64 KiB at a time: a read often ends inside one, and what is carried over plus the
        // next read exceeds one message's size without any message doing so.
        let session = ProtocolSession(.redis(channel: "news", password: nil), role: .subscriber, maximumMessageSize: 64 << 10)
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        let stream = (0..<40).flatMap { _ in redisMessage(payload) }
        let chunks = stride(from: 0, to: stream.count, by: 64 << 10).map { Array(stream[$0..<min($0 + (64 << 10), stream.count)]) }
        #expect(try feed(session, chunks).count == 40)
    }

    @Test func anEmptyRESPArrayElementIsRefusedNotATrap() {
        let session = ProtocolSession(.redis(channel: "news", password: nil), role: .subscriber, maximumMessageSize: 1024)
        #expect(throws: MessageFramingError.self) { _ = try feed(session, [Array("*1\r\n\r\n".utf8)]) }
    }

    @Test func aNATSPingIsOwedAPongAndMessagesComeOutWhole() throws {
        let session = ProtocolSession(.nats(subject: "prices"), role: .subscriber, maximumMessageSize: 1024)
        var stream = Array("PING\r\nMSG prices 1 5\r\nhello\r\nMSG prices 1 reply.to 3\r\nabc\r\n".utf8)
        var messages: [[UInt8]] = []
        stream.withUnsafeMutableBytes { bytes in
            try? session.received(bytes, endsMessage: false) { action in
                if case .delivered(let payload) = action { messages.append(Array(payload)) }
            }
        }
        #expect(session.machine.outbox.pending == Array("PONG\r\n".utf8))
        #expect(messages == [Array("hello".utf8), Array("abc".utf8)])
    }

    @Test func natsOperationsSplitAtEveryByteComeOutWholeAndEachPingIsOwedAPong() throws {
        let stream = Array("INFO {}\r\nPONG\r\nMSG q 1 5\r\nhello\r\nPING\r\nMSG q 1 r.1 0\r\n\r\nMSG q 1 3\r\nabc\r\n".utf8)
        for cut in 1..<stream.count {
            let session = ProtocolSession(.nats(subject: "q"), role: .subscriber, maximumMessageSize: 64)
            #expect(try feed(session, [Array(stream[..<cut]), Array(stream[cut...])]) == [Array("hello".utf8), [], Array("abc".utf8)], "cut at \(cut)")
            #expect(session.isReady, "the PONG to its PING: the SUB was taken")
            #expect(session.machine.outbox.pending == Array("PONG\r\n".utf8), "cut at \(cut)")
        }
    }

    /// `--dead-after`'s pings, by bytes: NATS's `PING` (its `PONG` after the first is no new readiness), Redis's `PING`
    /// on a subscribed connection (its `pong` reply, at every split, is no delivery).
    @Test func livenessPingsGoOutAndTheirAnswersAreNoMessages() throws {
        let nats = ProtocolSession(.nats(subject: "q"), role: .subscriber, maximumMessageSize: 64)
        var actions = SessionActions()
        try actions.feed(nats, Array("PONG\r\n".utf8))
        nats.machine.outbox = SessionOutbox()
        nats.machine.heartbeat()
        #expect(nats.machine.outbox.pending == Array("PING\r\n".utf8))
        try actions.feed(nats, Array("PONG\r\nPONG\r\n".utf8))
        #expect(actions.ready == 1 && actions.delivered.isEmpty)

        let subscribed = Array("*3\r\n$9\r\nsubscribe\r\n$1\r\nq\r\n:1\r\n".utf8)
        let pong = Array("*2\r\n$4\r\npong\r\n$0\r\n\r\n".utf8)
        let stream = subscribed + pong + redisMessage(Array("hi".utf8)) + pong
        for cut in 1..<stream.count {
            let redis = ProtocolSession(.redis(channel: "q", password: nil), role: .subscriber, maximumMessageSize: 64)
            redis.machine.heartbeat()
            #expect(redis.machine.outbox.pending == Array("*1\r\n$4\r\nPING\r\n".utf8))
            #expect(try feed(redis, [Array(stream[..<cut]), Array(stream[cut...])]) == [Array("hi".utf8)], "cut at \(cut)")
            #expect(redis.isReady)
        }
    }

    // MARK: MQTT

    static let mqtt = ServerProtocol.mqtt(.init(
        topic: "news", qos: 1, keepAlive: 5, username: nil, password: nil, clientIDPrefix: "bx-"))

    /// CONNACK, SUBACK, then PUBLISHes at QoS 0, 1 and 2 and a PUBREL, as a broker sends them to a subscriber.
    static func brokerStream(_ payloads: [[UInt8]]) -> [UInt8] {
        var stream: [UInt8] = [0x20, 2, 0, 0, 0x90, 3, 0, 1, 1]
        for (index, payload) in payloads.enumerated() {
            let qos = UInt8(index % 3)
            stream += MQTTPacket.publish(topic: "news", qos: qos, payload: payload).bytes
            if qos > 0 { stream[stream.count - payload.count - 1] = UInt8(index) }  // packet identifier index
        }
        return stream + [0x62, 2, 0, 9]
    }

    @Test func mqttPacketsSplitAtEveryByteComeOutWholeAndAreAcknowledged() throws {
        let payloads = (0..<4).map { index in [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 60 + 70 * index) }
        let stream = Self.brokerStream(payloads)
        for cut in 1..<stream.count {
            let session = ProtocolSession(Self.mqtt, role: .subscriber, maximumMessageSize: 1024)
            #expect(try feed(session, [Array(stream[..<cut]), Array(stream[cut...])]) == payloads, "cut at \(cut)")
            #expect(session.isReady)
            // QoS 1 (index 1): PUBACK; QoS 2 (index 2): PUBREC; the PUBREL of 9: PUBCOMP.
            #expect(session.machine.outbox.pending == [0x40, 2, 0, 1, 0x50, 2, 0, 2, 0x70, 2, 0, 9], "cut at \(cut)")
        }
    }

    @Test func aRefusedConnectionOrSubscriptionIsTheBrokersErrorWithItsReason() throws {
        for (stream, reason) in [
            ([UInt8]([0x20, 2, 0, 4]), "bad user name or password (4)"), ([0x20, 2, 0, 0, 0x90, 3, 0, 1, 0x80], "SUBACK refused"),
        ] {
            let session = ProtocolSession(Self.mqtt, role: .subscriber, maximumMessageSize: 1024)
            var errors: [String] = []
            var bytes = stream
            try bytes.withUnsafeMutableBytes { buffer in
                try session.received(buffer, endsMessage: false) { action in
                    if case .serverError(let text) = action { errors.append(text) }
                }
            }
            #expect(errors.count == 1 && errors[0].contains(reason), "\(errors)")
            #expect(!session.isReady)
        }
    }

    @Test(arguments: [
        ([UInt8]([0x30, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]), "more than 4 bytes"),
        ([0x30, 0xFF, 0xFF, 0x7F], "more than a message of this run"),
        ([0x10, 0], "which a broker does not send"),
        ([0x30, 3, 0, 9, 0x61], "shorter than its topic"),
        ([0x32, 3, 0, 1, 0x61], "shorter than its fields"),
        ([0x20, 3, 0, 0, 0], "CONNACK of 3 bytes"),
        ([0x90, 2, 0, 1], "SUBACK without a return code"),
        ([0x36, 2, 0, 0], "QoS 3"),
    ])
    func aMalformedMQTTPacketIsRefusedWithAReasonNotATrap(bytes: [UInt8], reason: String) {
        let session = ProtocolSession(Self.mqtt, role: .subscriber, maximumMessageSize: 1024)
        #expect {
            _ = try feed(session, [bytes])
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    /// Random bytes after a valid start: each either parses, waits for more, or is refused; never a trap.
    @Test func randomBytesNeverTrapTheMQTTParser() {
        var random = SplitMix64(seed: 23)
        for _ in 0..<2_000 {
            let session = ProtocolSession(Self.mqtt, role: .subscriber, maximumMessageSize: 512)
            let bytes = [0x20, 2, 0, 0] + (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? feed(session, [bytes])
        }
    }

    @Test func aPublisherReleasesWhatTheBrokerReceivedAtQoS2() throws {
        let session = ProtocolSession(Self.mqtt, role: .publisher, maximumMessageSize: 1024)
        #expect(try feed(session, [[0x20, 2, 0, 0, 0x50, 2, 1, 2, 0x70, 2, 1, 2, 0xD0, 0]]) == [])
        #expect(session.isReady)
        #expect(session.machine.outbox.pending == [0x62, 2, 1, 2])
    }
}
