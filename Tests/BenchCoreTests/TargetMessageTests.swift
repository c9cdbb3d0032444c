import Testing

@testable import BenchCore

// MARK: - Helpers

/// CRC-16/CCITT-FALSE of `bytes`.
private func crc(_ bytes: [UInt8]) -> UInt16 {
    bytes.withUnsafeBytes { CRC16.ccittFalse($0) }
}

/// `body` framed by `framing`: header, body, trailer.
private func framed(_ body: [UInt8], _ framing: MessageFraming) -> [UInt8] {
    var message = [UInt8](repeating: 0xAA, count: framing.headerSize + body.count + framing.trailerSize)
    message.replaceSubrange(framing.headerSize..<framing.headerSize + body.count, with: body)
    message.withUnsafeMutableBytes { framing.frame($0) }
    return message
}

/// A printable body without newline of `count` bytes, distinct per `seed`.
private func sampleBody(_ count: Int, seed: Int) -> [UInt8] {
    (0..<count).map { UInt8(ascii: "a") + UInt8((($0 + seed * 7) % 26)) }
}

/// The bodies of the sample stream: several lengths, an empty one included.
private let sampleBodies: [[UInt8]] = [
    sampleBody(5, seed: 1), [], sampleBody(300, seed: 2), sampleBody(1, seed: 3), sampleBody(42, seed: 4),
    [], sampleBody(17, seed: 5),
]

/// Feeds `chunks` in order to a fresh decoder; returns the bodies it yields and the decoder's state after.
private func decodeBodies(
    _ chunks: [[UInt8]], _ framing: MessageFraming, maximumMessageSize: Int = 1024
) throws -> (bodies: [[UInt8]], buffered: Int) {
    var decoder = MessageDecoder(framing: framing, maximumMessageSize: maximumMessageSize)
    var bodies: [[UInt8]] = []
    for var chunk in chunks {
        let proceed = try chunk.withUnsafeMutableBytes { buffer in
            try decoder.decode(buffer) { body in
                bodies.append(Array(body))
                return true
            }
        }
        #expect(proceed)
    }
    return (bodies, decoder.bufferedByteCount)
}

/// Whether `chunks` fed to a fresh decoder throw a MessageFramingError.
private func throwsFramingError(
    _ chunks: [[UInt8]], _ framing: MessageFraming, maximumMessageSize: Int = 1024
) -> Bool {
    do {
        _ = try decodeBodies(chunks, framing, maximumMessageSize: maximumMessageSize)
        return false
    } catch {
        return error is MessageFramingError
    }
}

/// The marker written into a fresh 42-byte array.
private func markerBytes(_ marker: Marker) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: Marker.size)
    bytes.withUnsafeMutableBytes { marker.write(into: $0) }
    return bytes
}

private func findMarker(_ bytes: [UInt8]) -> Marker? {
    bytes.withUnsafeBytes { Marker.find(in: $0) }
}

// MARK: - Tests

@Suite struct TargetMessageTests {

    // MARK: CRC16

    @Test func crc16MatchesPublishedCheckValue() {
        #expect(crc(Array("123456789".utf8)) == 0x29B1)
    }

    @Test func crc16OfEmptyInputIsInitialValue() {
        #expect(crc([]) == 0xFFFF)
    }

    // MARK: Marker

    @Test func markerRoundTrips() {
        let marker = Marker(run: 0xdead_beef_cafe_babe, client: 7, sequence: 123_456)
        let bytes = markerBytes(marker)
        #expect(String(decoding: bytes, as: UTF8.self) == "#bench-deadbeefcafebabe-00000007-0001e240#")
        #expect(findMarker(bytes) == marker)
    }

    @Test func markerSizeIs42() {
        #expect(Marker.size == 42)
        #expect(markerBytes(Marker(run: 1, client: 2, sequence: 3)).count == 42)
    }

    @Test func markerFoundInsideJSON() {
        let marker = Marker(run: 0xdead_beef_cafe_babe, client: 7, sequence: 123_456)
        let text = "{\"type\":\"broadcast\",\"payload\":\"\(String(decoding: markerBytes(marker), as: UTF8.self))\"}"
        #expect(findMarker(Array(text.utf8)) == marker)
    }

    @Test func markerFoundAfterFalseStart() {
        let marker = Marker(run: 0x0123_4567_89ab_cdef, client: 0xffff, sequence: 1)
        let garbage = Array("x#bench-zzzzzzzzzzzzzzzz-00000001-00000002#y#bench-".utf8)
        #expect(findMarker(garbage + markerBytes(marker) + Array("tail".utf8)) == marker)
    }

    @Test func markerFoundAtVeryEndOfBuffer() {
        let marker = Marker(run: 42, client: 3, sequence: 9)
        #expect(findMarker(Array("some leading bytes ##".utf8) + markerBytes(marker)) == marker)
    }

    @Test func markerFoundFirstOfTwo() {
        let first = Marker(run: 1, client: 1, sequence: 1)
        let second = Marker(run: 2, client: 2, sequence: 2)
        #expect(findMarker(markerBytes(first) + markerBytes(second)) == first)
    }

    @Test func markerNotFoundWhenTruncatedByOneByte() {
        let bytes = markerBytes(Marker(run: 0xdead_beef_cafe_babe, client: 7, sequence: 123_456))
        #expect(findMarker(Array(bytes.dropLast())) == nil)
        #expect(findMarker(Array(bytes.dropFirst())) == nil)
        #expect(findMarker(Array("prefix ".utf8) + Array(bytes.dropLast())) == nil)
    }

    @Test func markerNotFoundWithUppercaseHex() {
        let text = "#bench-DEADBEEFCAFEBABE-00000007-0001E240#"
        #expect(text.utf8.count == Marker.size)
        #expect(findMarker(Array(text.utf8)) == nil)
    }

    @Test func markerNotFoundWithNonHex() {
        var bytes = markerBytes(Marker(run: 0xdead_beef_cafe_babe, client: 7, sequence: 123_456))
        for position in [7, 22, 24, 31, 33, 40] {
            var broken = bytes
            broken[position] = UInt8(ascii: "g")
            #expect(findMarker(broken) == nil, "non-hex at \(position)")
        }
        bytes[23] = UInt8(ascii: "_")
        #expect(findMarker(bytes) == nil, "wrong separator")
    }

    @Test func markerNotFoundWhenAbsent() {
        #expect(findMarker([]) == nil)
        #expect(findMarker(Array("{\"type\":\"broadcast\",\"payload\":\"hello, world, nothing to see here\"}".utf8)) == nil)
        #expect(findMarker([UInt8](repeating: UInt8(ascii: "#"), count: 100)) == nil)
    }

    @Test func markerMaximumValuesRoundTrip() {
        let marker = Marker(run: .max, client: .max, sequence: .max)
        let bytes = markerBytes(marker)
        #expect(String(decoding: bytes, as: UTF8.self) == "#bench-ffffffffffffffff-ffffffff-ffffffff#")
        #expect(findMarker(bytes) == marker)
        let zero = Marker(run: 0, client: 0, sequence: 0)
        #expect(findMarker(markerBytes(zero)) == zero)
    }

    // MARK: MessageFraming + MessageDecoder: streams

    @Test(arguments: MessageFraming.allCases)
    func decoderYieldsBodiesFedWhole(_ framing: MessageFraming) throws {
        let stream = sampleBodies.flatMap { framed($0, framing) }
        let result = try decodeBodies([stream], framing)
        #expect(result.bodies == sampleBodies)
        #expect(result.buffered == 0)
    }

    @Test(arguments: MessageFraming.allCases)
    func decoderYieldsBodiesFedByteByByte(_ framing: MessageFraming) throws {
        let stream = sampleBodies.flatMap { framed($0, framing) }
        let result = try decodeBodies(stream.map { [$0] }, framing)
        #expect(result.bodies == sampleBodies)
        #expect(result.buffered == 0)
    }

    @Test(arguments: MessageFraming.allCases)
    func decoderYieldsBodiesSplitAtEveryPosition(_ framing: MessageFraming) throws {
        let stream = sampleBodies.flatMap { framed($0, framing) }
        for split in 0...stream.count {
            let result = try decodeBodies([Array(stream[..<split]), Array(stream[split...])], framing)
            #expect(result.bodies == sampleBodies, "\(framing) split at \(split)")
            #expect(result.buffered == 0, "\(framing) split at \(split)")
        }
    }

    @Test(arguments: MessageFraming.allCases)
    func decoderKeepsPartialMessageBuffered(_ framing: MessageFraming) throws {
        let message = framed(sampleBody(10, seed: 9), framing)
        let result = try decodeBodies([Array(message.dropLast())], framing)
        #expect(result.bodies.isEmpty)
        #expect(result.buffered == message.count - 1)
    }

    @Test(arguments: MessageFraming.allCases)
    func framingSizesMatchFramedMessage(_ framing: MessageFraming) {
        let body = sampleBody(12, seed: 0)
        let message = framed(body, framing)
        #expect(message.count == framing.headerSize + 12 + framing.trailerSize)
        #expect(Array(message[framing.headerSize..<framing.headerSize + 12]) == body)
    }

    // MARK: stx errors

    @Test func stxCorruptedCRCThrows() {
        var message = framed(sampleBody(20, seed: 1), .stx)
        message[message.count - 1] ^= 0x01
        #expect(throwsFramingError([message], .stx))
        #expect(throwsFramingError(message.map { [$0] }, .stx), "byte by byte")
        #expect(throws: MessageFramingError.self) { try decodeBodies([message], .stx) }
    }

    @Test func stxCorruptedBodyThrows() {
        var message = framed(sampleBody(20, seed: 1), .stx)
        message[8] ^= 0x40
        #expect(throwsFramingError([message], .stx))
    }

    @Test func stxWrongStartByteThrows() {
        var message = framed(sampleBody(20, seed: 1), .stx)
        message[0] = 0x03
        #expect(throwsFramingError([message], .stx))
        #expect(throwsFramingError([[0x03]], .stx), "a single wrong byte")
        // A good message then a bad start byte: the second one, reached from carried-over bytes.
        let good = framed(sampleBody(4, seed: 2), .stx)
        #expect(throwsFramingError((good + message).map { [$0] }, .stx), "byte by byte")
    }

    // MARK: size limits

    @Test func length32OversizeAnnouncementThrowsBeforeBody() {
        let header: [UInt8] = [0x00, 0x10, 0x00, 0x00]  // 1 << 20
        #expect(throwsFramingError([header], .length32, maximumMessageSize: 1024))
        #expect(throwsFramingError(header.map { [$0] }, .length32, maximumMessageSize: 1024), "byte by byte")
        #expect(throwsFramingError([[0x00, 0x10], [0x00, 0x00]], .length32, maximumMessageSize: 1024), "split header")
    }

    @Test func length16AndStxOversizeAnnouncementThrows() {
        #expect(throwsFramingError([[0x04, 0x00]], .length16, maximumMessageSize: 1024))
        #expect(throwsFramingError([[0x02, 0x01, 0x00, 0x04, 0x00]], .stx, maximumMessageSize: 1024))
        #expect(throwsFramingError([[0x02], [0x01], [0x00], [0x04], [0x00]], .stx, maximumMessageSize: 1024))
    }

    @Test(arguments: MessageFraming.allCases)
    func messageOfExactlyMaximumSizeIsAccepted(_ framing: MessageFraming) throws {
        let maximum = 64
        let body = sampleBody(maximum - framing.headerSize - framing.trailerSize, seed: 3)
        let message = framed(body, framing)
        #expect(message.count == maximum)
        #expect(try decodeBodies([message], framing, maximumMessageSize: maximum).bodies == [body])
        #expect(try decodeBodies(message.map { [$0] }, framing, maximumMessageSize: maximum).bodies == [body])
    }

    @Test(arguments: MessageFraming.allCases)
    func messageOneOverMaximumSizeThrows(_ framing: MessageFraming) {
        let maximum = 64
        let message = framed(sampleBody(maximum + 1 - framing.headerSize - framing.trailerSize, seed: 3), framing)
        #expect(throwsFramingError([message], framing, maximumMessageSize: maximum))
        #expect(throwsFramingError(message.map { [$0] }, framing, maximumMessageSize: maximum), "byte by byte")
    }

    @Test func lineLongerThanMaximumThrows() {
        let line = sampleBody(100, seed: 4)
        #expect(throwsFramingError([line], .line, maximumMessageSize: 32), "no newline yet")
        #expect(throwsFramingError([line + [UInt8(ascii: "\n")]], .line, maximumMessageSize: 32), "with newline")
    }

    @Test func lineLongerThanMaximumThrowsFedByteByByte() {
        let line = sampleBody(100, seed: 4)
        #expect(throwsFramingError(line.map { [$0] }, .line, maximumMessageSize: 32))
        let afterGoodLine = framed(sampleBody(3, seed: 0), .line) + line
        #expect(throwsFramingError(afterGoodLine.map { [$0] }, .line, maximumMessageSize: 32), "after a good line")
    }

    // MARK: stopping

    @Test(arguments: MessageFraming.allCases)
    func returningFalseStopsDecoding(_ framing: MessageFraming) throws {
        let stream = sampleBodies.flatMap { framed($0, framing) }
        // Fed whole, then with the first message cut so it completes from carried-over bytes.
        for chunks in [[stream], [[stream[0]], Array(stream.dropFirst())]] {
            var decoder = MessageDecoder(framing: framing, maximumMessageSize: 1024)
            var bodies: [[UInt8]] = []
            var results: [Bool] = []
            for var chunk in chunks {
                let proceed = try chunk.withUnsafeMutableBytes { buffer in
                    try decoder.decode(buffer) { body in
                        bodies.append(Array(body))
                        return false
                    }
                }
                results.append(proceed)
            }
            #expect(bodies == [sampleBodies[0]], "\(framing), \(chunks.count) chunk(s)")
            #expect(results.last == false, "\(framing), \(chunks.count) chunk(s)")
        }
    }

    @Test func returningFalseAfterSecondMessageStops() throws {
        let stream = sampleBodies.flatMap { framed($0, .length16) }
        var decoder = MessageDecoder(framing: .length16, maximumMessageSize: 1024)
        var bodies: [[UInt8]] = []
        var copy = stream
        let proceed = try copy.withUnsafeMutableBytes { buffer in
            try decoder.decode(buffer) { body in
                bodies.append(Array(body))
                return bodies.count < 2
            }
        }
        #expect(!proceed)
        #expect(bodies == Array(sampleBodies.prefix(2)))
    }

    // MARK: headers

    @Test func length16HeaderIsBigEndian() {
        let message = framed(sampleBody(300, seed: 1), .length16)
        #expect(message.count == 302)
        #expect(Array(message.prefix(2)) == [0x01, 0x2C])
    }

    @Test func length32HeaderIsBigEndian() {
        let message = framed(sampleBody(300, seed: 1), .length32)
        #expect(message.count == 304)
        #expect(Array(message.prefix(4)) == [0x00, 0x00, 0x01, 0x2C])
    }

    @Test func stxHeaderAndTrailer() {
        let body = sampleBody(300, seed: 1)
        let message = framed(body, .stx)
        #expect(message.count == 307)
        #expect(Array(message.prefix(5)) == [0x02, 0x01, 0x00, 0x01, 0x2C])
        let check = crc(Array(message[1..<305]))
        #expect(Array(message.suffix(2)) == [UInt8(check >> 8), UInt8(check & 0xFF)])
    }

    @Test func lineTrailerIsNewline() {
        let message = framed(sampleBody(300, seed: 1), .line)
        #expect(message.count == 301)
        #expect(message.last == UInt8(ascii: "\n"))
        #expect(!message.dropLast().contains(UInt8(ascii: "\n")))
    }
}
