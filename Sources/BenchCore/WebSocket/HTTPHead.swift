/// The head of an HTTP/1.1 message (start line and header fields), as the WebSocket opening handshake exchanges it.
public struct HTTPHead: Sendable, Equatable {
    /// `GET /path HTTP/1.1` or `HTTP/1.1 101 Switching Protocols`.
    public var startLine: String
    /// Header fields in order, names as sent.
    public var fields: [(name: String, value: String)]

    public init(startLine: String, fields: [(name: String, value: String)]) {
        self.startLine = startLine
        self.fields = fields
    }

    /// The value of the first field called `name` (case-insensitive), without surrounding blanks.
    public func value(of name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// True when field `name` lists `token` among its comma-separated values (case-insensitive), as `Connection`
    /// may say `keep-alive, Upgrade`.
    public func field(_ name: String, contains token: String) -> Bool {
        let wanted = token.lowercased()
        return fields.contains { field in
            field.name.lowercased() == name.lowercased()
                && field.value.split(separator: ",").contains { $0.trimmed.lowercased() == wanted }
        }
    }

    /// The head as bytes on the wire, ending with the empty line.
    public var bytes: [UInt8] {
        var text = startLine + "\r\n"
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    public static func == (lhs: HTTPHead, rhs: HTTPHead) -> Bool {
        lhs.startLine == rhs.startLine && lhs.fields.elementsEqual(rhs.fields) { $0 == $1 }
    }
}

/// Collects an HTTP/1.x head (RFC 9112) from a byte stream, however it was split, up to a size limit: the one reader of
/// a head for every user (a WebSocket handshake's either way, a Server-Sent Events response, the live view's requests).
///
/// Every byte is untrusted. Lines end in CRLF or a bare LF (as the RFC lets a recipient take), empty lines before the
/// start line are skipped (RFC 9112 §2.2), the head ends at an empty line; it must be ASCII text, and each field a
/// token name, a colon and a value (blanks around it dropped).
public struct HTTPHeadReader: Sendable {
    /// Why a head could not be read.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case tooLong(limit: Int)
        case malformed(String)

        public var description: String {
            switch self {
            case .tooLong(let limit): "the HTTP head is longer than \(limit) bytes"
            case .malformed(let reason): "the HTTP head is malformed: \(reason)"
            }
        }
    }

    /// The largest head accepted, empty lines before it and the one that ends it included.
    public let maximumSize: Int
    private var bytes: [UInt8] = []
    /// Where the line being read began, and where the start line did (nil: only empty lines so far).
    private var lineStart = 0
    private var headStart: Int?

    public init(maximumSize: Int = 8192) {
        self.maximumSize = maximumSize
    }

    /// Ready for the next head of the same stream, its buffer's capacity kept (a publisher reads one per message).
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        (lineStart, headStart) = (0, nil)
    }

    /// Takes bytes of the stream. Returns the head once it is complete, with how many of `input`'s bytes it used
    /// (the rest belong to what follows the head); nil while it needs more.
    public mutating func consume(_ input: UnsafeRawBufferPointer) throws(Failure) -> (head: HTTPHead, used: Int)? {
        for (offset, byte) in input.enumerated() {
            bytes.append(byte)
            if bytes.count > maximumSize { throw .tooLong(limit: maximumSize) }
            guard byte == UInt8(ascii: "\n") else { continue }
            let end = bytes.count - 1
            let isEmpty = end == lineStart || (end == lineStart + 1 && bytes[lineStart] == UInt8(ascii: "\r"))
            if isEmpty, let headStart { return (try Self.parse(bytes[headStart..<lineStart]), offset + 1) }
            if !isEmpty && headStart == nil { headStart = lineStart }
            lineStart = bytes.count
        }
        return nil
    }

    /// The head in `bytes`: its lines, each ending in LF.
    private static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> HTTPHead {
        guard bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32...127).contains($0) }) else {
            throw .malformed("the head holds bytes that are not ASCII text")
        }
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast().map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex, line[..<colon].allSatisfy(isTokenCharacter)
            else {
                throw .malformed("not a header field: \(line.prefix(80))")
            }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...].trimmed)))
        }
        return HTTPHead(startLine: lines[0], fields: fields)
    }

    /// A character of an RFC 9110 token (methods, field names).
    public static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
            || "!#$%&'*+-.^_`|~".utf8.contains(ascii)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmed: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
