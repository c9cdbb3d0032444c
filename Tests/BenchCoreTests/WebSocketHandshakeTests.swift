import Testing

@testable import BenchCore

/// Lowercase hex of `bytes`.
private func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
}

/// `count` bytes (i * 7 + 3) mod 256, the same as the Python expression used for the expected digests:
/// `bytes((i*7+3)&0xff for i in range(n))`.
private func patternBytes(_ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
}

@Suite struct WebSocketSHA1Tests {
    @Test func digestOfAbcMatchesFIPS180Vector() {
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test func digestOfEmptyInputMatchesKnownValue() {
        #expect(hex(SHA1.digest([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    @Test func digestOfTwoBlockMessageMatchesFIPS180Vector() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(hex(SHA1.digest(Array(message.utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func digestOfOneMillionAsMatchesFIPS180Vector() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(hex(SHA1.digest(message)) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// Lengths around the padding boundary: 55 fits length in the same block, 56 and 63 spill into a second
    /// block, 64 fills a block exactly. Expected values from Python's hashlib.
    @Test(arguments: [
        (55, "ddf57317ef34bfee3b6df83d359098930eb278bc"),
        (56, "a0d492bb0fc889d0eca3bc137066ab6f4f74f369"),
        (63, "c55856749bef509bdfe6bfebfc7bf4e793e82132"),
        (64, "bede92be29c3874e1b54ddc77988d606fc857a8e"),
    ])
    func digestAtPaddingBoundaryMatchesHashlib(length: Int, expected: String) {
        #expect(hex(SHA1.digest(patternBytes(length))) == expected)
    }

    @Test func digestAcceptsAnyByteCollection() {
        let bytes = Array("abc".utf8)
        #expect(SHA1.digest(bytes[...]) == SHA1.digest(bytes))
        #expect(SHA1.digest(bytes).count == 20)
    }
}

@Suite struct WebSocketBase64Tests {
    /// RFC 4648, section 10.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: WebSocketBase64Tests.vectors)
    func encodeMatchesRFC4648Vector(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
    }

    @Test(arguments: WebSocketBase64Tests.vectors)
    func decodeMatchesRFC4648Vector(plain: String, encoded: String) {
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test func encodeThenDecodeRoundTripsEveryByteValue() {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes, "length \(length)")
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
    }

    @Test(arguments: [
        "Zm9",  // not a multiple of 4
        "Zm=v",  // padding followed by a character
        "Zm9v!A==",  // a character outside the alphabet
        "Zg==Zm9v",  // padding in the middle
        "Zm8=Zm8=",  // padding at the end of a group that is not the last
        "Z===",  // three padding characters
        "====",  // only padding
        "Zm9v-_==",  // the URL-safe alphabet
        "Zm 9",  // a blank
    ])
    func decodeRefusesMalformedInput(text: String) {
        #expect(Base64.decode(text) == nil)
    }
}

/// Feeds `chunks` to one reader in order; returns the head and `used` of the chunk that completed it, and the index
/// of that chunk.
private func readHead(
    _ chunks: [[UInt8]], maximumSize: Int = 8192
) throws(HTTPHeadReader.Failure) -> (head: HTTPHead, used: Int, chunk: Int)? {
    var reader = HTTPHeadReader(maximumSize: maximumSize)
    for (index, chunk) in chunks.enumerated() {
        var result: (head: HTTPHead, used: Int)?
        var failure: HTTPHeadReader.Failure?
        chunk.withUnsafeBytes { buffer in
            do throws(HTTPHeadReader.Failure) {
                result = try reader.consume(buffer)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if let result { return (result.head, result.used, index) }
    }
    return nil
}

private let sampleRequestText =
    "GET /chat HTTP/1.1\r\nHost: example.com:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"

private let sampleRequestHead = HTTPHead(
    startLine: "GET /chat HTTP/1.1",
    fields: [
        ("Host", "example.com:8080"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
    ])

@Suite struct WebSocketHTTPHeadReaderTests {
    @Test func readerParsesRequestFedWhole() throws {
        let bytes = Array(sampleRequestText.utf8)
        let result = try #require(try readHead([bytes]))
        #expect(result.head == sampleRequestHead)
        #expect(result.used == bytes.count)
    }

    @Test func readerParsesRequestFedByteByByte() throws {
        let bytes = Array(sampleRequestText.utf8)
        let result = try #require(try readHead(bytes.map { [$0] }))
        #expect(result.head == sampleRequestHead)
        #expect(result.used == 1)
        #expect(result.chunk == bytes.count - 1)
    }

    @Test func readerNeedsMoreUntilTheBlankLine() throws {
        let bytes = Array(sampleRequestText.utf8)
        #expect(try readHead([Array(bytes.dropLast())]) == nil)
        #expect(try readHead([Array(bytes.dropLast(2))]) == nil)
    }

    @Test func readerReportsBytesUsedWhenFrameBytesFollowTheHead() throws {
        let head = Array(sampleRequestText.utf8)
        let trailing: [UInt8] = [0x82, 0x85, 1, 2, 3, 4, 9, 9, 9]
        let result = try #require(try readHead([head + trailing]))
        #expect(result.head == sampleRequestHead)
        #expect(result.used == head.count)

        // The head split across two chunks, the second carrying frame bytes too.
        let split = head.count - 3
        let splitResult = try #require(try readHead([Array(head[..<split]), Array(head[split...]) + trailing]))
        #expect(splitResult.head == sampleRequestHead)
        #expect(splitResult.chunk == 1)
        #expect(splitResult.used == 3)
    }

    @Test func readerTrimsBlanksAroundValuesAndKeepsNamesAsSent() throws {
        let text = "HTTP/1.1 101 Switching Protocols\r\nUPGRADE:   WebSocket \t\r\nconnection:Upgrade\r\n\r\n"
        let result = try #require(try readHead([Array(text.utf8)]))
        #expect(result.head.startLine == "HTTP/1.1 101 Switching Protocols")
        #expect(result.head.fields.map(\.name) == ["UPGRADE", "connection"])
        #expect(result.head.value(of: "upgrade") == "WebSocket")
        #expect(result.head.value(of: "Connection") == "Upgrade")
    }

    @Test func readerRefusesHeadLongerThanTheLimit() {
        let bytes = Array(sampleRequestText.utf8)
        #expect(throws: HTTPHeadReader.Failure.tooLong(limit: 64)) {
            try readHead([bytes], maximumSize: 64)
        }
        #expect(throws: HTTPHeadReader.Failure.tooLong(limit: 64)) {
            try readHead(bytes.map { [$0] }, maximumSize: 64)
        }
    }

    @Test func readerAcceptsHeadOfExactlyTheLimit() throws {
        let bytes = Array(sampleRequestText.utf8)
        let result = try #require(try readHead([bytes], maximumSize: bytes.count))
        #expect(result.head == sampleRequestHead)
        #expect(throws: HTTPHeadReader.Failure.tooLong(limit: bytes.count - 1)) {
            try readHead([bytes], maximumSize: bytes.count - 1)
        }
    }

    @Test func readerRefusesNonASCIIBytes() {
        let bytes = Array("GET /caf\u{E9} HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect {
            try readHead([bytes])
        } throws: { error in
            guard case .malformed = error as? HTTPHeadReader.Failure else { return false }
            return true
        }
    }

    @Test func readerRefusesHeaderLineWithoutName() {
        let bytes = Array("GET / HTTP/1.1\r\nno colon here\r\n\r\n".utf8)
        #expect {
            try readHead([bytes])
        } throws: { error in
            guard case .malformed = error as? HTTPHeadReader.Failure else { return false }
            return true
        }
    }

    @Test func headBytesParseBackToTheSameHead() throws {
        let result = try #require(try readHead([sampleRequestHead.bytes]))
        #expect(result.head == sampleRequestHead)
        #expect(String(decoding: sampleRequestHead.bytes, as: UTF8.self) == sampleRequestText)
    }
}

@Suite struct WebSocketHandshakeTests {
    @Test func acceptValueMatchesRFC6455Example() {
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func madeKeyIsSixteenBytesInBase64() {
        var random = SystemRandomNumberGenerator()
        let key = WebSocketHandshake.makeKey(using: &random)
        #expect(key.count == 24)
        #expect(Base64.decode(key)?.count == 16)
    }

    @Test func serverAnswersClientsOwnRequestWith101() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let request = WebSocketHandshake.request(host: "localhost:9000", path: "/bench", key: key)
        let answer = try WebSocketHandshake.answer(to: request, path: "/bench")
        #expect(answer.startLine == "HTTP/1.1 101 Switching Protocols")
        #expect(answer.value(of: "Sec-WebSocket-Accept") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) == nil)
    }

    @Test func serverAcceptsCaseInsensitiveHeadersAndConnectionList() throws {
        let key = "AQIDBAUGBwgJCgsMDQ4PEA=="
        let request = HTTPHead(
            startLine: "GET /chat HTTP/1.1",
            fields: [
                ("host", "example.com"), ("UPGRADE", "WebSocket"), ("connection", "keep-alive, Upgrade"),
                ("sec-websocket-key", key), ("SEC-WEBSOCKET-VERSION", "13"),
            ])
        let answer = try WebSocketHandshake.answer(to: request, path: "/chat")
        #expect(answer.startLine.hasPrefix("HTTP/1.1 101"))
        #expect(answer.value(of: "sec-websocket-accept") == WebSocketHandshake.acceptValue(forKey: key))
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) == nil)
    }

    /// `sampleRequestHead` with field `name` set to `value` (or removed when nil) and the start line replaced.
    private func request(startLine: String = "GET /chat HTTP/1.1", setting name: String? = nil, to value: String? = nil)
        -> HTTPHead
    {
        var head = sampleRequestHead
        head.startLine = startLine
        if let name {
            head.fields.removeAll { $0.name == name }
            if let value { head.fields.append((name, value)) }
        }
        return head
    }

    private func refusalStatus(_ request: HTTPHead, path: String = "/chat") -> Int? {
        do {
            _ = try WebSocketHandshake.answer(to: request, path: path)
            return nil
        } catch {
            return error.status
        }
    }

    @Test func serverRefusesWrongPathWith404() {
        #expect(refusalStatus(request(), path: "/other") == 404)
        #expect(refusalStatus(request(startLine: "GET /chat/ HTTP/1.1")) == 404)
    }

    @Test func serverRefusesPostWith400() {
        #expect(refusalStatus(request(startLine: "POST /chat HTTP/1.1")) == 400)
    }

    @Test func serverRefusesOtherHTTPVersionOrMalformedStartLineWith400() {
        #expect(refusalStatus(request(startLine: "GET /chat HTTP/1.0")) == 400)
        #expect(refusalStatus(request(startLine: "GET /chat")) == 400)
    }

    @Test func serverRefusesMissingUpgradeWith400() {
        #expect(refusalStatus(request(setting: "Upgrade", to: nil)) == 400)
        #expect(refusalStatus(request(setting: "Upgrade", to: "h2c")) == 400)
    }

    @Test func serverRefusesMissingConnectionUpgradeWith400() {
        #expect(refusalStatus(request(setting: "Connection", to: nil)) == 400)
        #expect(refusalStatus(request(setting: "Connection", to: "keep-alive")) == 400)
    }

    @Test func serverRefusesVersion8With426() {
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Version", to: "8")) == 426)
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Version", to: nil)) == 426)
    }

    @Test func serverRefusesKeyThatIsNotSixteenBytesWith400() {
        // 15 bytes, 17 bytes, not Base64, missing.
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Key", to: Base64.encode([UInt8](repeating: 1, count: 15)))) == 400)
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Key", to: Base64.encode([UInt8](repeating: 1, count: 17)))) == 400)
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Key", to: "not base64 at all!")) == 400)
        #expect(refusalStatus(request(setting: "Sec-WebSocket-Key", to: nil)) == 400)
    }

    @Test func refusalHeadCarriesStatusAndVersionFor426() {
        let head = WebSocketHandshake.refusal(.init(status: 426, reason: "old"))
        #expect(head.startLine == "HTTP/1.1 426 Upgrade Required")
        #expect(head.value(of: "Sec-WebSocket-Version") == "13")
        #expect(WebSocketHandshake.refusal(.init(status: 404, reason: "")).startLine == "HTTP/1.1 404 Not Found")
    }

    @Test func clientFindsProblemWithA200Answer() {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let answer = HTTPHead(
            startLine: "HTTP/1.1 200 OK",
            fields: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")])
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) != nil)
    }

    @Test func clientFindsProblemWithWrongAcceptValue() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        var answer = try WebSocketHandshake.answer(to: sampleRequestHead, path: "/chat")
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) == nil)
        answer.fields = answer.fields.map {
            $0.name == "Sec-WebSocket-Accept" ? ($0.name, "s3pPLMBiTxaQ9kYGzzhZRbK+xOp=") : $0
        }
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) != nil)
        // The right answer checked against another key.
        let fresh = try WebSocketHandshake.answer(to: sampleRequestHead, path: "/chat")
        #expect(WebSocketHandshake.problem(withAnswer: fresh, key: "AQIDBAUGBwgJCgsMDQ4PEA==") != nil)
    }

    @Test func clientFindsProblemWith101ThatDoesNotUpgrade() {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let answer = HTTPHead(
            startLine: "HTTP/1.1 101 Switching Protocols",
            fields: [("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")])
        #expect(WebSocketHandshake.problem(withAnswer: answer, key: key) != nil)
    }
}
