import BenchCore

/// One RESP 2 reply as far as a subscriber needs it.
enum RESPReply {
    case error(String)
    /// An array whose first element says what it is (`message`, `subscribe`…) and whose third, for `message`, is
    /// the payload.
    case message(payload: Range<Int>)
    case subscribed
    case other

    /// The reply starting at `start` and where it ends, or nil while it is incomplete; a bulk string over
    /// `maximumSize` bytes is refused at once (it would never be complete within what a connection may hold). Parsed on the bytes: no string
    /// or array per message.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, from start: Int, maximumSize: Int
    ) throws(MessageFramingError) -> (end: Int, reply: RESPReply)? {
        guard start < bytes.count, let lineEnd = ByteScan.crlf(in: bytes, from: start) else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "-"):
            return (lineEnd + 2, .error(String(decoding: bytes[start..<min(lineEnd, start + 200)], as: UTF8.self)))
        case UInt8(ascii: "+"), UInt8(ascii: ":"):
            return (lineEnd + 2, .other)
        case UInt8(ascii: "$"):
            guard let element = try bulk(bytes, at: start, maximumSize: maximumSize) else { return nil }
            return (element.end, .other)
        case UInt8(ascii: "*"):
            guard let count = ByteScan.decimal(bytes, start + 1, lineEnd), count <= 16 else {
                throw MessageFramingError(description: "a RESP array header that is not a small count")
            }
            var position = lineEnd + 2
            var kind: Range<Int>?
            var third: Range<Int>?
            for element in 0..<count {
                guard position < bytes.count else { return nil }
                let range: Range<Int>
                if bytes[position] == UInt8(ascii: "$") {
                    guard let value = try bulk(bytes, at: position, maximumSize: maximumSize) else { return nil }
                    (range, position) = (value.range, value.end)
                } else {
                    guard let end = ByteScan.crlf(in: bytes, from: position) else { return nil }
                    guard end > position else { throw MessageFramingError(description: "an empty RESP array element") }
                    (range, position) = (position + 1..<end, end + 2)
                }
                if element == 0 { kind = range }
                if element == 2 { third = range }
            }
            guard let kind else { return (position, .other) }
            if count == 3, let third, ByteScan.hasPrefix("message", bytes, kind.lowerBound, kind.upperBound),
                kind.count == 7
            {
                return (position, .message(payload: third))
            }
            if ByteScan.hasPrefix("subscribe", bytes, kind.lowerBound, kind.upperBound) && kind.count == 9 {
                return (position, .subscribed)
            }
            return (position, .other)
        default:
            throw MessageFramingError(description: "not a RESP reply (starts with byte \(bytes[start]))")
        }
    }

    /// The bulk string at `start` (`$<size>` CRLF bytes CRLF): its bytes and where it ends; nil while incomplete.
    private static func bulk(
        _ bytes: UnsafeRawBufferPointer, at start: Int, maximumSize: Int
    ) throws(MessageFramingError) -> (range: Range<Int>, end: Int)? {
        guard let lineEnd = ByteScan.crlf(in: bytes, from: start) else { return nil }
        if lineEnd == start + 3 && bytes[start + 1] == UInt8(ascii: "-") && bytes[start + 2] == UInt8(ascii: "1") {
            return (lineEnd..<lineEnd, lineEnd + 2)  // $-1: null
        }
        guard let size = ByteScan.decimal(bytes, start + 1, lineEnd) else {
            throw MessageFramingError(description: "a RESP bulk string without a valid length")
        }
        guard size <= maximumSize else {
            throw MessageFramingError(description: "a RESP bulk string of \(size) bytes; at most \(maximumSize)")
        }
        guard bytes.count >= lineEnd + 2 + size + 2 else { return nil }
        return (lineEnd + 2..<lineEnd + 2 + size, lineEnd + 2 + size + 2)
    }
}
