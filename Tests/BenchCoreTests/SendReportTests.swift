import Testing

@testable import BenchCore

/// The frames a roundtrip target run's clients report their sends with: read back as written, and what does not fit
/// refused by the decoder or the reader, never a trap.
struct SendReportTests {
    /// Decodes `bytes` with a ``FrameDecoder`` as the measuring thread does: the reports read, or the decoder's error.
    static func decode(_ bytes: [UInt8]) -> Result<[SendReport?], FrameError> {
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.clientReportMaximumSize)
        var read: [SendReport?] = []
        var copy = bytes
        var failure: FrameError?
        copy.withUnsafeMutableBytes { buffer in
            do throws(FrameError) {
                _ = try decoder.decode(buffer) { frame in
                    #expect(frame.kind == .sendReport)
                    read.append(SendReport(frame))
                    return true
                }
            } catch {
                failure = error
            }
        }
        return failure.map { .failure($0) } ?? .success(read)
    }

    static func encoded(_ report: SendReport) -> [UInt8] {
        var bytes = [UInt8](repeating: 0xAA, count: SendReport.size)
        bytes.withUnsafeMutableBytes { report.encode(into: $0) }
        return bytes
    }

    @Test(arguments: [
        SendReport(.written, sequence: 0, client: 0, time: 1),
        SendReport(.transmitStamp, sequence: .max, client: 19_999, time: .max),
        SendReport(.droppedQueueFull, sequence: 7, client: 3, time: 12_345),
        SendReport(.droppedClosed, sequence: 1, client: 2, time: 0),
    ])
    func whatIsWrittenReadsBack(_ report: SendReport) throws {
        #expect(try Self.decode(Self.encoded(report)).get() == [report])
    }

    @Test func aReportOfNoKnownKindReadsAsNothing() throws {
        var bytes = Self.encoded(SendReport(.written, sequence: 1, client: 1, time: 1))
        bytes[5] = 99
        #expect(try Self.decode(bytes).get() == [nil])
    }

    @Test(arguments: [SendReport.size - 1, SendReport.size + 1, 40])
    func aReportOfAnotherSizeIsRefusedByTheDecoder(_ size: Int) throws {
        var bytes = [UInt8](repeating: 0, count: size)
        let length = UInt32(size - WireFormat.lengthFieldSize)
        bytes[0..<4] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes[4] = FrameKind.sendReport.rawValue
        guard case .failure(.wrongSize(kind: .sendReport, announced: size, expected: SendReport.size)) = Self.decode(bytes) else {
            Issue.record("expected the decoder to refuse a send report of \(size) bytes: \(Self.decode(bytes))")
            return
        }
    }

    /// Every prefix of two reports, and every byte of them changed, is read or refused: never a trap.
    @Test func everyCutAndEveryChangedByteIsReadOrRefused() {
        let bytes = Self.encoded(SendReport(.written, sequence: 5, client: 6, time: 7))
            + Self.encoded(SendReport(.transmitStamp, sequence: 5, client: 6, time: 8))
        for end in 0...bytes.count { _ = Self.decode(Array(bytes[0..<end])) }
        for index in bytes.indices {
            for value in [UInt8(0), 1, 14, 0x7F, 0xFF] {
                var changed = bytes
                changed[index] = value
                _ = Self.decode(changed)
            }
        }
    }
}
