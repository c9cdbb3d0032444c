import BenchCore

/// A protocol over WebSocket text messages described in a few lines rather than code (`--protocol FILE`, and the
/// built-in ``builtIn``: `phoenix`, `actioncable`): what a connection sends and waits for before it is ready, what it
/// answers, its heartbeat, how a published message is wrapped, and which of the server's messages are errors or no
/// deliveries. Each line is a keyword and its text, the rest of the line as written (no quoting, no escapes); `#`
/// starts a comment line:
///
///     send        ["1","1","{channel_json}","phx_join",{}]
///     expect      "phx_reply"
///     error       "status":"error"
///     heartbeat   30s [null,"hb","phoenix","heartbeat",{}]
///     publish     ["1","p","{channel_json}","new_msg",{"body":"{payload}"}]
///     ignore      "phx_reply"
///
/// - `send TEXT` and `expect TEXT`, the handshake in order: a message sent; a message containing TEXT awaited (others
///   before it passed over). `subscriber send`, `publisher expect` and so on: that role's alone. A connection is ready
///   after its last step (at once without any).
/// - `reply WHEN => TEXT`: a message containing WHEN is answered with TEXT (a ping's pong), at any time.
/// - `heartbeat DURATION TEXT`: TEXT sent every DURATION while connected.
/// - `publish TEXT`: the publisher's message, with `{payload}` once (the payload, with its marker); default `{payload}`.
/// - `error TEXT`: a message containing TEXT is the server's refusal or error, at any time.
/// - `ignore TEXT`: once ready, a message containing TEXT is no delivery (replies, pings).
///
/// `{channel}` (`--channel`; `{channel_json}` as it goes inside a JSON string), `{room}` (chat) and a
/// `--clients-file`'s columns are filled in before a connection uses the description (``expanding(_:)``).
public struct ProtocolDescription: Sendable, Equatable {
    /// One step of the handshake: a message sent, or one awaited.
    public struct Step: Sendable, Equatable {
        /// Whose step it is; nil: every connection's.
        public var role: SessionRole?
        /// True for `send`, false for `expect`.
        public var sends: Bool
        public var text: String
    }

    /// What the description calls itself: a built-in's name, or the file's path.
    public var name: String
    public var steps: [Step] = []
    /// Messages containing `when` are answered with `answer`.
    public var replies: [(when: String, answer: String)] = []
    /// The keepalive: its period (ns) and message.
    public var heartbeat: (interval: UInt64, text: String)?
    /// The publisher's message, `{payload}` once in it.
    public var publish = Self.payloadVariable
    public var errors: [String] = []
    public var ignored: [String] = []
    /// The text it was read from, for a child process or an agent, which read it again.
    public private(set) var source: String

    /// Where a published message's payload goes in ``publish``.
    public static let payloadVariable = "{payload}"
    /// The longest description read (16 KiB): a protocol is a dozen lines.
    public static let maximumSize = 16 << 10
    /// The shortest heartbeat period (100 ms).
    static let shortestHeartbeat: UInt64 = 100_000_000

    /// Why a description cannot be read: the line and what is wrong with it.
    public struct Invalid: Error, Equatable {
        public let reason: String
    }

    /// Reads the description in `text`, called `name`.
    public init(parsing text: String, name: String) throws(Invalid) {
        guard text.utf8.count <= Self.maximumSize else {
            throw Invalid(reason: "longer than \(Self.maximumSize >> 10) KiB")
        }
        (self.name, self.source) = (name, text)
        var publishes = 0
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            func invalid(_ reason: String) -> Invalid { Invalid(reason: "line \(index + 1): \(reason)") }
            var (keyword, rest) = Self.word(trimmed)
            var role: SessionRole?
            if keyword == "subscriber" || keyword == "publisher" {
                role = keyword == "subscriber" ? .subscriber : .publisher
                (keyword, rest) = Self.word(rest)
                guard keyword == "send" || keyword == "expect" else {
                    throw invalid("expected send or expect after \(role == .subscriber ? "subscriber" : "publisher")")
                }
            }
            guard !rest.isEmpty || keyword.isEmpty else { throw invalid("\(keyword) needs a text after it") }
            let text = String(rest)
            if keyword != "publish" && text.contains(Self.payloadVariable) {
                throw invalid("\(Self.payloadVariable) belongs in the publish line alone")
            }
            switch keyword {
            case "send", "expect": steps.append(Step(role: role, sends: keyword == "send", text: text))
            case "reply":
                guard let arrow = text.firstRange(of: " => "), !text[..<arrow.lowerBound].isEmpty,
                    !text[arrow.upperBound...].isEmpty
                else { throw invalid("expected reply WHEN => ANSWER") }
                replies.append((String(text[..<arrow.lowerBound]), String(text[arrow.upperBound...])))
            case "heartbeat":
                let (period, message) = Self.word(rest)
                guard !message.isEmpty, let interval = try? DurationText.parse(String(period)) else {
                    throw invalid("expected heartbeat DURATION TEXT, as heartbeat 30s {\"type\":\"ping\"}")
                }
                guard interval >= Self.shortestHeartbeat else { throw invalid("a heartbeat of at least 100ms") }
                guard heartbeat == nil else { throw invalid("a second heartbeat") }
                heartbeat = (interval, String(message))
            case "publish":
                guard text.ranges(of: Self.payloadVariable).count == 1 else {
                    throw invalid("the publish line holds \(Self.payloadVariable) once, where the payload goes")
                }
                publishes += 1
                guard publishes == 1 else { throw invalid("a second publish line") }
                publish = text
            case "error": errors.append(text)
            case "ignore": ignored.append(text)
            default:
                throw invalid("unknown keyword '\(keyword)' (expected send, expect, reply, heartbeat, publish, error or ignore)")
            }
        }
    }

    /// The first word of `text` and what follows it, blanks between them dropped.
    private static func word(_ text: Substring) -> (Substring, Substring) {
        let end = text.firstIndex { $0 == " " || $0 == "\t" } ?? text.endIndex
        return (text[..<end], text[end...].drop { $0 == " " || $0 == "\t" })
    }

    /// Every text that goes on the wire or is looked for, for the checks on the variables in it.
    public var texts: [String] {
        steps.map(\.text) + replies.flatMap { [$0.when, $0.answer] } + (heartbeat.map { [$0.text] } ?? []) + [publish]
            + errors + ignored
    }

    /// The description with `expand` applied to every text (a client's variables filled in); its ``source`` too.
    public func expanding(_ expand: (String) -> String) -> ProtocolDescription {
        var expanded = self
        expanded.source = expand(source)
        expanded.steps = steps.map { Step(role: $0.role, sends: $0.sends, text: expand($0.text)) }
        expanded.replies = replies.map { (expand($0.when), expand($0.answer)) }
        expanded.heartbeat = heartbeat.map { ($0.interval, expand($0.text)) }
        expanded.publish = expand(publish)
        expanded.errors = errors.map(expand)
        expanded.ignored = ignored.map(expand)
        return expanded
    }

    /// The variables a description may use besides a `--clients-file`'s columns: `{channel}` and `{channel_json}` (the
    /// channel as it goes inside a JSON string), filled in once (``filling(channel:)``); `{room}`, a chat member's.
    public static let variables: Set<String> = ["channel", "channel_json", "room"]

    /// True when a text uses `{channel}` or `{channel_json}`: the run needs `--channel`.
    public var asksForChannel: Bool { texts.contains { $0.contains("{channel}") || $0.contains("{channel_json}") } }

    /// The description with `channel` in place of `{channel}`, and escaped as inside a JSON string in place of
    /// `{channel_json}`.
    public func filling(channel: String) -> ProtocolDescription {
        let escaped = String(JSONText.string(channel).dropFirst().dropLast())
        return expanding { $0.replacing("{channel_json}", with: escaped).replacing("{channel}", with: channel) }
    }

    public static func == (a: ProtocolDescription, b: ProtocolDescription) -> Bool {
        a.name == b.name && a.source == b.source
    }
}
