import BenchCore

/// Redis (RESP 2) and NATS as a ``PubSubSession`` reads them, on the bytes: no string per message.
extension PubSubSession {
    // MARK: Redis (RESP 2)

    /// Takes every complete reply off the front of `bytes`; returns how many bytes they took.
    func consumeRESP(
        _ bytes: UnsafeRawBufferPointer, _ onEvent: (PubSubEvent) -> Void
    ) throws(MessageFramingError) -> Int {
        var start = 0
        while let (end, parts) = try RESPReply.parse(bytes, from: start, maximumSize: maximumMessageSize) {
            switch parts {
            case .error(let text): onEvent(.error(text))
            case .subscribed:
                isReady = true
                onEvent(.ready)
            case .message(let payload):
                onEvent(.message(UnsafeRawBufferPointer(rebasing: bytes[payload])))
            case .other: break
            }
            start = end
        }
        return start
    }

    // MARK: NATS

    /// Takes every complete operation off the front of `bytes`; returns how many bytes they took (a `PONG` owed for
    /// each `PING` goes to ``replies``). Parsed on the bytes: no string per message.
    func consumeNATS(
        _ bytes: UnsafeRawBufferPointer, _ onEvent: (PubSubEvent) -> Void
    ) throws(MessageFramingError) -> Int {
        var start = 0
        while let lineEnd = Self.crlf(in: bytes, from: start) {
            if Self.hasPrefix("MSG ", bytes, start, lineEnd) {
                // MSG <subject> <sid> [reply-to] <#bytes>: the size is the last field.
                var sizeStart = lineEnd
                while sizeStart > start && bytes[sizeStart - 1] != UInt8(ascii: " ") { sizeStart -= 1 }
                guard let size = Self.decimal(bytes, sizeStart, lineEnd), size <= maximumMessageSize else {
                    throw MessageFramingError(description: "a NATS MSG line without a valid size")
                }
                let payloadStart = lineEnd + 2
                guard bytes.count >= payloadStart + size + 2 else { return start }  // the payload is coming
                onEvent(.message(UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + size])))
                start = payloadStart + size + 2
                continue
            }
            if Self.hasPrefix("PING", bytes, start, lineEnd) {
                replies.append(contentsOf: "PONG\r\n".utf8)
            } else if Self.hasPrefix("PONG", bytes, start, lineEnd) {
                if !isReady {
                    isReady = true
                    onEvent(.ready)
                }
            } else if Self.hasPrefix("-ERR", bytes, start, lineEnd) {
                onEvent(.error(String(decoding: bytes[start..<min(lineEnd, start + 200)], as: UTF8.self)))
            }
            start = lineEnd + 2
        }
        if bytes.count - start > 64 << 10 {
            throw MessageFramingError(description: "a NATS protocol line longer than 64 KiB")
        }
        return start
    }
}
