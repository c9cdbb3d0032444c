/// HTTP/2's frames as this side writes them (RFC 9113 §4, §6): a 9-byte header (length, type, flags, stream) and the
/// payload. What the server sends is read by ``HTTP2Connection``.
enum HTTP2Frame {
    enum Kind: UInt8 {
        case data = 0, headers = 1, priority = 2, resetStream = 3, settings = 4, pushPromise = 5, ping = 6, goAway = 7
        case windowUpdate = 8, continuation = 9
    }

    static let endStream: UInt8 = 0x1
    static let acknowledge: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priority: UInt8 = 0x20

    /// The client's connection preface (RFC 9113 §3.4), before its first SETTINGS.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The largest frame payload either side sends or takes unless SETTINGS say more (SETTINGS_MAX_FRAME_SIZE's
    /// default); this side never asks for more.
    static let maximumPayload = 16_384

    /// The largest flow-control window (RFC 9113 §6.9.1): 2^31 - 1.
    static let maximumWindow = Int(Int32.max)

    /// A frame's header onto `output`.
    static func appendHeader(length: Int, kind: Kind, flags: UInt8, stream: UInt32, to output: inout [UInt8]) {
        output.append(contentsOf: [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), kind.rawValue, flags])
        appendWord(stream & 0x7FFF_FFFF, to: &output)
    }

    static func appendWord(_ word: UInt32, to output: inout [UInt8]) {
        output.append(contentsOf: [UInt8(word >> 24), UInt8(word >> 16 & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word & 0xFF)])
    }

    /// SETTINGS with `values` (identifier, value), or its acknowledgement when empty and `acknowledging`.
    static func settings(_ values: [(UInt16, UInt32)], acknowledging: Bool = false) -> [UInt8] {
        var frame: [UInt8] = []
        appendHeader(length: 6 * values.count, kind: .settings, flags: acknowledging ? acknowledge : 0, stream: 0, to: &frame)
        for (identifier, value) in values {
            frame.append(contentsOf: [UInt8(identifier >> 8), UInt8(identifier & 0xFF)])
            appendWord(value, to: &frame)
        }
        return frame
    }

    /// WINDOW_UPDATE of `increment` (1 to 2^31 - 1) on `stream` (0: the connection's).
    static func windowUpdate(stream: UInt32, increment: Int) -> [UInt8] {
        var frame: [UInt8] = []
        appendHeader(length: 4, kind: .windowUpdate, flags: 0, stream: stream, to: &frame)
        appendWord(UInt32(increment), to: &frame)
        return frame
    }

    /// PING with its 8 bytes of `data`, or its acknowledgement.
    static func ping(_ data: UInt64, acknowledging: Bool = false) -> [UInt8] {
        var frame: [UInt8] = []
        appendHeader(length: 8, kind: .ping, flags: acknowledging ? acknowledge : 0, stream: 0, to: &frame)
        appendWord(UInt32(data >> 32), to: &frame)
        appendWord(UInt32(data & 0xFFFF_FFFF), to: &frame)
        return frame
    }

    /// A header block on `stream`: one HEADERS frame, with CONTINUATION frames where it is longer than a frame.
    static func headers(_ block: [UInt8], stream: UInt32, endStream ends: Bool) -> [UInt8] {
        var frames: [UInt8] = []
        var start = 0
        repeat {
            let end = min(block.count, start + maximumPayload)
            var flags: UInt8 = end == block.count ? endHeaders : 0
            if start == 0 && ends { flags |= endStream }
            appendHeader(length: end - start, kind: start == 0 ? .headers : .continuation, flags: flags, stream: stream, to: &frames)
            frames.append(contentsOf: block[start..<end])
            start = end
        } while start < block.count
        return frames
    }

    /// `body` in DATA frames on `stream`, the last one ending the stream where `endStream`; a frame ends before
    /// `keepingWhole` (a marker's bytes) rather than inside it, and `offset` is where its first byte lands in `frames`.
    static func data(
        _ body: [UInt8], stream: UInt32, endStream ends: Bool, keepingWhole: Range<Int>? = nil
    ) -> (frames: [UInt8], offset: Int?) {
        var frames: [UInt8] = []
        var offset: Int?
        var start = 0
        repeat {
            var end = min(body.count, start + maximumPayload)
            if let keep = keepingWhole, keep.lowerBound > start, keep.lowerBound < end, keep.upperBound > end { end = keep.lowerBound }
            appendHeader(length: end - start, kind: .data, flags: end == body.count && ends ? endStream : 0, stream: stream, to: &frames)
            if let keep = keepingWhole, (start..<max(end, start + 1)).contains(keep.lowerBound) {
                offset = frames.count + keep.lowerBound - start
            }
            frames.append(contentsOf: body[start..<end])
            start = end
        } while start < body.count
        return (frames, offset)
    }

    /// An error code's name (RFC 9113 §7), for people.
    static func errorName(_ code: UInt32) -> String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
            "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return code < names.count ? names[Int(code)] : "error 0x\(String(code, radix: 16))"
    }
}
