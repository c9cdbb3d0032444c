import BenchCore

/// A protocol over WebSocket text messages described in a few lines rather than code (`--protocol FILE`, and the
/// built-in ``builtIn``: `phoenix`, `actioncable`, `graphql`): what a connection sends and waits for before it is
/// ready, what it answers, its heartbeat, how a published message is wrapped, and which of the server's messages are
/// errors, deliveries or neither. Each line is a keyword and its text, the rest of the line as written (no quoting, no escapes); `#`
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
/// - `capture PATTERN`: PATTERN is text with one `{NAME}` in it, with text before and after it (`id='{id}'`): in a
///   message a `reply` answers or an `expect` awaits, what stands between those two texts is `{NAME}` in the reply and
///   in the `send` steps after it (an XMPP ping answered with its own id, a session token the server hands out).
/// - Alternatives: in `expect`, `error`, `ignore`, `deliver`, a reply's WHEN and `capture`, texts separated by ` || `
///   match any one of them (`code="110" || code='110'`).
/// - `heartbeat DURATION TEXT`: TEXT sent every DURATION while connected.
/// - `publish TEXT`: the publisher's message, with `{payload}` once (the payload, with its marker); default `{payload}`.
///   `{payload_json}` instead: `--publish`'s text (required) escaped as inside a JSON string, for a server that parses
///   what is published (a GraphQL mutation); `{payload_xml}` the same, escaped as XML character data (an XMPP
///   message's body). `{message_id}`, at most once: an id unique to each message (GraphQL's operation id).
/// - `error TEXT`: a message containing TEXT is the server's refusal or error, at any time.
/// - `ignore TEXT`: once ready, a message containing TEXT is no delivery (replies, pings).
/// - `deliver TEXT`: once ready, only a message containing TEXT (one of them, if several) is a delivery.
/// - `subprotocol NAME`: the WebSocket subprotocol the upgrade asks for (and the server must take).
/// - `close TEXT`: a ready connection's last message, sent as the run ends before the WebSocket close (XMPP's
///   `<close/>`, graphql-transport-ws's `complete`).
/// - `own-copy yes`: in chat, the server sends each message to its sender too (an ActionCable stream's broadcast, a
///   Phoenix `broadcast!`): the sender's read of its own copy is the message's round trip (`rtt`), and a copy that
///   does not come is lost. `own-copy no` is the default.
///
/// `{channel}` (`--channel`; `{channel_json}` as it goes inside a JSON string), `{connection_params}`
/// (`--connection-params`, a JSON object; `{}` without it), `{room}` (chat) and a `--clients-file`'s columns are
/// filled in before a connection uses the description (``expanding(_:)``).
public struct ProtocolDescription: Sendable, Equatable {
    /// One step of the handshake: a message sent, or one awaited.
    public struct Step: Sendable, Equatable {
        /// Whose step it is; nil: every connection's.
        public var role: SessionRole?
        /// True for `send`, false for `expect`.
        public var sends: Bool
        /// The message sent, or what the message awaited contains.
        public var text: String
    }

    /// A message containing `when` is answered with `answer`.
    public struct Reply: Sendable, Equatable {
        public var when: String
        public var answer: String
    }

    /// The keepalive: `text` every `interval` (ns).
    public struct Heartbeat: Sendable, Equatable {
        public var interval: UInt64
        public var text: String
    }

    /// What the description calls itself: a built-in's name, or the file's path.
    public let name: String
    /// The text it was read from, as written: a child process or an agent reads it again, and fills in the channel.
    public let source: String
    /// `--channel`, once filled in (``filling(channel:connectionParameters:)``).
    public internal(set) var channel: String?
    /// `--connection-params`, once filled in.
    public internal(set) var connectionParameters: String?
    /// The WebSocket subprotocol asked for.
    public internal(set) var subprotocol: String?
    /// The handshake, both roles' steps in order.
    public internal(set) var steps: [Step] = []
    public internal(set) var replies: [Reply] = []
    public internal(set) var captures: [Capture] = []
    public internal(set) var heartbeat: Heartbeat?
    /// A ready connection's last message, as the run ends (`close TEXT`).
    public internal(set) var closing: String?
    /// In chat, the server sends each message to its sender too (`own-copy yes`).
    public internal(set) var sendsOwnCopy = false
    /// A piece of the publisher's message: text as written, or where the payload or the message's id goes.
    public enum PublishPiece: Sendable, Equatable {
        case text(String)
        case payload
        case messageID
    }

    /// The publisher's message in pieces, split where the line is read: each text is filled in apart, so that no value
    /// can make a second `{payload}` or `{message_id}`.
    public internal(set) var publish: [PublishPiece] = [.payload]
    /// How `--publish`'s text goes into the publish line: as it is (`{payload}`), or escaped as inside a JSON string
    /// (`{payload_json}`) or as XML character data (`{payload_xml}`), which make `--publish` required.
    public enum PayloadEscaping: Sendable, Equatable {
        case none, json, xml
    }

    public internal(set) var payloadEscaping = PayloadEscaping.none
    /// A message containing one of these is the server's refusal or error.
    public internal(set) var errors: [String] = []
    /// Once ready, a message containing one of these is no delivery.
    public internal(set) var ignored: [String] = []
    /// Once ready, only a message containing one of these is a delivery (when there is any).
    public internal(set) var deliveries: [String] = []

    /// Where a published message's payload goes in its `publish` line (or ``jsonPayloadVariable``).
    public static let payloadVariable = "{payload}"
    /// Where `--publish`'s text goes, escaped as inside a JSON string.
    public static let jsonPayloadVariable = "{payload_json}"
    /// Where `--publish`'s text goes, escaped as XML character data.
    public static let xmlPayloadVariable = "{payload_xml}"
    /// Where a published message's id goes (``BenchCore/Marker/writeIdentifier(into:)``).
    public static let messageIDVariable = "{message_id}"
    /// The variables of the publish line alone.
    public static let publishVariables = [payloadVariable, jsonPayloadVariable, xmlPayloadVariable, messageIDVariable]
    /// The longest description read (16 KiB): a protocol is a dozen lines.
    public static let maximumSize = 16 << 10
    /// The shortest and the longest heartbeat period (100 ms, an hour).
    static let heartbeats: ClosedRange<UInt64> = 100_000_000...3_600_000_000_000

    /// Why a description cannot be read: the line and what is wrong with it.
    public struct Invalid: Error, Equatable {
        /// The line's number and what is wrong with it.
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
            if keyword != "publish", let variable = Self.publishVariables.first(where: { text.contains($0) }) {
                throw invalid("\(variable) belongs in the publish line alone")
            }
            switch keyword {
            case "send", "expect": steps.append(Step(role: role, sends: keyword == "send", text: text))
            case "reply":
                guard let arrow = text.firstRange(of: " => "), !text[..<arrow.lowerBound].isEmpty,
                    !text[arrow.upperBound...].isEmpty
                else { throw invalid("expected reply WHEN => ANSWER") }
                replies.append(
                    Reply(when: String(text[..<arrow.lowerBound]), answer: String(text[arrow.upperBound...])))
            case "heartbeat":
                let (period, message) = Self.word(rest)
                guard !message.isEmpty, let interval = try? DurationText.parse(String(period)) else {
                    throw invalid("expected heartbeat DURATION TEXT, as heartbeat 30s {\"type\":\"ping\"}")
                }
                guard Self.heartbeats.contains(interval) else { throw invalid("a heartbeat from 100ms to 1h") }
                guard heartbeat == nil else { throw invalid("a second heartbeat") }
                heartbeat = Heartbeat(interval: interval, text: String(message))
            case "publish":
                let places = text.ranges(of: Self.payloadVariable) + text.ranges(of: Self.jsonPayloadVariable)
                    + text.ranges(of: Self.xmlPayloadVariable)
                guard places.count == 1 else {
                    throw invalid("the publish line holds \(Self.payloadVariable) once, where the payload goes")
                }
                guard text.ranges(of: Self.messageIDVariable).count <= 1 else {
                    throw invalid("the publish line holds \(Self.messageIDVariable) at most once")
                }
                publishes += 1
                guard publishes == 1 else { throw invalid("a second publish line") }
                (publish, payloadEscaping) = Self.pieces(of: text)
            case "capture": captures.append(try Self.capture(text, invalid: invalid))
            case "close":
                guard closing == nil else { throw invalid("a second close") }
                closing = text
            case "error": errors.append(text)
            case "ignore": ignored.append(text)
            case "deliver": deliveries.append(text)
            case "own-copy":
                guard text == "yes" || text == "no" else { throw invalid("expected own-copy yes or own-copy no") }
                sendsOwnCopy = text == "yes"
            case "subprotocol":
                guard text.allSatisfy(HTTPHeadReader.isTokenCharacter) else {
                    throw invalid("expected subprotocol NAME, one word of letters, digits and !#$%&'*+-.^_`|~")
                }
                guard subprotocol == nil else { throw invalid("a second subprotocol") }
                subprotocol = text
            default:
                throw invalid(
                    "unknown keyword '\(keyword)' (expected send, expect, reply, capture, heartbeat, publish, error, "
                        + "ignore, deliver, close, own-copy or subprotocol)")
            }
        }
    }

    /// A publish line's pieces (it holds one payload variable and at most one `{message_id}`), and how its payload is
    /// escaped.
    private static func pieces(of line: String) -> ([PublishPiece], PayloadEscaping) {
        var pieces: [PublishPiece] = []
        var escaping = PayloadEscaping.none
        var rest = Substring(line)
        while let match = rest.firstMatch(of: /\{(payload|payload_json|payload_xml|message_id)\}/) {
            if match.range.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<match.range.lowerBound]))) }
            pieces.append(match.output.1 == "message_id" ? .messageID : .payload)
            if match.output.1 == "payload_json" { escaping = .json }
            if match.output.1 == "payload_xml" { escaping = .xml }
            rest = rest[match.range.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        return (pieces, escaping)
    }

    /// The first word of `text` and what follows it, blanks between them dropped.
    private static func word(_ text: Substring) -> (Substring, Substring) {
        let end = text.firstIndex { $0 == " " || $0 == "\t" } ?? text.endIndex
        return (text[..<end], text[end...].drop { $0 == " " || $0 == "\t" })
    }

    /// Every text that goes on the wire or is looked for, for the checks on the variables in it (the publish line's
    /// with its `{payload}`).
    public var texts: [String] {
        steps.map(\.text) + replies.flatMap { [$0.when, $0.answer] } + (heartbeat.map { [$0.text] } ?? [])
            + [publishLine] + errors + ignored + deliveries + captures.flatMap { $0.patterns.flatMap { [$0.before, $0.after] } }
            + (closing.map { [$0] } ?? [])
    }

    /// The publish line as written, its variables in their places.
    private var publishLine: String {
        publish.map { piece in
            switch piece {
            case .text(let text): text
            case .payload:
                switch payloadEscaping {
                case .none: Self.payloadVariable
                case .json: Self.jsonPayloadVariable
                case .xml: Self.xmlPayloadVariable
                }
            case .messageID: Self.messageIDVariable
            }
        }.joined()
    }

    public static func == (a: ProtocolDescription, b: ProtocolDescription) -> Bool {
        a.name == b.name && a.source == b.source && a.channel == b.channel
            && a.connectionParameters == b.connectionParameters && a.subprotocol == b.subprotocol && a.steps == b.steps
            && a.replies == b.replies && a.heartbeat == b.heartbeat && a.publish == b.publish
            && a.payloadEscaping == b.payloadEscaping && a.errors == b.errors && a.ignored == b.ignored
            && a.deliveries == b.deliveries && a.captures == b.captures && a.closing == b.closing
    }
}
