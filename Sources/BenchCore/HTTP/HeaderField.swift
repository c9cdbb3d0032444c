/// A header field the user adds to every HTTP handshake of a target's clients (`--header 'Name: value'`): a bearer
/// token, a cookie, an API key. Its value is a secret: only its name is ever printed or written to a report.
///
/// Read from the command line and from a run's control channel alike, so checked as untrusted: a name that is an HTTP
/// token, a value of visible characters, blanks and tabs (no CR or LF: a field must not smuggle in another, nor end
/// the head), and none of the fields every handshake writes itself (which a second copy would contradict; the
/// subprotocol, which only some write, is refused where they do).
public struct HeaderField: Sendable, Equatable {
    public let name: String
    public let value: String

    /// Why a field cannot be sent.
    public struct Invalid: Error, Equatable, Sendable {
        public let reason: String
    }

    /// The fields each handshake writes itself, lowercased.
    public static let reserved: Set<String> = [
        "host", "connection", "upgrade", "content-length", "transfer-encoding", "sec-websocket-key",
        "sec-websocket-version", "sec-websocket-accept", "sec-websocket-extensions",
    ]

    /// The longest field, name and value, in bytes.
    public static var maximumSize: Int { 8 << 10 }

    /// The field `name: value`, checked.
    public init(name: String, value: String) throws(Invalid) {
        guard !name.isEmpty, name.allSatisfy(HTTPHeadReader.isTokenCharacter) else {
            throw Invalid(reason: "'\(name.prefix(40))' is not a header name (letters, digits and !#$%&'*+-.^_`|~)")
        }
        guard !Self.reserved.contains(name.lowercased()) else {
            throw Invalid(reason: "\(name) is written by the handshake itself")
        }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw Invalid(reason: "the value of \(name) has a control character (a line break would end the field)")
        }
        guard name.utf8.count + value.utf8.count <= Self.maximumSize else {
            throw Invalid(reason: "\(name) is longer than \(Self.maximumSize / 1024) KiB")
        }
        self.name = name
        self.value = value
    }

    /// Reads `Name: value` (blanks around the value dropped).
    public init(parsing text: String) throws(Invalid) {
        guard let colon = text.firstIndex(of: ":") else {
            throw Invalid(reason: "expected 'Name: value'")
        }
        try self.init(name: String(text[..<colon]), value: String(text[text.index(after: colon)...].trimmed))
    }

    /// `Name: value` as it is sent.
    public var text: String { "\(name): \(value)" }
}

extension [HeaderField] {
    /// The fields' names, for reports: `Authorization X-Api-Key`; empty without fields.
    public var names: String { map(\.name).joined(separator: " ") }
}
