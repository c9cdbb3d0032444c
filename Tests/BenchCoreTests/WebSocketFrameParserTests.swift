import Testing

@testable import BenchCore

/// An event of the parser, copied out of its callback (the callback's buffers point into the input).
private enum Event: Equatable {
    case data([UInt8])
    case messageEnd
    case ping([UInt8])
    case pong([UInt8])
    case close(UInt16?, String)
}

/// The bytes of one frame as a peer would send it: `mask` (a client's key, or nil) masks the payload per RFC 6455 5.3.
/// `lengthForm` forces the 7-bit (nil, as short as possible), 16-bit (126) or 64-bit (127) length encoding.
private func frame(
    fin: Bool = true, rsv: UInt8 = 0, opcode: UInt8, mask: UInt32? = nil, payload: [UInt8] = [], lengthForm: UInt8? = nil
) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 0x7) << 4 | (opcode & 0x0F)]
    let maskBit: UInt8 = mask == nil ? 0 : 0x80
    let form = lengthForm ?? (payload.count < 126 ? 0 : payload.count <= 0xFFFF ? 126 : 127)
    switch form {
    case 126:
        bytes.append(maskBit | 126)
        bytes += [UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
    case 127:
        bytes.append(maskBit | 127)
        bytes += stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64($0)) }
    default:
        bytes.append(maskBit | UInt8(payload.count))
    }
    if let mask {
        let key = [UInt8(mask >> 24), UInt8(mask >> 16 & 0xFF), UInt8(mask >> 8 & 0xFF), UInt8(mask & 0xFF)]
        bytes += key
        bytes += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    } else {
        bytes += payload
    }
    return bytes
}

private enum Op {
    static let continuation: UInt8 = 0x0
    static let text: UInt8 = 0x1
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA
}

/// `count` bytes of a recognisable pattern starting at `seed`.
private func payload(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 31 &+ 7) }
}

/// Consecutive data events merged, so streams split differently compare equal.
private func merged(_ events: [Event]) -> [Event] {
    var result: [Event] = []
    for event in events {
        if case .data(let more) = event, case .data(let before)? = result.last {
            result[result.count - 1] = .data(before + more)
        } else if case .data(let bytes) = event, bytes.isEmpty {
            continue
        } else {
            result.append(event)
        }
    }
    return result
}

/// What feeding a parser some chunks gave.
private struct Outcome {
    var events: [Event] = []
    /// The chunks after parsing (unmasked in place where the peer masks).
    var chunks: [[UInt8]] = []
    /// False when a `parse` call returned false.
    var finished = true
    var isInsideMessage = false
}

/// Feeds `chunks` in order to `parser`; `stopAfter` makes the callback return false after that many events.
private func run(
    _ chunks: [[UInt8]], parser: inout WebSocketFrameParser, stopAfter: Int? = nil
) throws(WebSocketError) -> Outcome {
    var outcome = Outcome()
    for var chunk in chunks {
        var failure: WebSocketError?
        let proceeded = chunk.withUnsafeMutableBytes { buffer -> Bool in
            do throws(WebSocketError) {
                return try parser.parse(buffer) { (event) throws(WebSocketError) -> Bool in
                    switch event {
                    case .data(let bytes): outcome.events.append(.data(Array(bytes)))
                    case .messageEnd: outcome.events.append(.messageEnd)
                    case .ping(let bytes): outcome.events.append(.ping(Array(bytes)))
                    case .pong(let bytes): outcome.events.append(.pong(Array(bytes)))
                    case .close(let code, let reason): outcome.events.append(.close(code, reason))
                    }
                    if let stopAfter, outcome.events.count >= stopAfter { return false }
                    return true
                }
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        outcome.chunks.append(chunk)
        if !proceeded {
            outcome.finished = false
            break
        }
    }
    outcome.isInsideMessage = parser.isInsideMessage
    return outcome
}

/// Feeds `chunks` to a fresh parser.
private func run(
    _ chunks: [[UInt8]], peerMasks: Bool, maximumMessageSize: Int = 1 << 20, acceptsText: Bool = false,
    stopAfter: Int? = nil
) throws(WebSocketError) -> Outcome {
    var parser = WebSocketFrameParser(
        maximumMessageSize: maximumMessageSize, peerMasks: peerMasks, acceptsText: acceptsText)
    return try run(chunks, parser: &parser, stopAfter: stopAfter)
}

/// The error parsing `bytes` (whole) throws, or nil.
private func violation(
    _ bytes: [UInt8], peerMasks: Bool, maximumMessageSize: Int = 1 << 20, acceptsText: Bool = false
) -> WebSocketError? {
    do {
        _ = try run([bytes], peerMasks: peerMasks, maximumMessageSize: maximumMessageSize, acceptsText: acceptsText)
        return nil
    } catch {
        return error
    }
}

/// A client's (masked) stream of several frames: messages of several sizes, control frames between and inside
/// a fragmented message, and the events it gives.
private struct SampleStream {
    var bytes: [UInt8] = []
    var events: [Event] = []

    init(masked: Bool) {
        var keys: [UInt32] = [0x3712_A5F0, 0x0102_0304, 0xFFFF_0000, 0x8000_0001, 0xDEAD_BEEF, 0x5A5A_A5A5, 0x1122_3344]
        func nextKey() -> UInt32? {
            guard masked else { return nil }
            let key = keys.removeFirst()
            keys.append(key)
            return key
        }
        let small = payload(5, seed: 1)
        bytes += frame(opcode: Op.binary, mask: nextKey(), payload: small)
        events += [.data(small), .messageEnd]

        let medium = payload(300, seed: 2)
        bytes += frame(opcode: Op.binary, mask: nextKey(), payload: medium)
        events += [.data(medium), .messageEnd]

        let ping = payload(3, seed: 3)
        bytes += frame(opcode: Op.ping, mask: nextKey(), payload: ping)
        events += [.ping(ping)]

        bytes += frame(opcode: Op.binary, mask: nextKey(), payload: [])
        events += [.messageEnd]

        let first = payload(7, seed: 4)
        let second = payload(130, seed: 5)
        bytes += frame(fin: false, opcode: Op.binary, mask: nextKey(), payload: first)
        bytes += frame(opcode: Op.pong, mask: nextKey(), payload: [])
        bytes += frame(opcode: Op.continuation, mask: nextKey(), payload: second)
        events += [.data(first), .pong([]), .data(second), .messageEnd]

        bytes += frame(opcode: Op.close, mask: nextKey(), payload: [0x03, 0xE8, 0x62, 0x79, 0x65])
        events += [.close(1000, "bye")]
    }
}

@Suite struct WebSocketFrameParserTests {
    // MARK: Unmasking and lengths

    @Test func maskedBinaryFrameFromClientComesOutUnmaskedInPlace() throws {
        let plain = Array("Hello, WebSocket frame!".utf8)
        let bytes = frame(opcode: Op.binary, mask: 0x37FA_213D, payload: plain)
        #expect(Array(bytes[6...]) != plain)
        let outcome = try run([bytes], peerMasks: true)
        #expect(outcome.events == [.data(plain), .messageEnd])
        #expect(Array(outcome.chunks[0][6...]) == plain)
        #expect(outcome.finished)
        #expect(!outcome.isInsideMessage)
    }

    @Test func rfc6455MaskedHelloExampleIsUnmasked() throws {
        // RFC 6455 5.7: a masked "Hello".
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let outcome = try run([bytes], peerMasks: true, acceptsText: true)
        #expect(outcome.events == [.data(Array("Hello".utf8)), .messageEnd])
    }

    @Test func unmaskedFrameFromServerIsPassedOnAsIs() throws {
        let plain = payload(40)
        let outcome = try run([frame(opcode: Op.binary, payload: plain)], peerMasks: false)
        #expect(outcome.events == [.data(plain), .messageEnd])
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536, 70000])
    func payloadLengthsInEveryLengthFormAreRead(length: Int) throws {
        let plain = payload(length, seed: length)
        for mask in [UInt32?.none, 0xA1B2_C3D4] {
            let bytes = frame(opcode: Op.binary, mask: mask, payload: plain)
            let headerSize = (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + (mask == nil ? 0 : 4)
            #expect(bytes.count == headerSize + length)
            let outcome = try run([bytes], peerMasks: mask != nil)
            let expected: [Event] = length == 0 ? [.messageEnd] : [.data(plain), .messageEnd]
            #expect(outcome.events == expected, "length \(length), masked \(mask != nil)")
            #expect(!outcome.isInsideMessage)
        }
    }

    @Test func longerLengthFormForShortPayloadIsRead() throws {
        let plain = payload(10)
        for form: UInt8 in [126, 127] {
            let outcome = try run([frame(opcode: Op.binary, payload: plain, lengthForm: form)], peerMasks: false)
            #expect(outcome.events == [.data(plain), .messageEnd], "length form \(form)")
        }
    }

    // MARK: Splits

    @Test(arguments: [true, false])
    func streamFedWholeGivesEveryEvent(masked: Bool) throws {
        let stream = SampleStream(masked: masked)
        let outcome = try run([stream.bytes], peerMasks: masked)
        #expect(merged(outcome.events) == stream.events)
        #expect(!outcome.isInsideMessage)
    }

    @Test(arguments: [true, false])
    func streamFedByteByByteGivesTheSameEvents(masked: Bool) throws {
        let stream = SampleStream(masked: masked)
        let outcome = try run(stream.bytes.map { [$0] }, peerMasks: masked)
        #expect(merged(outcome.events) == stream.events)
        #expect(!outcome.isInsideMessage)
    }

    @Test(arguments: [true, false])
    func streamSplitAtEveryPositionGivesTheSameEvents(masked: Bool) throws {
        let stream = SampleStream(masked: masked)
        for split in 0...stream.bytes.count {
            let chunks = [Array(stream.bytes[..<split]), Array(stream.bytes[split...])]
            let outcome = try run(chunks, peerMasks: masked)
            #expect(merged(outcome.events) == stream.events, "split at byte \(split)")
            #expect(!outcome.isInsideMessage, "split at byte \(split)")
        }
    }

    @Test func streamSplitIntoVaryingChunksGivesTheSameEvents() throws {
        let stream = SampleStream(masked: true)
        var random = SplitMix64(seed: 42)
        for round in 0..<200 {
            var chunks: [[UInt8]] = []
            var start = 0
            while start < stream.bytes.count {
                let size = Int.random(in: 1...20, using: &random)
                let end = min(stream.bytes.count, start + size)
                chunks.append(Array(stream.bytes[start..<end]))
                start = end
            }
            let outcome = try run(chunks, peerMasks: true)
            #expect(merged(outcome.events) == stream.events, "round \(round)")
        }
    }

    // MARK: Fragmentation and control frames

    @Test func fragmentedMessageWithPingBetweenGivesDataPingDataEnd() throws {
        let first = payload(10, seed: 1)
        let second = payload(20, seed: 2)
        let bytes =
            frame(fin: false, opcode: Op.binary, mask: 0x0102_0304, payload: first)
            + frame(opcode: Op.ping, mask: 0x0506_0708, payload: [9, 8, 7])
            + frame(opcode: Op.continuation, mask: 0x090A_0B0C, payload: second)
        let outcome = try run([bytes], peerMasks: true)
        #expect(outcome.events == [.data(first), .ping([9, 8, 7]), .data(second), .messageEnd])
    }

    @Test func isInsideMessageWhileFragmentedMessageIsOpen() throws {
        var parser = WebSocketFrameParser(maximumMessageSize: 1000, peerMasks: false)
        let outcome = try run([frame(fin: false, opcode: Op.binary, payload: [1, 2])], parser: &parser)
        #expect(outcome.events == [.data([1, 2])])
        #expect(parser.isInsideMessage)
        _ = try run([frame(opcode: Op.continuation, payload: [3])], parser: &parser)
        #expect(!parser.isInsideMessage)
    }

    @Test func pongAndEmptyPingAreHandedOn() throws {
        let bytes = frame(opcode: Op.pong, payload: [1, 2, 3]) + frame(opcode: Op.ping)
        #expect(try run([bytes], peerMasks: false).events == [.pong([1, 2, 3]), .ping([])])
    }

    @Test func pingOf125BytesIsAccepted() throws {
        let bytes = frame(opcode: Op.ping, mask: 0xCAFE_BABE, payload: payload(125))
        #expect(try run([bytes], peerMasks: true).events == [.ping(payload(125))])
    }

    // MARK: Masking helpers

    @Test func writtenHeaderMatchesHandBuiltFrameAndRoundTripsThroughTheParser() throws {
        for length in [0, 5, 125, 126, 65535, 65536] {
            for mask in [UInt32?.none, 0x1234_5678] {
                let plain = payload(length, seed: 3)
                let size = WebSocketFrameHeader.size(payloadLength: length, masked: mask != nil)
                var bytes = [UInt8](repeating: 0xEE, count: size + length)
                let written = bytes.withUnsafeMutableBytes { buffer in
                    WebSocketFrameHeader.write(.binary, payloadLength: length, mask: mask, into: buffer)
                }
                #expect(written == size)
                bytes.replaceSubrange(size..., with: plain)
                if let mask {
                    bytes.withUnsafeMutableBytes { buffer in
                        WebSocketFrameHeader.applyMask(mask, to: UnsafeMutableRawBufferPointer(rebasing: buffer[size...]))
                    }
                }
                #expect(bytes == frame(opcode: Op.binary, mask: mask, payload: plain), "length \(length)")
                let outcome = try run([bytes], peerMasks: mask != nil)
                let expected: [Event] = length == 0 ? [.messageEnd] : [.data(plain), .messageEnd]
                #expect(outcome.events == expected, "length \(length), masked \(mask != nil)")
            }
        }
    }

    @Test func applyMaskTwiceRestoresTheBytes() {
        let plain = payload(37)
        var bytes = plain
        bytes.withUnsafeMutableBytes { WebSocketFrameHeader.applyMask(0xDEAD_BEEF, to: $0) }
        #expect(bytes != plain)
        bytes.withUnsafeMutableBytes { WebSocketFrameHeader.applyMask(0xDEAD_BEEF, to: $0) }
        #expect(bytes == plain)
    }

    @Test func applyMaskAtEveryOffsetMatchesBytewiseMasking() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let length = Int.random(in: 0...40, using: &random)
            let mask = UInt32.random(in: .min ... .max, using: &random)
            let plain = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let key = [UInt8(mask >> 24), UInt8(mask >> 16 & 0xFF), UInt8(mask >> 8 & 0xFF), UInt8(mask & 0xFF)]
            for offset in 0...7 {
                let expected = plain.enumerated().map { $0.element ^ key[($0.offset + offset) % 4] }
                var bytes = plain
                bytes.withUnsafeMutableBytes { WebSocketFrameHeader.applyMask(mask, to: $0, offset: offset) }
                #expect(bytes == expected, "length \(length), mask \(mask), offset \(offset)")
            }
        }
    }

    @Test func applyMaskOnUnalignedSliceMatchesBytewiseMasking() {
        let mask: UInt32 = 0x0BAD_F00D
        let key: [UInt8] = [0x0B, 0xAD, 0xF0, 0x0D]
        let plain = payload(64)
        for start in 0..<8 {
            var bytes = plain
            bytes.withUnsafeMutableBytes { buffer in
                WebSocketFrameHeader.applyMask(mask, to: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
            }
            let expected = Array(plain[..<start]) + plain[start...].enumerated().map { $0.element ^ key[$0.offset % 4] }
            #expect(bytes == expected, "slice from \(start)")
        }
    }

    // MARK: Violations

    @Test(arguments: [UInt8(1), 2, 4, 7])
    func reservedBitSetIsProtocolError(rsv: UInt8) {
        #expect(violation(frame(rsv: rsv, opcode: Op.binary, mask: 1, payload: [1]), peerMasks: true)?.code == 1002)
    }

    @Test(arguments: [UInt8(3), 4, 5, 6, 7, 0xB, 0xF])
    func unknownOpcodeIsProtocolError(opcode: UInt8) {
        #expect(violation(frame(opcode: opcode, mask: 1, payload: [1]), peerMasks: true)?.code == 1002)
    }

    @Test func unmaskedFrameToServerIsProtocolError() {
        #expect(violation(frame(opcode: Op.binary, payload: [1, 2]), peerMasks: true)?.code == 1002)
    }

    @Test func maskedFrameToClientIsProtocolError() {
        #expect(violation(frame(opcode: Op.binary, mask: 0x0102_0304, payload: [1, 2]), peerMasks: false)?.code == 1002)
    }

    @Test func pingOf126BytesIsProtocolError() {
        #expect(violation(frame(opcode: Op.ping, mask: 5, payload: payload(126)), peerMasks: true)?.code == 1002)
        #expect(violation(frame(opcode: Op.close, payload: [0x03, 0xE8] + payload(124)), peerMasks: false)?.code == 1002)
    }

    @Test func fragmentedPingIsProtocolError() {
        #expect(violation(frame(fin: false, opcode: Op.ping, mask: 5, payload: [1]), peerMasks: true)?.code == 1002)
    }

    @Test func continuationWithoutMessageIsProtocolError() {
        #expect(violation(frame(opcode: Op.continuation, mask: 5, payload: [1]), peerMasks: true)?.code == 1002)
        // Also after a message that ended.
        let bytes = frame(opcode: Op.binary, mask: 5, payload: [1]) + frame(opcode: Op.continuation, mask: 5, payload: [2])
        #expect(violation(bytes, peerMasks: true)?.code == 1002)
    }

    @Test func newBinaryFrameWhileFragmentedMessageIsOpenIsProtocolError() {
        let bytes = frame(fin: false, opcode: Op.binary, mask: 5, payload: [1]) + frame(opcode: Op.binary, mask: 6, payload: [2])
        #expect(violation(bytes, peerMasks: true)?.code == 1002)
    }

    @Test func textFrameIsUnsupportedDataUnlessTextIsAccepted() throws {
        let text = Array("héllo".utf8)
        let bytes = frame(opcode: Op.text, mask: 0x1357_9BDF, payload: text)
        #expect(violation(bytes, peerMasks: true)?.code == 1003)
        let outcome = try run([bytes], peerMasks: true, acceptsText: true)
        #expect(outcome.events == [.data(text), .messageEnd])
    }

    @Test func fragmentedTextMessageIsAcceptedWhenTextIsAccepted() throws {
        let bytes = frame(fin: false, opcode: Op.text, payload: [0x61]) + frame(opcode: Op.continuation, payload: [0x62])
        let outcome = try run([bytes], peerMasks: false, acceptsText: true)
        #expect(outcome.events == [.data([0x61]), .data([0x62]), .messageEnd])
    }

    @Test func messageOverMaximumSizeIsMessageTooBig() throws {
        #expect(violation(frame(opcode: Op.binary, mask: 9, payload: payload(101)), peerMasks: true, maximumMessageSize: 100)?.code == 1009)
        let exact = try run([frame(opcode: Op.binary, mask: 9, payload: payload(100))], peerMasks: true, maximumMessageSize: 100)
        #expect(exact.events == [.data(payload(100)), .messageEnd])
    }

    @Test func messageOverMaximumSizeAcrossTwoFragmentsIsMessageTooBig() throws {
        let over = frame(fin: false, opcode: Op.binary, payload: payload(60)) + frame(opcode: Op.continuation, payload: payload(41))
        #expect(violation(over, peerMasks: false, maximumMessageSize: 100)?.code == 1009)
        // Exactly the limit in two fragments, then a fresh message may again be the full size.
        let exact =
            frame(fin: false, opcode: Op.binary, payload: payload(60)) + frame(opcode: Op.continuation, payload: payload(40))
            + frame(opcode: Op.binary, payload: payload(100))
        let outcome = try run([exact], peerMasks: false, maximumMessageSize: 100)
        #expect(merged(outcome.events) == [.data(payload(60) + payload(40)), .messageEnd, .data(payload(100)), .messageEnd])
    }

    @Test func sixtyFourBitLengthWithTopBitIsProtocolError() {
        let bytes: [UInt8] = [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4]
        #expect(violation(bytes, peerMasks: true, maximumMessageSize: .max)?.code == 1002)
        let unmasked: [UInt8] = [0x82, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(violation(unmasked, peerMasks: false, maximumMessageSize: .max)?.code == 1002)
    }

    @Test func closeWithOneBytePayloadIsProtocolError() {
        #expect(violation(frame(opcode: Op.close, mask: 3, payload: [0x03]), peerMasks: true)?.code == 1002)
    }

    @Test(arguments: [UInt16(0), 999, 1004, 1005, 1006, 1012, 2999, 5000])
    func closeWithInvalidCodeIsProtocolError(code: UInt16) {
        let bytes = frame(opcode: Op.close, mask: 3, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
        #expect(violation(bytes, peerMasks: true)?.code == 1002)
    }

    @Test(arguments: [UInt16(1000), 1001, 1002, 1003, 1007, 1011, 3000, 4999])
    func closeWithValidCodeGivesTheCode(code: UInt16) throws {
        let bytes = frame(opcode: Op.close, mask: 3, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
        #expect(try run([bytes], peerMasks: true).events == [.close(code, "bye")])
    }

    @Test func closeWithEmptyPayloadGivesNoCode() throws {
        #expect(try run([frame(opcode: Op.close, mask: 3)], peerMasks: true).events == [.close(nil, "")])
        #expect(try run([frame(opcode: Op.close)], peerMasks: false).events == [.close(nil, "")])
    }

    @Test func errorThrownByCallbackIsPassedOn() {
        var parser = WebSocketFrameParser(maximumMessageSize: 100, peerMasks: false)
        var bytes = frame(opcode: Op.ping, payload: [1])
        #expect(throws: WebSocketError(1011, "callback")) {
            try bytes.withUnsafeMutableBytes { (buffer) throws(WebSocketError) -> Bool in
                try parser.parse(buffer) { (_) throws(WebSocketError) -> Bool in throw WebSocketError(1011, "callback") }
            }
        }
    }

    // MARK: Stopping and state

    @Test func returningFalseFromCallbackStopsParsing() throws {
        let bytes =
            frame(opcode: Op.binary, payload: [1, 2, 3]) + frame(opcode: Op.ping, payload: [4])
            + frame(opcode: Op.binary, payload: [5])
        let stopped = try run([bytes], peerMasks: false, stopAfter: 1)
        #expect(!stopped.finished)
        #expect(stopped.events == [.data([1, 2, 3])])

        let stoppedAtPing = try run([bytes], peerMasks: false, stopAfter: 3)
        #expect(!stoppedAtPing.finished)
        #expect(stoppedAtPing.events == [.data([1, 2, 3]), .messageEnd, .ping([4])])

        let all = try run([bytes], peerMasks: false)
        #expect(all.finished)
        #expect(all.events == [.data([1, 2, 3]), .messageEnd, .ping([4]), .data([5]), .messageEnd])
    }

    /// A close's reason as the peer wrote it, its bytes beyond printable ASCII shown as `?` (it goes into messages).
    @Test func aClosesReasonIsItsPrintableText() throws {
        let bytes = frame(opcode: Op.close, payload: [0x11, 0x33] + Array("Forbidden".utf8) + [0x0A, 0xC3, 0xA9])
        #expect(try run([bytes], peerMasks: false).events == [.close(4403, "Forbidden???")])
    }

    @Test func returningFalseOnCloseStopsParsing() throws {
        let bytes = frame(opcode: Op.close, payload: [0x03, 0xE8]) + frame(opcode: Op.binary, payload: [5])
        let outcome = try run([bytes], peerMasks: false, stopAfter: 1)
        #expect(!outcome.finished)
        #expect(outcome.events == [.close(1000, "")])
    }

    @Test func isInsideMessageAfterHalfAHeaderAndNotAfterACompleteMessage() throws {
        let bytes = frame(opcode: Op.binary, mask: 0x1111_2222, payload: payload(200))  // 2 + 2 + 4 header bytes
        var parser = WebSocketFrameParser(maximumMessageSize: 1000, peerMasks: true)
        #expect(!parser.isInsideMessage)
        let first = try run([Array(bytes[..<3])], parser: &parser)
        #expect(first.events.isEmpty)
        #expect(parser.isInsideMessage)
        _ = try run([Array(bytes[3..<6])], parser: &parser)
        #expect(parser.isInsideMessage)
        let rest = try run([Array(bytes[6...])], parser: &parser)
        #expect(merged(rest.events) == [.data(payload(200)), .messageEnd])
        #expect(!parser.isInsideMessage)
    }

    @Test func isInsideMessageInTheMiddleOfAPayload() throws {
        let bytes = frame(opcode: Op.binary, payload: payload(10))
        var parser = WebSocketFrameParser(maximumMessageSize: 1000, peerMasks: false)
        _ = try run([Array(bytes[..<5])], parser: &parser)
        #expect(parser.isInsideMessage)
        _ = try run([Array(bytes[5...])], parser: &parser)
        #expect(!parser.isInsideMessage)
    }

    @Test func isInsideMessageAfterHalfAControlFrameOnly() throws {
        let bytes = frame(opcode: Op.ping, payload: [1, 2, 3])
        var parser = WebSocketFrameParser(maximumMessageSize: 1000, peerMasks: false)
        _ = try run([Array(bytes[..<1])], parser: &parser)
        #expect(parser.isInsideMessage)
        let rest = try run([Array(bytes[1...])], parser: &parser)
        #expect(rest.events == [.ping([1, 2, 3])])
        #expect(!parser.isInsideMessage)
    }
}
