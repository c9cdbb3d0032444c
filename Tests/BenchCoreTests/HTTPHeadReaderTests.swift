import Testing

@testable import BenchCore

/// The one reader of an HTTP/1.x head, as its users other than the live view's server meet it: a response's head (a
/// WebSocket answer, an event stream's), with the leniencies RFC 9112 allows and none that would let a peer hold it
/// forever.
struct HTTPHeadReaderTests {
    private func read(_ text: String, limit: Int = 8192) throws(HTTPHeadReader.Failure) -> (head: HTTPHead, used: Int)? {
        var reader = HTTPHeadReader(maximumSize: limit)
        return try Array(text.utf8).withUnsafeBytes { bytes in
            Result { () throws(HTTPHeadReader.Failure) in try reader.consume(bytes) }
        }.get()
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesReadAsTheCRLFHead() throws {
        let crlfHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
        let lenientHead = "\r\n\nHTTP/1.1 200 OK\nContent-Type:  text/event-stream \n\n"
        let crlf = try #require(try read(crlfHead + "data: 1"))
        let lenient = try #require(try read(lenientHead + "data: 1"))
        #expect(lenient.head == crlf.head)
        #expect(lenient.head.value(of: "content-type") == "text/event-stream")
        #expect(crlf.used == crlfHead.utf8.count && lenient.used == lenientHead.utf8.count, "what follows is left")
    }

    @Test func endlessEmptyLinesAreRefusedAsTooLongNotSkippedForever() {
        #expect(throws: HTTPHeadReader.Failure.tooLong(limit: 64)) {
            try read(String(repeating: "\r\n", count: 40), limit: 64)
        }
    }

    @Test(arguments: ["X(Y: 1", " folded: value", ": value", "no colon"])
    func aFieldWhoseNameIsNotATokenIsRefused(line: String) {
        #expect(throws: HTTPHeadReader.Failure.malformed("not a header field: \(line)")) {
            try read("HTTP/1.1 200 OK\r\n\(line)\r\n\r\n")
        }
    }
}
