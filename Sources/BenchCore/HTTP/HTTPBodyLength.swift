/// How the body of an HTTP/1.1 response is delimited (RFC 9112, 6.3), read from its head as the RFC says: field names
/// in any case, values with optional whitespace, Transfer-Encoding's codings listed across its fields.
public enum HTTPBodyLength: Equatable, Sendable {
    /// No body: a 1xx, 204 or 304 response.
    case none
    /// `Content-Length` bytes.
    case length(Int)
    /// Chunked transfer coding.
    case chunked
    /// Neither: the body is everything until the server closes the connection.
    case untilClose

    /// The status code of a response's start line (`HTTP/1.1 200 OK`), or nil when it has none.
    public static func status(of head: HTTPHead) -> Int? {
        let parts = head.startLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), parts[1].count == 3 else { return nil }
        return Int(parts[1])
    }

    /// How `head`'s body (a response's, to a request that was not HEAD) is delimited.
    ///
    /// - Throws: ``HTTPHeadReader/Failure/malformed(_:)`` for a transfer coding other than chunked (bench asks for
    ///   no compression, so a `gzip, chunked` body would be read as events it is not), chunked not last, and a
    ///   Content-Length that is not one non-negative number.
    public init(response head: HTTPHead) throws(HTTPHeadReader.Failure) {
        let status = Self.status(of: head) ?? 0
        if (100..<200).contains(status) || status == 204 || status == 304 {
            self = .none
            return
        }
        let codings = head.fields.filter { $0.name.lowercased() == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",") }.map { String($0.trimmed).lowercased() }.filter { !$0.isEmpty }
        if !codings.isEmpty {
            guard let unasked = codings.first(where: { $0 != "chunked" }) else {
                guard codings.count == 1 else { throw .malformed("chunked applied more than once") }
                self = .chunked
                return
            }
            throw .malformed("a transfer coding bench did not ask for: \(unasked.prefix(40))")
        }
        let lengths = Set(head.fields.filter { $0.name.lowercased() == "content-length" }
            .flatMap { $0.value.split(separator: ",") }.map { String($0.trimmed) })
        guard let text = lengths.first else {
            self = .untilClose
            return
        }
        guard lengths.count == 1, !text.isEmpty, text.count <= 15, text.allSatisfy({ $0.isASCII && $0.isNumber }),
            let length = Int(text)
        else { throw .malformed("Content-Length is not one number: \(lengths.sorted().joined(separator: ", ").prefix(60))") }
        self = .length(length)
    }
}
