import BenchCore
import Testing

/// A peer's bytes shown to a person: no control character gets through, and a cut says so.
@Suite struct PeerExcerptTests {
    @Test func controlBytesBecomeDotsAndALongMessageIsCut() {
        let bytes: [UInt8] = Array("<subject>".utf8) + [0x1B, 0x5B, 0x32, 0x4A, 0x0A, 0xFF] + Array("hi".utf8)
        #expect(bytes.withUnsafeBytes { PeerExcerpt.of($0) } == "<subject>.[2J..hi")
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: 100)
        #expect(long.withUnsafeBytes { PeerExcerpt.of($0, limit: 10) } == "xxxxxxxxxx…")
        #expect([UInt8]().withUnsafeBytes { PeerExcerpt.of($0) } == "")
    }
}
