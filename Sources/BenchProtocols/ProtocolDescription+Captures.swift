/// A description's captures and alternatives: values taken from the server's messages (`capture id='{id}'`), and
/// lines whose texts match any one of several (`code="110" || code='110'`).
extension ProtocolDescription {
    /// A value taken from the server's messages: `name`, between `before` and `after` (each alternative a pair).
    public struct Capture: Sendable, Equatable {
        public var name: String
        public var patterns: [Pattern]

        /// The texts on either side of the value.
        public struct Pattern: Sendable, Equatable {
            public var before: String
            public var after: String
        }
    }

    /// What separates a line's alternatives.
    public static let alternativesSeparator = " || "

    /// The variables a description fills in itself (``filling(channel:connectionParameters:)``) or a run does (`{room}`,
    /// `{client}`): no capture takes their names.
    static let reservedNames: Set<String> = [
        "payload", "payload_json", "payload_xml", "message_id", "channel", "channel_json", "connection_params", "room",
        "client", "marker", "padding",
    ]

    /// A line's alternatives (``alternativesSeparator``), each as written.
    public static func alternatives(_ text: String) -> [String] {
        text.split(separator: alternativesSeparator, omittingEmptySubsequences: true).map(String.init)
    }

    /// Reads a `capture` line: each alternative holds `{NAME}` once, the same name, between texts on both sides.
    static func capture(_ text: String, invalid: (String) -> Invalid) throws(Invalid) -> Capture {
        var name: String?
        var patterns: [Capture.Pattern] = []
        for alternative in alternatives(text) {
            let found = alternative.matches(of: /\{([a-z_][a-z0-9_]*)\}/)
            guard found.count == 1, let match = found.first, match.range.lowerBound > alternative.startIndex,
                match.range.upperBound < alternative.endIndex
            else {
                throw invalid("expected capture TEXT{NAME}TEXT, as capture id='{id}': one {NAME} with text on both sides")
            }
            let captured = String(match.output.1)
            guard !reservedNames.contains(captured) else { throw invalid("{\(captured)} is filled in by bench: capture another name") }
            guard name == nil || name == captured else { throw invalid("one name in a capture's alternatives") }
            name = captured
            patterns.append(Capture.Pattern(
                before: String(alternative[..<match.range.lowerBound]), after: String(alternative[match.range.upperBound...])))
        }
        guard let name else { throw invalid("capture needs a text after it") }
        return Capture(name: name, patterns: patterns)
    }

    /// The names of the values the description captures: variables of its replies and steps, not a run's.
    public var captureNames: Set<String> { Set(captures.map(\.name)) }
}
