import BenchCore

/// A protocol a ``ProtocolDescription`` describes, on WebSocket text messages, as one connection speaks it: its
/// handshake's steps in order (each `send` goes out as its message; each `expect` waits for a message containing its
/// text, passing over others), ready after the last; at any time a message containing an `error` text is the server's
/// error, and one containing a `reply`'s text is answered; once ready, every other message not `ignore`d (and, where
/// the description names `deliver` texts, containing one) is a delivery (its marker says which broadcast). The heartbeat's message goes out when it is due.
/// A line's alternatives match any one of them; a message a reply answers or an expect awaits gives the description's
/// captures their values, which the reply and the later `send` steps carry.
public final class DescribedSession: SessionStateMachine {
    private let description: ProtocolDescription
    /// The steps of this connection's role, and the next to take.
    private let steps: [ProtocolDescription.Step]
    private var nextStep = 0
    /// Each step's alternatives as bytes, for an `expect`.
    private let expected: [[[UInt8]]]
    private var message: CarriedBytes
    /// What is looked for in each message, as bytes (every alternative of every line): no string per message.
    private let errors: [[UInt8]]
    private let ignored: [[UInt8]]
    private let deliveries: [[UInt8]]
    private let replies: [(when: [[UInt8]], answer: String)]
    /// The captures' texts on either side of their values, as bytes, and the values taken so far (`{NAME}` → value).
    private let captures: [(variable: String, patterns: [(before: [UInt8], after: [UInt8])])]
    private var captured: [(variable: String, value: String)] = []
    /// The longest value a capture takes (an id, a token).
    static let longestCapture = 1_024
    /// True once the last step of the handshake was taken.
    public private(set) var isReady = false
    /// The first bytes of the last message received before ready (never after: nothing per delivery).
    private var lastBeforeReady: String?
    public var outbox = SessionOutbox()

    init(_ description: ProtocolDescription, role: SessionRole, maximumMessageSize: Int) {
        self.description = description
        steps = description.steps.filter { $0.role == nil || $0.role == role }
        func bytes(_ lines: [String]) -> [[UInt8]] { lines.flatMap(ProtocolDescription.alternatives).map { Array($0.utf8) } }
        expected = steps.map { bytes([$0.text]) }
        message = CarriedBytes(maximumMessageSize: maximumMessageSize)
        errors = bytes(description.errors)
        ignored = bytes(description.ignored)
        deliveries = bytes(description.deliveries)
        replies = description.replies.map { (bytes([$0.when]), $0.answer) }
        captures = description.captures.map { capture in
            ("{\(capture.name)}", capture.patterns.map { (Array($0.before.utf8), Array($0.after.utf8)) })
        }
    }

    /// The description's heartbeat period.
    public var heartbeatInterval: UInt64? { description.heartbeat?.interval }

    /// Owes the description's heartbeat message.
    public func heartbeat() {
        if let heartbeat = description.heartbeat { outbox.append(message: heartbeat.text) }
    }

    /// A ready connection's `close` message, as the run ends.
    public func closing() {
        if isReady, let text = description.closing { outbox.append(message: filled(text)) }
    }

    /// The step the handshake waits at (its number and text), and the last message received meanwhile.
    public var handshakeState: String? {
        guard !isReady, nextStep < steps.count else { return nil }
        return "waiting at step \(nextStep + 1) of \(steps.count), expect \(steps[nextStep].text); "
            + (lastBeforeReady.map { "the last message: \($0)" } ?? "no message came")
    }

    /// Sends the handshake's first messages, up to its first `expect` (ready at once without one).
    public func connected(name: String) {
        takeSteps { _ in }
    }

    /// Collects each WebSocket message whole, then reads it.
    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try message.collect(UnsafeRawBufferPointer(bytes), endsMessage: endsMessage) { read($0, act) }
    }

    /// The publish line around `payload`, its `{message_id}` (if any) a placeholder that each message's id replaces.
    public func publication(of payload: [UInt8]) -> Publication {
        var bytes: [UInt8] = []
        var payloadOffset = 0
        var messageIDOffset: Int?
        for piece in description.publish {
            switch piece {
            case .text(let text): bytes += text.utf8
            case .payload:
                payloadOffset = bytes.count
                bytes += payload
            case .messageID:
                messageIDOffset = bytes.count
                bytes += repeatElement(UInt8(ascii: "0"), count: Marker.identifierSize)
            }
        }
        return Publication(bytes: bytes, payloadOffset: payloadOffset, messageIDOffset: messageIDOffset)
    }

    private func read(_ message: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) {
        if ByteScan.containsAny(message, errors) {
            return act(.serverError("the server answered " + String(decoding: message.prefix(200), as: UTF8.self)))
        }
        var answered = false
        for reply in replies where ByteScan.containsAny(message, reply.when) {
            capture(from: message)
            outbox.append(message: filled(reply.answer))
            answered = true
        }
        guard isReady else {
            lastBeforeReady = PeerExcerpt.of(message, limit: 120)
            // Awaited by the step due, if it awaits one (a message before the connection opened is passed over).
            if nextStep < steps.count && !steps[nextStep].sends && ByteScan.containsAny(message, expected[nextStep]) {
                capture(from: message)
                nextStep += 1
                takeSteps(act)
            }
            return
        }
        if answered || ByteScan.containsAny(message, ignored) { return }
        if !deliveries.isEmpty && !ByteScan.containsAny(message, deliveries) { return }
        act(.delivered(message))
    }

    /// Takes each capture's value from `message` where one of its patterns is found in it (only in a message answered
    /// or awaited: never per delivery).
    private func capture(from message: UnsafeRawBufferPointer) {
        for capture in captures {
            for pattern in capture.patterns {
                guard let before = ByteScan.firstIndex(of: pattern.before, in: message) else { continue }
                let start = before + pattern.before.count
                guard let end = ByteScan.firstIndex(of: pattern.after, in: message, from: start),
                    end - start <= Self.longestCapture
                else { continue }
                let value = String(decoding: UnsafeRawBufferPointer(rebasing: message[start..<end]), as: UTF8.self)
                captured.removeAll { $0.variable == capture.variable }
                captured.append((capture.variable, value))
                break
            }
        }
    }

    /// `text` with the values captured so far in place of their `{NAME}`s (one pass: a value is not filled in again).
    private func filled(_ text: String) -> String {
        guard !captured.isEmpty, text.contains("{") else { return text }
        return text.replacing(/\{[a-z_][a-z0-9_]*\}/) { match in
            captured.first { $0.variable == match.output }?.value ?? String(match.output)
        }
    }

    /// Sends each `send` from the next step on, up to the next `expect`; ready once none is left.
    private func takeSteps(_ act: (SessionAction) -> Void) {
        while nextStep < steps.count && steps[nextStep].sends {
            outbox.append(message: filled(steps[nextStep].text))
            nextStep += 1
        }
        if nextStep == steps.count && !isReady {
            isReady = true
            act(.ready)
        }
    }
}
