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

/// Collects an HTTP head from a byte stream, however it was split, up to a size limit.
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

    /// The largest head accepted, empty line included.
    public let maximumSize: Int
    private var bytes: [UInt8] = []

    public init(maximumSize: Int = 8192) {
        self.maximumSize = maximumSize
    }

    /// Ready for the next head of the same stream, its buffer's capacity kept (a publisher reads one per message).
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Takes bytes of the stream. Returns the head once it is complete, with how many of `input`'s bytes it used
    /// (the rest belong to what follows the head); nil while it needs more.
    public mutating func consume(_ input: UnsafeRawBufferPointer) throws(Failure) -> (head: HTTPHead, used: Int)? {
        for (offset, byte) in input.enumerated() {
            bytes.append(byte)
            if bytes.count > maximumSize { throw .tooLong(limit: maximumSize) }
            if byte == UInt8(ascii: "\n") && bytes.count >= 4 && bytes[bytes.count - 4..<bytes.count].elementsEqual(
                [13, 10, 13, 10])
            {
                return (try Self.parse(bytes), offset + 1)
            }
        }
        return nil
    }

    private static func parse(_ bytes: [UInt8]) throws(Failure) -> HTTPHead {
        guard bytes.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) }) else {
            throw .malformed("the head holds bytes that are not printable ASCII")
        }
        let lines = String(decoding: bytes.dropLast(4), as: UTF8.self)
            .split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let startLine = lines.first, !startLine.isEmpty else { throw .malformed("the start line is empty") }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .malformed("header line without a name: \(line.prefix(80))")
            }
            let name = line[..<colon]
            guard !name.contains(" ") && !name.contains("\t") else { throw .malformed("blank in header name \(name)") }
            fields.append((String(name), String(line[line.index(after: colon)...].trimmed)))
        }
        return HTTPHead(startLine: String(startLine), fields: fields)
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
