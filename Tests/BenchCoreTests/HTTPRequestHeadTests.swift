import Testing

@testable import BenchCore

/// The head of an HTTP request as the live view's server reads it from a peer: read whole however it is cut, refused
/// with a reason (and the status to answer) when it is not HTTP or too long, never a trap.
struct HTTPRequestHeadTests {
    static func parse(_ text: String) throws(HTTPRequestHead.Invalid) -> (head: HTTPRequestHead, size: Int)? {
        try parse(Array(text.utf8))
    }

    static func parse(_ bytes: [UInt8]) throws(HTTPRequestHead.Invalid) -> (head: HTTPRequestHead, size: Int)? {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(HTTPRequestHead.Invalid) in try HTTPRequestHead.parse(buffer) }
        }.get()
    }

    static let prometheus = "GET /metrics?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9464\r\nUser-Agent: Prometheus/2.42.0\r\n"
        + "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n\r\n"

    @Test func aScrapersRequestIsReadWithItsFields() throws {
        let (head, size) = try #require(try Self.parse(Self.prometheus + "GET / HTTP/1.1\r\n"))
        #expect(head.method == "GET" && head.path == "/metrics")
        #expect(head.fields["accept"]?.hasPrefix("application/openmetrics-text") == true)
        #expect(head.fields["user-agent"] == "Prometheus/2.42.0")
        #expect(size == Self.prometheus.utf8.count, "what follows the head is not taken")
    }

    @Test func bareLineFeedsAndLeadingEmptyLinesAreTaken() throws {
        let (head, _) = try #require(try Self.parse("\r\n\nHEAD /live.json HTTP/1.0\nAccept:  */*  \n\n"))
        #expect(head.method == "HEAD" && head.path == "/live.json" && head.fields["accept"] == "*/*")
    }

    /// Cut anywhere before its empty line, the head is not yet complete; whole, it reads the same.
    @Test func everyCutBeforeTheEndIsIncompleteAndTheWholeReads() throws {
        let bytes = Array(Self.prometheus.utf8)
        for end in 0..<bytes.count {
            #expect(try Self.parse(Array(bytes[0..<end])) == nil, "cut at \(end)")
        }
        #expect(try Self.parse(Self.prometheus)?.head.path == "/metrics")
    }

    @Test(arguments: [
        ("GET /metrics\r\n\r\n", "not a request line", 400),
        ("GET  /metrics HTTP/1.1\r\n\r\n", "not a request line", 400),
        ("G(T /metrics HTTP/1.1\r\n\r\n", "not a request line", 400),
        ("GET /metrics HTTP/2.0\r\n\r\n", "not HTTP/1.0 or HTTP/1.1", 400),
        ("GET metrics HTTP/1.1\r\n\r\n", "not a path", 400),
        ("GET /a\u{7F}b HTTP/1.1\r\n\r\n", "not a path", 400),
        ("GET / HTTP/1.1\r\nno colon here\r\n\r\n", "not a header field", 400),
        ("GET / HTTP/1.1\r\n folded: value\r\n\r\n", "not a header field", 400),
        ("GET / HTTP/1.1\r\n: value\r\n\r\n", "not a header field", 400),
    ])
    func whatIsNotHTTPIsRefusedSayingWhy(text: String, reason: String, status: Int) {
        var refusal: HTTPRequestHead.Invalid?
        do { _ = try Self.parse(text) } catch { refusal = error }
        #expect(refusal?.description.contains(reason) == true && refusal?.status == status, "\(String(describing: refusal))")
    }

    @Test func aLineThatIsNotUTF8IsRefused() {
        let bytes = Array("GET / HTTP/1.1\r\nX: ".utf8) + [0xFF, 0xFE] + Array("\r\n\r\n".utf8)
        #expect(throws: HTTPRequestHead.Invalid.self) { _ = try Self.parse(bytes) }
    }

    @Test func anEndlessHeadIsRefusedAs431() {
        let endless = "GET / HTTP/1.1\r\n" + String(repeating: "X-Filler: \(String(repeating: "a", count: 100))\r\n", count: 100)
        var refusal: HTTPRequestHead.Invalid?
        do { _ = try Self.parse(endless) } catch { refusal = error }
        #expect(refusal?.status == 431, "\(String(describing: refusal))")
    }

    /// Random bytes, and a request with random bytes changed: read or refused, never a trap.
    @Test func randomBytesAreReadOrRefused() {
        var random = SplitMix64(seed: 24, stream: 0)
        let base = Array(Self.prometheus.utf8)
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<Int(random.next() % 6) { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = try? Self.parse(bytes)
            let noise = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            _ = try? Self.parse(noise)
        }
    }
}

extension HTTPRequestHeadTests {
    /// However far a request has come, what has come is incomplete, never refused: the live view's server answers
    /// when the head is whole (a refusal of a prefix would close with the rest unread, and the peer would see a reset).
    @Test(arguments: ["GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", HTTPRequestHeadTests.prometheus])
    func everyPrefixOfARequestIsIncomplete(request: String) throws {
        let bytes = Array(request.utf8)
        for end in 0..<bytes.count {
            let prefix = Array(bytes[0..<end])
            do {
                #expect(try Self.parse(prefix) == nil, "\(end) bytes")
            } catch {
                Issue.record("\(end) bytes refused: \(error)")
            }
        }
    }
}
