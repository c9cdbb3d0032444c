/// The head of an HTTP/1.x request (RFC 9112): its request line and header fields, read from bytes a peer sent, every
/// one of them untrusted. Lines end in CRLF (a bare LF is taken too, as the RFC allows); the head ends at an empty line
/// and may take at most ``maximumSize`` bytes.
public struct HTTPRequestHead: Equatable, Sendable {
    /// The request method (`GET`, `HEAD`, …), as sent.
    public let method: String
    /// The target's path, from `/`, without its query.
    public let path: String
    /// The header fields by lowercased name (a repeated field: the last).
    public let fields: [String: String]

    /// The longest head taken; a longer one is refused (431).
    public static let maximumSize = 8_192

    /// Why a head was refused: a reason for the person reading a log.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
        /// The status to answer with: 400, or 431 for a head too large.
        public let status: Int
    }

    /// Reads the head at the start of `bytes` (with ``HTTPHeadReader``, the one reader of a head): the head and how
    /// many bytes it took, or nil when the empty line that ends it has not come yet (and ``maximumSize`` is not
    /// passed).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(Invalid) -> (head: HTTPRequestHead, size: Int)? {
        var reader = HTTPHeadReader(maximumSize: maximumSize)
        let found: (head: HTTPHead, used: Int)?
        do {
            found = try reader.consume(bytes)
        } catch {
            switch error {
            case .tooLong: throw Invalid(description: "a request head of more than \(maximumSize) bytes", status: 431)
            case .malformed(let reason): throw Invalid(description: reason, status: 400)
            }
        }
        guard let found else { return nil }
        return (try HTTPRequestHead(found.head), found.used)
    }

    /// The request `head` is: its request line read as one.
    private init(_ head: HTTPHead) throws(Invalid) {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(HTTPHeadReader.isTokenCharacter) else {
            throw Invalid(description: "not a request line: \(head.startLine.prefix(80))", status: 400)
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            throw Invalid(description: "not HTTP/1.0 or HTTP/1.1: \(parts[2].prefix(20))", status: 400)
        }
        guard parts[1].hasPrefix("/"), parts[1].unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Invalid(description: "the request target is not a path", status: 400)
        }
        method = String(parts[0])
        path = String(parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        fields = Dictionary(head.fields.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }
}
