import Testing

@testable import BenchCore

/// Random and mutated byte streams, seeded and bounded: the decoder never traps, never holds more than one
/// frame's worth of bytes, and either yields well-formed frames or stops with a clean error.
@Suite struct FrameDecoderFuzzTests {
    private static let maximumFrameSize = 256

    /// A valid stream of a few frames of every kind.
    private func validStream(_ random: inout SplitMix64) -> [UInt8] {
        var stream: [UInt8] = []
        for _ in 0..<(1 + random.nextBounded(6)) {
            switch random.nextBounded(4) {
            case 0:
                var frame = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
                frame.withUnsafeMutableBytes { _ = Frame.encodeHello(into: $0, client: UInt32(random.nextBounded(100)), token: random.next()) }
                stream += frame
            case 1:
                var frame = [UInt8](repeating: 0, count: WireFormat.heartbeatFrameSize)
                frame.withUnsafeMutableBytes { _ = Frame.encodeHeartbeat(into: $0, client: 1) }
                stream += frame
            default:
                let size = WireFormat.minimumMessageSize + Int(random.nextBounded(UInt64(Self.maximumFrameSize - WireFormat.minimumMessageSize + 1)))
                var frame = [UInt8](repeating: 0, count: size)
                frame.withUnsafeMutableBytes {
                    _ = Frame.encodeMessage(
                        into: $0, kind: random.nextBounded(2) == 0 ? .data : .echo, sequence: 1, client: 2,
                        sentNanoseconds: random.next())
                }
                stream += frame
            }
        }
        return stream
    }

    /// `stream` with a few bytes flipped, cut, or repeated.
    private func mutated(_ stream: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = stream
        for _ in 0..<(1 + random.nextBounded(4)) where !bytes.isEmpty {
            let position = Int(random.nextBounded(UInt64(bytes.count)))
            switch random.nextBounded(4) {
            case 0: bytes[position] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes[position] ^= 1 << UInt8(random.nextBounded(8))
            case 2: bytes.removeSubrange(position...)
            default: bytes.insert(contentsOf: bytes[position...].prefix(7), at: position)
            }
        }
        return bytes
    }

    /// Feeds `bytes` in random chunks; checks every frame yielded against its own length field.
    private func feed(_ bytes: [UInt8], _ random: inout SplitMix64) -> (frames: Int, error: FrameError?) {
        var decoder = FrameDecoder(maximumFrameSize: Self.maximumFrameSize)
        var frames = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + Int(random.nextBounded(64)))
            var chunk = Array(bytes[offset..<end])
            offset = end
            do {
                _ = try chunk.withUnsafeMutableBytes { buffer in
                    try decoder.decode(buffer) { frame in
                        let length = frame.bytes.prefix(4).reduce(0) { $0 << 8 | Int($1) }
                        #expect(frame.bytes.count == length + 4)
                        #expect(frame.bytes.count <= Self.maximumFrameSize)
                        frames += 1
                        return true
                    }
                }
            } catch {
                return (frames, error as? FrameError)
            }
            #expect(decoder.bufferedByteCount < Self.maximumFrameSize)
        }
        return (frames, nil)
    }

    @Test func randomBytesNeverTrapTheDecoder() {
        var random = SplitMix64(seed: 2026)
        var errors = 0
        for _ in 0..<3_000 {
            let bytes = (0..<random.nextBounded(300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if feed(bytes, &random).error != nil { errors += 1 }
        }
        #expect(errors > 2_000, "random bytes are almost never a valid stream")
    }

    @Test func mutatedStreamsYieldFramesOrACleanError() {
        var random = SplitMix64(seed: 11)
        var outcomes = (clean: 0, refused: 0)
        for _ in 0..<3_000 {
            let stream = validStream(&random)
            let result = feed(mutated(stream, &random), &random)
            if result.error == nil { outcomes.clean += 1 } else { outcomes.refused += 1 }
        }
        #expect(outcomes.clean > 0 && outcomes.refused > 0, "both kinds of outcome happen: \(outcomes)")
    }

    @Test func unmutatedStreamsAlwaysDecodeCompletely() {
        var random = SplitMix64(seed: 12)
        for _ in 0..<1_000 {
            let result = feed(validStream(&random), &random)
            #expect(result.error == nil)
        }
    }
}
