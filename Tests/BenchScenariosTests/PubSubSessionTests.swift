import BenchCore
import Testing

@testable import BenchScenarios

/// Redis and NATS as a subscriber reads them, fed the way reads come: split anywhere, coalesced, hostile.
@Suite(.timeLimit(.minutes(3))) struct PubSubSessionTests {
    private func feed(_ session: PubSubSession, _ chunks: [[UInt8]]) throws(MessageFramingError) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        for var chunk in chunks {
            var failure: MessageFramingError?
            chunk.withUnsafeMutableBytes { bytes in
                do throws(MessageFramingError) {
                    _ = try session.consume(bytes, endsMessage: false) { event in
                        if case .message(let payload) = event { messages.append(Array(payload)) }
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
            let session = PubSubSession(.redis(channel: "news", password: nil), subscriber: true, maximumMessageSize: 1024)
            #expect(try feed(session, [Array(stream[..<cut]), Array(stream[cut...])]) == payloads, "cut at \(cut)")
        }
    }

    @Test func largeMessagesInFullReadsAreNotTakenForTooLarge() throws {
        // 10,000-byte messages read 64 KiB at a time: a read often ends inside one, and what is carried over plus the
        // next read exceeds one message's size without any message doing so.
        let session = PubSubSession(.redis(channel: "news", password: nil), subscriber: true, maximumMessageSize: 64 << 10)
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000)
        let stream = (0..<40).flatMap { _ in redisMessage(payload) }
        let chunks = stride(from: 0, to: stream.count, by: 64 << 10).map { Array(stream[$0..<min($0 + (64 << 10), stream.count)]) }
        #expect(try feed(session, chunks).count == 40)
    }

    @Test func anEmptyRESPArrayElementIsRefusedNotATrap() {
        let session = PubSubSession(.redis(channel: "news", password: nil), subscriber: true, maximumMessageSize: 1024)
        #expect(throws: MessageFramingError.self) { _ = try feed(session, [Array("*1\r\n\r\n".utf8)]) }
    }

    @Test func aNATSPingIsOwedAPongAndMessagesComeOutWhole() throws {
        let session = PubSubSession(.nats(subject: "prices"), subscriber: true, maximumMessageSize: 1024)
        var stream = Array("PING\r\nMSG prices 1 5\r\nhello\r\nMSG prices 1 reply.to 3\r\nabc\r\n".utf8)
        var pongs = 0
        var messages: [[UInt8]] = []
        stream.withUnsafeMutableBytes { bytes in
            pongs = (try? session.consume(bytes, endsMessage: false) { event in
                if case .message(let payload) = event { messages.append(Array(payload)) }
            }) ?? -1
        }
        #expect(pongs == 1)
        #expect(messages == [Array("hello".utf8), Array("abc".utf8)])
    }
}
