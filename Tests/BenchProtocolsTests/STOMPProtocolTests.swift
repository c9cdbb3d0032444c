import BenchCore
import Testing

@testable import BenchProtocols

/// STOMP 1.2 as a subscriber and a publisher speak it, with bytes alone: the frames each says, what each takes as ready,
/// deliveries split at every byte (with and without `content-length`, with heart-beats between frames, CR LF or LF),
/// the broker's ERROR in its words, and hostile frames refused with a reason, never a trap.
@Suite struct STOMPProtocolTests {
    static let settings = ServerProtocol.STOMPSettings(
        destination: "/topic/prices", login: "bench", passcode: "s3cret", heartBeatMilliseconds: 10_000)

    private func feed(_ session: ProtocolSession, _ chunks: [[UInt8]]) throws(MessageFramingError) -> SessionActions {
        var seen = SessionActions()
        for chunk in chunks { try seen.feed(session, chunk) }
        return seen
    }

    private func session(_ role: SessionRole, maximumMessageSize: Int = 1024) -> ProtocolSession {
        ProtocolSession(.stomp(Self.settings), role: role, maximumMessageSize: maximumMessageSize)
    }

    /// What the session says first, message by message.
    private func opening(_ session: ProtocolSession) -> [String] {
        session.machine.connected(name: "7")
        var messages: [String] = []
        session.drainOutbox { messages.append(String(decoding: Array($0), as: UTF8.self)) }
        return messages
    }

    @Test func aSubscriberConnectsThenSubscribesWithAReceiptEachFrameAMessageOfItsOwn() {
        #expect(opening(session(.subscriber)) == [
            "CONNECT\naccept-version:1.2\nhost:/\nheart-beat:10000,10000\nlogin:bench\npasscode:s3cret\n\n\0",
            "SUBSCRIBE\nid:0\ndestination:/topic/prices\nack:auto\nreceipt:bench-subscribed\n\n\0",
        ])
        #expect(opening(session(.publisher)).count == 1, "the publisher only connects")
        #expect(session(.subscriber).machine.heartbeatInterval == 5_000_000_000, "half the heart-beat it promised")
    }

    @Test func aPublicationIsASendWhoseBodyIsThePayload() {
        let publication = session(.publisher).machine.publication(of: Array("#m#".utf8))
        #expect(String(decoding: publication.bytes, as: UTF8.self)
            == "SEND\ndestination:/topic/prices\ncontent-type:text/plain\ncontent-length:3\n\n#m#\0")
        #expect(Array(publication.bytes[publication.payloadOffset..<publication.payloadOffset + 3]) == Array("#m#".utf8))
        #expect(STOMPSession.escaped("a:b\\c\nd\re") == "a\\cb\\\\c\\nd\\re", "header values escaped as STOMP 1.2 says")
    }

    @Test func theSubscriberIsReadyOnItsReceiptAndThePublisherOnConnected() throws {
        let connected = Array("CONNECTED\nversion:1.2\nheart-beat:0,0\n\n\0".utf8)
        let receipt = Array("RECEIPT\nreceipt-id:bench-subscribed\n\n\0".utf8)
        let other = Array("RECEIPT\nreceipt-id:something-else\n\n\0".utf8)
        #expect(try feed(session(.subscriber), [connected, other]).ready == 0, "CONNECTED alone is no subscription")
        #expect(try feed(session(.subscriber), [connected, other, receipt, receipt]).ready == 1, "once")
        #expect(try feed(session(.publisher), [connected]).ready == 1)
    }

    @Test func messagesSplitAtEveryByteComeOutWholeWithHeartBeatsBetween() throws {
        let bodies = [Array("first\0with a NUL inside".utf8), Array("second".utf8), Array("third\r\n".utf8)]
        var stream = Array("\n\r\n".utf8)  // heart-beats before anything
        stream += Array("MESSAGE\r\nsubscription:0\r\ncontent-length:\(bodies[0].count)\r\n\r\n".utf8) + bodies[0] + [0, 10]
        stream += Array("MESSAGE\ndestination:/topic/prices\nmessage-id:1\n\n".utf8) + bodies[1] + [0]
        stream += Array("\n\n".utf8) + Array("MESSAGE\ncontent-length:\(bodies[2].count)\n\n".utf8) + bodies[2] + [0, 10]
        for cut in 1..<stream.count {
            let seen = try feed(session(.subscriber), [Array(stream[..<cut]), Array(stream[cut...])])
            #expect(seen.delivered == bodies, "cut at \(cut)")
        }
        for cut in stride(from: 1, to: stream.count - 1, by: 7) {  // and in three pieces
            let seen = try feed(session(.subscriber), [Array(stream[..<cut]), Array(stream[cut..<cut + 1]), Array(stream[(cut + 1)...])])
            #expect(seen.delivered == bodies, "cut at \(cut) and \(cut + 1)")
        }
    }

    @Test func theBrokersErrorIsReportedInItsWords() throws {
        let error = Array("ERROR\nmessage:Bad CONNECT\ncontent-type:text/plain\ncontent-length:31\n\nAccess refused for user 'guest'\0\n".utf8)
        let seen = try feed(session(.subscriber), [error])
        #expect(seen.errors == ["STOMP ERROR: Bad CONNECT: Access refused for user 'guest'"])
        #expect(seen.ready == 0)
    }

    @Test(arguments: [
        ("MESSAGE\ncontent-length:x1\n\nabc\0", "content-length is not a number"),
        ("MESSAGE\ncontent-length:99999999999\n\nabc\0", "content-length is not a number"),
        ("MESSAGE\ncontent-length:2000\n\nabc\0", "more than the run's messages"),
        ("MESSAGE\ncontent-length:3\n\nabcd\0", "not ended by NUL"),
    ])
    func aHostileFrameIsRefusedSayingWhy(frame: String, reason: String) {
        #expect {
            _ = try feed(session(.subscriber), [Array(frame.utf8)])
        } throws: { error in
            (error as? MessageFramingError)?.description.contains(reason) == true
        }
    }

    @Test func aHeadOrABodyWithoutEndIsRefusedOnceLargerThanAllowed() throws {
        let endlessHead = Array("MESSAGE\n".utf8) + [UInt8](repeating: UInt8(ascii: "h"), count: 70_000)
        #expect(throws: MessageFramingError.self) { _ = try feed(session(.subscriber, maximumMessageSize: 1 << 20), [endlessHead]) }
        let endlessBody = Array("MESSAGE\n\n".utf8) + [UInt8](repeating: UInt8(ascii: "b"), count: 5_000)
        #expect(throws: MessageFramingError.self) { _ = try feed(session(.subscriber), [endlessBody]) }
        #expect(try feed(session(.subscriber), [Array("MESSAGE\n\nabc".utf8)]).delivered.isEmpty, "an incomplete frame waits")
    }
}
