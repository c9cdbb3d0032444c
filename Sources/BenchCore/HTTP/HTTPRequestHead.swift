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

    /// Reads the head at the start of `bytes`: the head and how many bytes it took, or nil when the empty line that
    /// ends it has not come yet (and ``maximumSize`` is not passed).
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(Invalid) -> (head: HTTPRequestHead, size: Int)? {
        var lines: [Substring] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == 10 else {
                index += 1
                continue
            }
            let end = index > start && bytes[index - 1] == 13 ? index - 1 : index
            guard let line = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) else {
                throw Invalid(description: "a line of the request is not UTF-8", status: 400)
            }
            index += 1
            start = index
            if line.isEmpty {
                if lines.isEmpty { continue }  // empty lines before a request line are ignored (RFC 9112 §2.2)
                return (try head(of: lines), index)
            }
            lines.append(Substring(line))
            guard index <= maximumSize else { break }
        }
        guard bytes.count <= maximumSize else {
            throw Invalid(description: "a request head of more than \(maximumSize) bytes", status: 431)
        }
        return nil
    }

    private static func head(of lines: [Substring]) throws(Invalid) -> HTTPRequestHead {
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter) else {
            throw Invalid(description: "not a request line: \(lines[0].prefix(80))", status: 400)
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            throw Invalid(description: "not HTTP/1.0 or HTTP/1.1: \(parts[2].prefix(20))", status: 400)
        }
        guard parts[1].hasPrefix("/"), parts[1].unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Invalid(description: "the request target is not a path", status: 400)
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon > line.startIndex,
                line[..<colon].allSatisfy(isTokenCharacter)
            else {
                throw Invalid(description: "not a header field: \(line.prefix(80))", status: 400)
            }
            let value = line[line.index(after: colon)...].trimmingPrefixAndSuffix(" \t")
            fields[line[..<colon].lowercased()] = String(value)
        }
        let path = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return HTTPRequestHead(method: String(parts[0]), path: String(path), fields: fields)
    }

    /// A character of an RFC 9110 token (methods, field names).
    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A)
            || "!#$%&'*+-.^_`|~".utf8.contains(ascii)
    }
}

extension Substring {
    fileprivate func trimmingPrefixAndSuffix(_ characters: String) -> Substring {
        var result = self
        while let first = result.first, characters.contains(first) { result = result.dropFirst() }
        while let last = result.last, characters.contains(last) { result = result.dropLast() }
        return result
    }
}
