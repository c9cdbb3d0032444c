import Testing

@testable import BenchCore

/// A decoded frame, copied out of the decoder's callback so it can be compared after.
private struct DecodedFrame: Equatable {
    let kind: FrameKind
    let bytes: [UInt8]
}

/// A stream of frames of every kind and several sizes, and the frames it holds.
private struct SampleStream {
    var bytes: [UInt8] = []
    var frames: [DecodedFrame] = []

    init() {
        appendHello(client: 7)
        appendMessage(kind: .data, size: 64, sequence: 1, client: 7, sent: 0x0102_0304_0506_0708)
        appendMessage(kind: .echo, size: 40, sequence: 2, client: 3, sent: 99, received: 100)
        appendMessage(kind: .data, size: 300, sequence: 0xFFFF_FFFF, client: 0, sent: .max)
        appendHello(client: 0)
        appendMessage(kind: .echo, size: 41, sequence: 4, client: 9, sent: 1, received: 2)
    }

    mutating func appendHello(client: UInt32) {
        var frame = [UInt8](repeating: 0xAA, count: WireFormat.helloFrameSize)
        frame.withUnsafeMutableBytes { _ = Frame.encodeHello(into: $0, client: client, token: 0xFEED_0000_0000_0000 | UInt64(client)) }
        append(.hello, frame)
    }

    mutating func appendMessage(
        kind: FrameKind, size: Int, sequence: UInt32, client: UInt32, sent: UInt64, received: UInt64 = 0
    ) {
        var frame = [UInt8](repeating: 0xAA, count: size)
        frame.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(
                into: $0, kind: kind, sequence: sequence, client: client, sentNanoseconds: sent,
                receivedNanoseconds: received)
        }
        append(kind, frame)
    }

    private mutating func append(_ kind: FrameKind, _ frame: [UInt8]) {
        bytes += frame
        frames.append(DecodedFrame(kind: kind, bytes: frame))
    }
}

/// Feeds `chunks` to a fresh decoder in order and returns every frame it yields.
private func decode(_ chunks: [[UInt8]], maximumFrameSize: Int = 1024) throws -> [DecodedFrame] {
    var decoder = FrameDecoder(maximumFrameSize: maximumFrameSize)
    var frames: [DecodedFrame] = []
    for var chunk in chunks {
        _ = try chunk.withUnsafeMutableBytes { buffer in
            try decoder.decode(buffer) { frame in
                frames.append(DecodedFrame(kind: frame.kind, bytes: Array(frame.bytes)))
                return true
            }
        }
    }
    #expect(decoder.bufferedByteCount == 0)
    return frames
}

@Suite struct FrameDecoderTests {
    private let stream = SampleStream()

    @Test func decoderYieldsEveryFrameFromOneRead() throws {
        #expect(try decode([stream.bytes]) == stream.frames)
    }

    @Test func decoderYieldsFramesSplitAtEveryBytePosition() throws {
        for split in 0...stream.bytes.count {
            let chunks = [Array(stream.bytes[..<split]), Array(stream.bytes[split...])]
            #expect(try decode(chunks) == stream.frames, "split at byte \(split)")
        }
    }

    @Test func decoderYieldsFramesSplitAtEveryPairOfPositions() throws {
        let bytes = stream.bytes
        for first in stride(from: 0, through: bytes.count, by: 3) {
            for second in first...bytes.count {
                let chunks = [Array(bytes[..<first]), Array(bytes[first..<second]), Array(bytes[second...])]
                #expect(try decode(chunks) == stream.frames, "split at bytes \(first) and \(second)")
            }
        }
    }

    @Test func decoderYieldsFramesFedOneByteAtATime() throws {
        #expect(try decode(stream.bytes.map { [$0] }) == stream.frames)
    }

    @Test(arguments: [1, 2, 5, 7, 13, 64, 1000])
    func decoderYieldsFramesFedInFixedChunks(size: Int) throws {
        let chunks = stride(from: 0, to: stream.bytes.count, by: size).map {
            Array(stream.bytes[$0..<min($0 + size, stream.bytes.count)])
        }
        #expect(try decode(chunks) == stream.frames)
    }

    @Test func decoderYieldsFramesFedInRandomChunksWithEmptyOnes() throws {
        var random = SplitMix64(seed: 42)
        for _ in 0..<200 {
            var chunks: [[UInt8]] = []
            var offset = 0
            while offset < stream.bytes.count {
                let size = Int(random.nextBounded(40))  // 0 gives an empty chunk
                let end = min(offset + size, stream.bytes.count)
                chunks.append(Array(stream.bytes[offset..<end]))
                offset = end
            }
            #expect(try decode(chunks) == stream.frames)
        }
    }

    @Test func decoderYieldsManyCoalescedFramesFromOneRead() throws {
        var many = SampleStream()
        for sequence in 0..<1000 {
            many.appendMessage(kind: .data, size: 64, sequence: UInt32(sequence), client: 1, sent: UInt64(sequence))
        }
        let frames = try decode([many.bytes])
        #expect(frames.count == many.frames.count)
        #expect(frames == many.frames)
    }

    @Test func decoderKeepsAPartialFrameUntilItsLastByteComes() throws {
        var decoder = FrameDecoder(maximumFrameSize: 1024)
        var yielded = 0
        var bytes = Array(stream.frames[1].bytes)  // a 64-byte data frame
        try bytes.withUnsafeMutableBytes { buffer in
            try decoder.decode(.init(rebasing: buffer[0..<63])) { _ in
                yielded += 1
                return true
            }
            #expect(yielded == 0)
            #expect(decoder.bufferedByteCount == 63)
            try decoder.decode(.init(rebasing: buffer[63...])) { _ in
                yielded += 1
                return true
            }
        }
        #expect(yielded == 1)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func decoderStopsWhenTheCallbackSaysSo() throws {
        var decoder = FrameDecoder(maximumFrameSize: 1024)
        var bytes = stream.bytes
        var seen = 0
        let proceeded = try bytes.withUnsafeMutableBytes { buffer in
            try decoder.decode(buffer) { _ in
                seen += 1
                return seen < 2
            }
        }
        #expect(!proceeded)
        #expect(seen == 2)
    }

    @Test func frameFieldsAreBigEndianAtFixedOffsets() {
        var bytes = [UInt8](repeating: 0, count: 40)
        bytes.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(
                into: $0, kind: .data, sequence: 0x0A0B_0C0D, client: 0x0102_0304, sentNanoseconds: 0x1122_3344_5566_7788)
        }
        #expect(Array(bytes[0..<4]) == [0, 0, 0, 36])  // length of what follows the length field
        #expect(bytes[4] == FrameKind.data.rawValue)
        #expect(Array(bytes[8..<12]) == [0x0A, 0x0B, 0x0C, 0x0D])
        #expect(Array(bytes[12..<16]) == [0x01, 0x02, 0x03, 0x04])
        #expect(Array(bytes[16..<24]) == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
        #expect(Array(bytes[24..<40]) == [UInt8](repeating: 0, count: 16))
    }

    @Test func aHelloCarriesVersionClientAndTheRunTokenAtFixedOffsets() {
        var bytes = [UInt8](repeating: 0xAA, count: WireFormat.helloFrameSize)
        let frame = bytes.withUnsafeMutableBytes {
            let frame = Frame.encodeHello(into: $0, client: 0x0102_0304, token: 0x1122_3344_5566_7788)
            return (frame.helloVersion, frame.helloClient, frame.helloToken)
        }
        #expect(frame == (WireFormat.version, 0x0102_0304, 0x1122_3344_5566_7788))
        #expect(Array(bytes[0..<8]) == [0, 0, 0, 16, FrameKind.hello.rawValue, WireFormat.version, 0, 0])
        #expect(Array(bytes[8..<12]) == [0x01, 0x02, 0x03, 0x04])
        #expect(Array(bytes[12..<20]) == [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88])
    }

    @Test func aGoodbyeHasAHeartbeatsLayoutAndDecodesWholeOrNotAtAll() throws {
        var bytes = [UInt8](repeating: 0xAA, count: WireFormat.heartbeatFrameSize)
        bytes.withUnsafeMutableBytes { _ = Frame.encodeGoodbye(into: $0, client: 0x0102_0304) }
        #expect(bytes == [0, 0, 0, 8, 10, 0, 0, 0, 0x01, 0x02, 0x03, 0x04])
        let frames = try decode([Array(bytes[0..<5]), Array(bytes[5...])])
        #expect(frames.map(\.kind) == [.goodbye])
    }

    @Test func convertingToEchoKeepsEverythingButKindAndReceiveTimes() throws {
        var bytes = stream.frames[3].bytes  // 300-byte data frame
        let original = bytes
        _ = try bytes.withUnsafeMutableBytes { buffer in
            var decoder = FrameDecoder(maximumFrameSize: 1024)
            return try decoder.decode(buffer) { frame in
                frame.convertToEcho(receivedNanoseconds: 0xDEAD_BEEF, receivedKernelNanoseconds: 0xBEEF)
                return true
            }
        }
        let frames = try decode([bytes])
        let echo = try #require(frames.first)
        #expect(echo.kind == .echo)
        echo.bytes.withUnsafeBufferPointer { pointer in
            let frame = Frame(kind: .echo, bytes: .init(mutating: UnsafeRawBufferPointer(pointer)))
            #expect(frame.sequence == 0xFFFF_FFFF)
            #expect(frame.sentNanoseconds == .max)
            #expect(frame.receivedNanoseconds == 0xDEAD_BEEF)
            #expect(frame.receivedKernelNanoseconds == 0xBEEF)
        }
        #expect(Array(bytes[24..<40]) == [0, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0, 0, 0, 0xBE, 0xEF])
        #expect(Array(bytes[40...]) == Array(original[40...]))
    }
}

@Suite struct FrameDecoderErrorTests {
    /// Feeds `bytes` one byte at a time and returns the error, checking nothing was buffered beyond the header.
    private func firstError(_ bytes: [UInt8], maximumFrameSize: Int = 1024) -> FrameError? {
        var decoder = FrameDecoder(maximumFrameSize: maximumFrameSize)
        for byte in bytes {
            var chunk = [byte]
            do {
                _ = try chunk.withUnsafeMutableBytes { try decoder.decode($0) { _ in true } }
            } catch {
                #expect(decoder.bufferedByteCount <= 5, "nothing is buffered for a refused frame")
                return error as? FrameError
            }
        }
        return nil
    }

    @Test func anAbsurdLengthIsRefusedBeforeAnythingIsAllocated() {
        let bytes: [UInt8] = [0xFF, 0xFF, 0xFF, 0xF0, FrameKind.data.rawValue]
        #expect(firstError(bytes) == .frameTooLarge(announced: 0xFFFF_FFF0 + 4, limit: 1024))
    }

    @Test func aFrameOneByteOverTheLimitIsRefused() {
        let bytes: [UInt8] = [0, 0, 4, 1, FrameKind.data.rawValue]  // 1025 + 4 bytes
        #expect(firstError(bytes, maximumFrameSize: 1028) == .frameTooLarge(announced: 1029, limit: 1028))
    }

    @Test func anUnknownKindIsRefused() {
        #expect(firstError([0, 0, 0, 28, 0x7F]) == .unknownKind(0x7F))
    }

    @Test func aZeroLengthIsRefused() {
        #expect(firstError([0, 0, 0, 0, 1]) == .emptyFrame)
    }

    @Test func aHelloOfTheWrongSizeIsRefused() {
        #expect(firstError([0, 0, 0, 9, FrameKind.hello.rawValue]) == .wrongSize(kind: .hello, announced: 13, expected: WireFormat.helloFrameSize))
        #expect(firstError([0, 0, 0, 4, FrameKind.heartbeat.rawValue]) == .wrongSize(kind: .heartbeat, announced: 8, expected: WireFormat.heartbeatFrameSize))
        #expect(firstError([0, 0, 0, 28, FrameKind.goodbye.rawValue]) == .wrongSize(kind: .goodbye, announced: 32, expected: WireFormat.heartbeatFrameSize))
    }

    @Test func aMessageShorterThanItsHeaderIsRefused() {
        #expect(
            firstError([0, 0, 0, 35, FrameKind.echo.rawValue])
                == .frameTooSmall(kind: .echo, announced: 39, minimum: WireFormat.minimumMessageSize))
    }

    @Test func garbageAfterAGoodFrameIsRefusedInTheSameRead() throws {
        var bytes = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
        bytes.withUnsafeMutableBytes { _ = Frame.encodeHello(into: $0, client: 1, token: 2) }
        bytes += Array("GET / HTTP/1.1\r\n".utf8)
        var decoder = FrameDecoder(maximumFrameSize: 1024)
        var frames = 0
        #expect(throws: FrameError.self) {
            _ = try bytes.withUnsafeMutableBytes { buffer in
                try decoder.decode(buffer) { _ in
                    frames += 1
                    return true
                }
            }
        }
        #expect(frames == 1)
    }
}

@Suite struct AgentFrameTests {
    @Test func anAgentsHelloAndTheWelcomeReadBackAsWritten() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { buffer.deallocate() }
        let hello = AgentHello(clients: 10_000, token: AgentToken.hash("s3cret"), pid: 4242, host: "a-rather-long-host-name", boot: 7)
        hello.encode(into: buffer)
        var decoder = FrameDecoder(maximumFrameSize: 64)
        var seen: [AgentHello] = []
        // Byte by byte, as a slow network hands it over.
        for index in 0..<buffer.count {
            try decoder.decode(UnsafeMutableRawBufferPointer(rebasing: buffer[index...index])) { frame in
                #expect(frame.kind == .agentHello)
                seen.append(AgentHello(frame))
                return true
            }
        }
        #expect(seen == [AgentHello(clients: 10_000, token: hello.token, pid: 4242, host: "a-rather-long-ho", boot: 7)])
        let welcome = AgentWelcome(
            scenario: 1, timestamps: 2, firstClient: 3, clients: 4, runToken: .max, payload: 64, totalClients: 9,
            heartbeat: 5_000_000_000)
        welcome.encode(into: buffer)
        #expect(AgentWelcome(Frame(kind: .agentWelcome, bytes: buffer)) == welcome)
        #expect(AgentToken.hash("s3cret") != AgentToken.hash("s3cret "))
    }

    @Test func anAgentFrameOfAnotherSizeIsRefusedBeforeItsBody() {
        var decoder = FrameDecoder(maximumFrameSize: 1 << 20)
        var header: [UInt8] = [0, 0, 1, 0, 5]  // announces 256 bytes of an agent hello
        #expect(throws: FrameError.self) {
            try header.withUnsafeMutableBytes { bytes in try decoder.decode(bytes) { _ in true } }
        }
    }
}

@Suite struct ClockEstimateTests {
    /// A server that answers with t2 and t3 near 2^63 (each difference fits, their sum does not) is not believed, and
    /// traps nothing: the agent asks again every 5 s during a run.
    @Test func aReplyWhoseOffsetCannotBeComputedIsSkipped() {
        let big = UInt64(Int64.max)
        let lying = ClockProbe(t1: 0, t2: big, t3: big)
        #expect(ClockEstimate.best(of: [(lying, 10)]) == nil)
        let honest = ClockProbe(t1: 100, t2: 150, t3: 160)
        #expect(ClockEstimate.best(of: [(lying, 10), (honest, 200)])?.offset == 5)
    }

    @Test func theProbeWithTheShortestRoundTripSetsTheOffsetAndItsBound() throws {
        // The server's clock is 1,000,000 ns ahead; one-way delays differ per probe.
        let exchanges: [(reply: ClockProbe, t4: UInt64)] = [
            (ClockProbe(t1: 100, t2: 100 + 1_000_000 + 900, t3: 100 + 1_000_000 + 950), 100 + 950 + 50),
            (ClockProbe(t1: 5_000, t2: 5_000 + 1_000_000 + 20, t3: 5_000 + 1_000_000 + 30), 5_000 + 30 + 40),
            (ClockProbe(t1: 9_000, t2: 1, t3: 0), 9_100),  // a reply whose times cannot be true: not used
        ]
        let estimate = try #require(ClockEstimate.best(of: exchanges))
        #expect(estimate.error == 30 && estimate.probes == 3)
        #expect(abs(estimate.offset - 1_000_000) <= Int64(estimate.error))
        #expect(ClockEstimate.best(of: [exchanges[2]]) == nil)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.clockFrameSize, alignment: 8)
        defer { buffer.deallocate() }
        ClockEstimate(offset: -7_777_000_000_000, error: 12, probes: 32).encode(into: buffer)
        #expect(ClockEstimate(Frame(kind: .clockReport, bytes: buffer)) == ClockEstimate(offset: -7_777_000_000_000, error: 12, probes: 32))
    }
}
