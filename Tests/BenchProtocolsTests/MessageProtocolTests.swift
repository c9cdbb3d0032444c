import BenchCore
import Testing

@testable import BenchProtocols

/// The protocols that are not a byte stream of their own (Socket.IO on WebSocket messages, the user's text on ws:// or
/// framed tcp://), what every protocol says first, and what each publishes: bytes alone, split at every point.
@Suite struct MessageProtocolTests {
    /// What `session` acts on for `messages`, each fed in two pieces cut at `cut` (or whole) and then ended, and what
    /// it owes, write by write.
    static func feed(
        _ session: ProtocolSession, messages: [String], cut: Int
    ) -> (delivered: [String], errors: [String], writes: [String]) {
        var delivered: [String] = [], errors: [String] = [], writes: [String] = []
        for message in messages {
            let bytes = Array(message.utf8)
            let at = min(cut, bytes.count)
            for var piece in [Array(bytes[..<at]), Array(bytes[at...])] where !piece.isEmpty {
                piece.withUnsafeMutableBytes { try? session.received($0, endsMessage: false) { _ in } }
            }
            try? session.received(UnsafeMutableRawBufferPointer(start: nil, count: 0), endsMessage: true) { action in
                switch action {
                case .delivered(let text): delivered.append(String(decoding: text, as: UTF8.self))
                case .serverError(let text): errors.append(text)
                case .ready, .note: break
                }
            }
        }
        session.drainOutbox { writes.append(String(decoding: $0, as: UTF8.self)) }
        return (delivered, errors, writes)
    }

    @Test func socketIOAnswersOpenPingAndConnectEachAsAMessageOfItsOwnAtEverySplit() {
        let packets = [#"0{"sid":"x","pingInterval":1000}"#, "2", #"40/chat,{"sid":"y"}"#, ##"42/chat,["chat","#bench-1#"]"##, "6",
                       #"44/chat,{"message":"no"}"#]
        for cut in 0...40 {
            let settings = ServerProtocol.SocketIOSettings(namespace: "/chat", subscribe: #"["join","room1"]"#)
            let session = ProtocolSession(.socketIO(settings), role: .subscriber, maximumMessageSize: 1024)
            let (delivered, errors, writes) = Self.feed(session, messages: packets, cut: cut)
            #expect(session.isReady)
            #expect(writes == ["40/chat,", "3", #"42/chat,["join","room1"]"#], "cut at \(cut)")
            #expect(delivered == [##"42/chat,["chat","#bench-1#"]"##], "cut at \(cut)")
            #expect(errors.count == 1 && errors[0].hasPrefix("connect_error"), "\(errors)")
        }
    }

    @Test func anOutboxSendsEachMessageOfItsOwnAndAStreamsBytesAfterThem() {
        var outbox = SessionOutbox()
        outbox.append(message: "40")
        outbox.append(message: "3")
        outbox.append(Array("tail".utf8))
        var writes: [String] = []
        outbox.drain { writes.append(String(decoding: $0, as: UTF8.self)) }
        #expect(writes == ["40", "3", "tail"], "nothing owed is dropped")
        #expect(outbox.isEmpty)
    }

    @Test func aSocketIOPublisherSendsNoSubscriptionAndPublishesInItsNamespace() {
        let settings = ServerProtocol.SocketIOSettings(namespace: "/", subscribe: #"["join","room1"]"#)
        let session = ProtocolSession(.socketIO(settings), role: .publisher, maximumMessageSize: 1024)
        #expect(Self.feed(session, messages: ["0{}", "40"], cut: 1).writes == ["40"])
        #expect(session.isReady)
        let publication = session.machine.publication(of: Array(##"["m","#x#"]"##.utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self) == ##"42["m","#x#"]"##)
        #expect(publication.payloadOffset == 2)
    }

    @Test func aWebSocketServersMessagesAreDeliveredWholeAtEverySplit() {
        let messages = ["first #bench", "", "third message"]
        for cut in 0...14 {
            let session = ProtocolSession(.custom(framing: nil, subscribe: "hello"), role: .subscriber, maximumMessageSize: 64)
            session.machine.connected(name: "7")
            let (delivered, errors, writes) = Self.feed(session, messages: messages, cut: cut)
            #expect(delivered == messages, "cut at \(cut)")
            #expect(errors.isEmpty && writes == ["hello"])
        }
    }

    @Test func aWebSocketMessageLargerThanTheRunsIsRefusedNotKept() {
        let session = ProtocolSession(.custom(framing: nil, subscribe: nil), role: .subscriber, maximumMessageSize: 16)
        var big = [UInt8](repeating: 0x61, count: 16 + 4096 + 1)
        #expect(throws: MessageFramingError.self) {
            try big.withUnsafeMutableBytes { try session.received($0, endsMessage: false) { _ in } }
        }
    }

    @Test(arguments: MessageFraming.allCases)
    func aFramedTCPServersMessagesAreDeliveredWholeAtEverySplit(framing: MessageFraming) throws {
        let session = ProtocolSession(.custom(framing: framing, subscribe: "sub"), role: .subscriber, maximumMessageSize: 256)
        let bodies = ["one #bench#", "two", "three"]
        var stream: [UInt8] = []
        for body in bodies { stream += session.machine.publication(of: Array(body.utf8)).bytes }
        for cut in 0...stream.count {
            let reader = ProtocolSession(.custom(framing: framing, subscribe: nil), role: .subscriber, maximumMessageSize: 256)
            var delivered: [String] = []
            for var piece in [Array(stream[..<cut]), Array(stream[cut...])] where !piece.isEmpty {
                try piece.withUnsafeMutableBytes { bytes in
                    try reader.received(bytes, endsMessage: false) { action in
                        if case .delivered(let body) = action { delivered.append(String(decoding: body, as: UTF8.self)) }
                    }
                }
            }
            #expect(delivered == bodies, "\(framing), cut at \(cut)")
        }
        session.machine.connected(name: "1")
        var opening: [UInt8] = []
        session.drainOutbox { opening += Array($0) }
        #expect(opening == session.machine.publication(of: Array("sub".utf8)).bytes, "the subscription is framed as messages are")
    }

    @Test func whatEachProtocolSaysFirstAsASubscriberAndAsThePublisher() {
        func bytes(_ speech: ServerProtocol, _ role: SessionRole) -> [UInt8] {
            let session = ProtocolSession(speech, role: role, maximumMessageSize: 1024)
            session.machine.connected(name: "12")
            var bytes: [UInt8] = []
            session.drainOutbox { bytes += Array($0) }
            return bytes
        }
        func opening(_ speech: ServerProtocol, _ role: SessionRole) -> String {
            String(decoding: bytes(speech, role), as: UTF8.self)
        }
        #expect(opening(.redis(channel: "news", password: "pw"), .subscriber)
            == "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\nnews\r\n")
        #expect(opening(.redis(channel: "news", password: nil), .publisher) == "")
        let connect = "CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"bench\"}\r\n"
        #expect(opening(.nats(subject: "q"), .subscriber) == connect + "SUB q 1\r\nPING\r\n")
        #expect(opening(.nats(subject: "q"), .publisher) == connect + "PING\r\n")
        let sse = ServerProtocol.SSESettings(streamPath: "/events", streamHost: "h:1", publishPath: "/p", publishHost: "h:2")
        #expect(opening(.sse(sse), .subscriber)
            == "GET /events HTTP/1.1\r\nHost: h:1\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n")
        #expect(opening(.sse(sse), .publisher) == "")
        var withFields = sse
        withFields.fields = [try! HeaderField(parsing: "Authorization: Bearer t"), try! HeaderField(parsing: "X-A: 1")]
        #expect(opening(.sse(withFields), .subscriber)
            == "GET /events HTTP/1.1\r\nHost: h:1\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n"
                + "Authorization: Bearer t\r\nX-A: 1\r\n\r\n", "the user's fields, before the head ends")
        let post = ProtocolSession(.sse(withFields), role: .publisher, maximumMessageSize: 64).machine.publication(of: [0x23])
        #expect(String(decoding: post.bytes, as: UTF8.self)
            == "POST /p HTTP/1.1\r\nHost: h:2\r\nContent-Type: text/plain\r\nContent-Length: 1\r\n"
                + "Authorization: Bearer t\r\nX-A: 1\r\n\r\n#", "and on every POST")
        let mqtt = ServerProtocol.MQTTSettings(topic: "t", qos: 0, keepAlive: 5, username: nil, password: nil, clientIDPrefix: "b-")
        let mqttOpening = bytes(.mqtt(mqtt), .subscriber)
        let connectLength = Int(mqttOpening[1]) + 2
        #expect(mqttOpening.first == 0x10 && mqttOpening[connectLength] == 0x82, "CONNECT then SUBSCRIBE")
        #expect(bytes(.mqtt(mqtt), .publisher).count == connectLength, "a publisher: CONNECT alone")
        #expect(String(decoding: mqttOpening, as: UTF8.self).contains("b-12"), "the connection's name in its client id")
    }

    @Test func eachProtocolWrapsWhatItPublishesAroundThePayload() {
        let payload = Array("#m#".utf8)
        for speech: ServerProtocol in [
            .redis(channel: "c", password: nil), .nats(subject: "s"),
            .sse(.init(streamPath: "/e", streamHost: "h", publishPath: "/p", publishHost: "h")),
            .mqtt(.init(topic: "t", qos: 1, keepAlive: 0, username: nil, password: nil, clientIDPrefix: "b")),
        ] {
            let publication = ProtocolSession(speech, role: .publisher, maximumMessageSize: 64).machine.publication(of: payload)
            #expect(Array(publication.bytes[publication.payloadOffset..<publication.payloadOffset + 3]) == payload, "\(speech)")
        }
        let nats = ProtocolSession(.nats(subject: "s"), role: .publisher, maximumMessageSize: 64).machine.publication(of: payload)
        #expect(String(decoding: nats.bytes, as: UTF8.self) == "PUB s 3\r\n#m#\r\n")
    }

    @Test func anMQTTPacketIdentifierIsRewrittenPerMessageAndNeverZero() {
        let settings = ServerProtocol.MQTTSettings(topic: "t", qos: 1, keepAlive: 0, username: nil, password: nil, clientIDPrefix: "b")
        let publication = ProtocolSession(.mqtt(settings), role: .publisher, maximumMessageSize: 256)
            .machine.publication(of: [UInt8](repeating: 0x23, count: Marker.size))
        let identifier = try! #require(publication.packetIDOffset)
        for sequence: UInt32 in [0, 65_534, 65_535, 70_000] {
            var copy = publication.bytes
            copy.withUnsafeMutableBytes {
                publication.mark($0, with: Marker(run: 1, client: 2, sequence: sequence), at: publication.payloadOffset)
            }
            let written = UInt16(copy[identifier]) << 8 | UInt16(copy[identifier + 1])
            #expect(written == UInt16(sequence % 65_535 + 1) && written != 0)
            #expect(copy.withUnsafeBytes { Marker.find(in: $0)?.sequence } == sequence, "the marker itself")
        }
    }
}
