import BenchCore

/// A protocol a ``ProtocolDescription`` describes, on WebSocket text messages, as one connection speaks it: its
/// handshake's steps in order (each `send` goes out as its message; each `expect` waits for a message containing its
/// text, passing over others), ready after the last; at any time a message containing an `error` text is the server's
/// error, and one containing a `reply`'s text is answered; once ready, every other message not `ignore`d (and, where
/// the description names `deliver` texts, containing one) is a delivery (its marker says which broadcast). The heartbeat's message goes out when it is due.
public final class DescribedSession: SessionStateMachine {
    private let description: ProtocolDescription
    /// The steps of this connection's role, and the next to take.
    private let steps: [ProtocolDescription.Step]
    private var nextStep = 0
    /// Each step's text as bytes, for an `expect`.
    private let expected: [[UInt8]]
    private var message: CarriedBytes
    /// What is looked for in each message, as bytes: no string per message.
    private let errors: [[UInt8]]
    private let ignored: [[UInt8]]
    private let deliveries: [[UInt8]]
    private let replies: [(when: [UInt8], answer: String)]
    /// True once the last step of the handshake was taken.
    public private(set) var isReady = false
    public var outbox = SessionOutbox()

    init(_ description: ProtocolDescription, role: SessionRole, maximumMessageSize: Int) {
        self.description = description
        steps = description.steps.filter { $0.role == nil || $0.role == role }
        expected = steps.map { Array($0.text.utf8) }
        message = CarriedBytes(maximumMessageSize: maximumMessageSize)
        errors = description.errors.map { Array($0.utf8) }
        ignored = description.ignored.map { Array($0.utf8) }
        deliveries = description.deliveries.map { Array($0.utf8) }
        replies = description.replies.map { (Array($0.when.utf8), $0.answer) }
    }

    /// The description's heartbeat period.
    public var heartbeatInterval: UInt64? { description.heartbeat?.interval }

    /// Owes the description's heartbeat message.
    public func heartbeat() {
        if let heartbeat = description.heartbeat { outbox.append(message: heartbeat.text) }
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
        if errors.contains(where: { ByteScan.contains(message, $0) }) {
            return act(.serverError("the server answered " + String(decoding: message.prefix(200), as: UTF8.self)))
        }
        var answered = false
        for reply in replies where ByteScan.contains(message, reply.when) {
            outbox.append(message: reply.answer)
            answered = true
        }
        guard isReady else {
            // Awaited by the step due, if it awaits one (a message before the connection opened is passed over).
            if nextStep < steps.count && !steps[nextStep].sends && ByteScan.contains(message, expected[nextStep]) {
                nextStep += 1
                takeSteps(act)
            }
            return
        }
        if answered || ignored.contains(where: { ByteScan.contains(message, $0) }) { return }
        if !deliveries.isEmpty && !deliveries.contains(where: { ByteScan.contains(message, $0) }) { return }
        act(.delivered(message))
    }

    /// Sends each `send` from the next step on, up to the next `expect`; ready once none is left.
    private func takeSteps(_ act: (SessionAction) -> Void) {
        while nextStep < steps.count && steps[nextStep].sends {
            outbox.append(message: steps[nextStep].text)
            nextStep += 1
        }
        if nextStep == steps.count && !isReady {
            isReady = true
            act(.ready)
        }
    }
}
