import Testing

@testable import BenchCore

/// The frames a share of a fan-out target run's subscribers reports with: read back as written, text cut at a
/// character's boundary, and what does not fit refused by the decoder or the reader, never a trap.
struct ClientReportTests {
    /// Encodes `report` and decodes it with a ``FrameDecoder``, as the measuring thread does.
    static func roundTrip(_ report: ClientReport) throws -> (ClientReport?, Int) {
        var bytes = [UInt8](repeating: 0xAA, count: WireFormat.clientReportMaximumSize)
        let size = bytes.withUnsafeMutableBytes { report.encode(into: $0) }
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.clientReportMaximumSize)
        var read: ClientReport?
        var frames = 0
        try bytes.withUnsafeMutableBytes { buffer in
            _ = try decoder.decode(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size])) { frame in
                frames += 1
                #expect(frame.kind == .clientReport)
                read = ClientReport(frame)
                return true
            }
        }
        #expect(frames == 1)
        return (read, size)
    }

    @Test(arguments: [
        ClientReport(.subscribed, client: 0, time: 1),
        ClientReport(.closed, client: 19_999, time: .max, text: "closed by redis://127.0.0.1:6379/news"),
        ClientReport(.serverError, client: 7, time: 12_345, text: "ERR unknown command 'SUBSCRIBE'"),
        ClientReport(.note, client: 1, time: 2, text: "received a message without a bench marker (3 bytes)"),
        ClientReport(.returned, client: 4, time: 9_000_000_000, text: "tcp=120000 tls=0 ws=0 subscribe=300000"),
        ClientReport(.gaveUp, client: 5, time: 77, text: "gave up reconnecting after 10 tries"),
    ])
    func whatIsWrittenReadsBack(_ report: ClientReport) throws {
        let (read, size) = try Self.roundTrip(report)
        #expect(read == report)
        #expect(size == ClientReport.headSize + report.text.utf8.count)
    }

    @Test func aLongTextIsCutAtACharactersBoundaryWithinTheLimit() throws {
        let text = String(repeating: "é", count: 400)  // 800 bytes, two per character
        let (read, size) = try Self.roundTrip(ClientReport(.closed, client: 3, time: 9, text: text))
        #expect(size <= WireFormat.clientReportMaximumSize)
        #expect(read?.text == String(repeating: "é", count: 256))
    }

    @Test(arguments: [UInt8(0), 11, 255])
    func anUnknownKindOfReportIsNotRead(_ what: UInt8) throws {
        var bytes = [UInt8](repeating: 0, count: ClientReport.headSize)
        let size = bytes.withUnsafeMutableBytes { ClientReport(.note, client: 1, time: 1).encode(into: $0) }
        bytes[5] = what
        bytes.withUnsafeMutableBytes { buffer in
            #expect(ClientReport(Frame(kind: .clientReport, bytes: .init(rebasing: buffer[0..<size]))) == nil)
        }
    }

    @Test func textThatIsNotUTF8IsNotRead() {
        var bytes = [UInt8](repeating: 0, count: ClientReport.headSize + 2)
        _ = bytes.withUnsafeMutableBytes { ClientReport(.note, client: 1, time: 1, text: "ab").encode(into: $0) }
        bytes[ClientReport.headSize] = 0xFF
        bytes.withUnsafeMutableBytes { buffer in
            #expect(ClientReport(Frame(kind: .clientReport, bytes: buffer)) == nil)
        }
    }

    @Test(arguments: [UInt32(0), 10, 15, UInt32(WireFormat.clientReportMaximumSize - 3), 1 << 20])
    func theDecoderRefusesAReportOfASizeThatDoesNotFit(_ length: UInt32) {
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.maximumFrameSize)
        var bytes: [UInt8] = [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), 13]
        bytes += [UInt8](repeating: 0, count: 64)
        #expect(throws: FrameError.self) {
            try bytes.withUnsafeMutableBytes { buffer in _ = try decoder.decode(buffer) { _ in true } }
        }
    }
}
