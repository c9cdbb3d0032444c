import BenchCore
import Testing

@testable import BenchProtocols

/// Server-Sent Events as a subscriber of an `sse://` target reads them, and the responses its publisher reads: fed
/// split at every byte, with every line ending the spec allows, and hostile.
@Suite struct HTTPEventStreamTests {
    /// What `stream` gives for `chunks`: the events' data, and whether it opened and what errors it reported.
    static func feed(_ role: HTTPEventStream.Role, _ chunks: [[UInt8]]) throws -> (events: [String], opened: Bool, errors: [String]) {
        let stream = HTTPEventStream(role: role, maximumMessageSize: 256)
        var events: [String] = []
        var errors: [String] = []
        var opened = false
        for chunk in chunks {
            try chunk.withUnsafeBytes { bytes in
                try stream.consume(bytes) { event in
                    switch event {
                    case .delivered(let data): events.append(String(decoding: data, as: UTF8.self))
                    case .ready: opened = true
                    case .serverError(let text): errors.append(text)
                    case .note: break
                    }
                }
            }
        }
        return (events, opened, errors)
    }

    static let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    /// Two events (one of two data lines), comments, an id, a retry and an event name, with LF, CRLF and CR endings.
    static let events = ": hello\nretry: 500\r\nid: 7\revent: quote\ndata: first #bench\ndata:second\n\ndata: two\r\n\r\n"
    static let expected = ["first #bench\nsecond", "two"]

    /// The event stream as chunks of `size` bytes each.
    static func chunked(_ text: String, size: Int) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            let piece = bytes[start..<min(start + size, bytes.count)]
            out += Array("\(String(piece.count, radix: 16));ext=1\r\n".utf8) + piece + [13, 10]
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    @Test(arguments: [1, 7, 1_000])
    func eventsInChunksSplitAtEveryByteComeOutWhole(chunkSize: Int) throws {
        let stream = Array(Self.head.utf8) + Self.chunked(Self.events, size: chunkSize)
        for cut in 1..<stream.count {
            let (events, opened, errors) = try Self.feed(.subscriber, [Array(stream[..<cut]), Array(stream[cut...])])
            #expect(events == Self.expected && opened && errors.isEmpty, "cut at \(cut): \(events) \(errors)")
        }
    }

    @Test func aPlainStreamWithoutChunksReadsTheSame() throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        let (events, opened, _) = try Self.feed(.subscriber, [Array((head + Self.events).utf8)])
        #expect(events == Self.expected && opened)
    }

    @Test func aStatusOtherThan200IsTheServersErrorAndNothingOpens() throws {
        let (events, opened, errors) = try Self.feed(.subscriber, [Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)])
        #expect(events.isEmpty && !opened)
        #expect(errors == ["the event stream answered HTTP/1.1 404 Not Found"])
    }

    @Test(arguments: [
        (String(repeating: "X-Filler: aaaaaaaaaaaaaaaa\r\n", count: 1_000), "an HTTP head longer than 16 KiB"),
        (head + "zz\r\n", "a chunk size that is not hexadecimal"),
        (head + "123456789\r\n", "a chunk size that is not hexadecimal"),
        ("HTTP/1.1 200 OK\r\n\r\ndata: " + String(repeating: "x", count: 400) + "\n", "longer than"),
        ("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", count: 10), "an event's data longer than"),
    ])
    func whatDoesNotFitIsRefusedWithAReasonNotATrap(stream: String, reason: String) {
        #expect {
            _ = try Self.feed(.subscriber, [Array(stream.utf8)])
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func thePublishersResponsesAreReadOneAfterAnotherAndAFailureIsReported() throws {
        let responses = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\nno"
        let bytes = Array(responses.utf8)
        for cut in 1..<bytes.count {
            let (events, _, errors) = try Self.feed(.publisher, [Array(bytes[..<cut]), Array(bytes[cut...])])
            #expect(events.isEmpty && errors == ["a POST was answered HTTP/1.1 500 Internal Server Error"], "cut at \(cut): \(errors)")
        }
    }

    /// Transfer-Encoding read as HTTP writes it: any case, with or without the space, across fields: each form opens
    /// a chunked stream whose events come out whole.
    @Test(arguments: [
        "Transfer-Encoding:chunked", "TRANSFER-ENCODING: Chunked", "transfer-encoding:\tchunked ",
    ])
    func aChunkedStreamIsFoundWhateverTheFieldsSpelling(field: String) throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\(field)\r\n\r\n"
        let (events, opened, errors) = try Self.feed(.subscriber, [Array(head.utf8) + Self.chunked(Self.events, size: 7)])
        #expect(opened && errors.isEmpty)
        #expect(events == Self.expected, "\(events)")
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "a transfer coding bench did not ask for: gzip"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n", "did not ask for: gzip"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", "chunked applied more than once"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", "Content-Length is not one number"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "Content-Length is not one number"),
    ])
    func aBodyThatCannotBeDelimitedIsRefused(head: String, reason: String) {
        for role in [HTTPEventStream.Role.subscriber, .publisher] {
            #expect {
                _ = try Self.feed(role, [Array(head.utf8)])
            } throws: { error in
                "\(error)".contains(reason)
            }
        }
    }

    /// An interim 1xx response is skipped, and a chunked response's trailer fields are not read as the next head.
    @Test func interimResponsesAndTrailersAreSkipped() throws {
        let stream = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + Self.head
        let (events, opened, errors) = try Self.feed(.subscriber, [Array(stream.utf8) + Self.chunked(Self.events, size: 9)])
        #expect(opened && errors.isEmpty && events == Self.expected, "\(events) \(errors)")
        let responses = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "2\r\nok\r\n0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n"
            + "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
        let bytes = Array(responses.utf8)
        for cut in 1..<bytes.count {
            let (_, _, errors) = try Self.feed(.publisher, [Array(bytes[..<cut]), Array(bytes[cut...])])
            #expect(errors == ["a POST was answered HTTP/1.1 500 Internal Server Error"], "cut at \(cut): \(errors)")
        }
    }

    /// A POST's response with neither Content-Length nor chunking would have its body read as the next head: refused.
    @Test func aPublishersResponseWithoutALengthIsRefused() {
        #expect {
            _ = try Self.feed(.publisher, [Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nok".utf8)])
        } throws: { error in
            "\(error)".contains("neither Content-Length nor chunked")
        }
    }
}
