import BenchCore

/// The user's own text on a ws:// or framed tcp:// server: a subscriber sends its `--subscribe` text once connected
/// (framed as the server frames messages), and every message the server sends is a delivery: one per WebSocket
/// message, or per frame of the tcp:// framing (``MessageDecoder``). Ready at once: nothing is confirmed.
public final class FramedSession: SessionStateMachine {
    /// The tcp:// server's framing; nil on ws://.
    public let framing: MessageFraming?
    private let subscribe: String?
    private let role: SessionRole
    private var decoder: MessageDecoder?
    private var message: CarriedBytes
    public let isReady = true
    public var outbox = SessionOutbox()

    init(framing: MessageFraming?, subscribe: String?, role: SessionRole, maximumMessageSize: Int) {
        (self.framing, self.subscribe, self.role) = (framing, subscribe, role)
        decoder = framing.map { MessageDecoder(framing: $0, maximumMessageSize: maximumMessageSize) }
        message = CarriedBytes(maximumMessageSize: maximumMessageSize)
    }

    public func connected(name: String) {
        guard role == .subscriber, let subscribe else { return }
        outbox.append(Self.framed(Array(subscribe.utf8), framing))
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        if decoder != nil {
            try decoder!.decode(bytes) { body in
                act(.delivered(UnsafeRawBufferPointer(body)))
                return true
            }
            return
        }
        try message.collect(UnsafeRawBufferPointer(bytes), endsMessage: endsMessage) { act(.delivered($0)) }
    }

    public func publication(of payload: [UInt8]) -> Publication {
        Publication(bytes: Self.framed(payload, framing), payloadOffset: framing?.headerSize ?? 0, framing: framing)
    }

    private static func framed(_ body: [UInt8], _ framing: MessageFraming?) -> [UInt8] {
        guard let framing else { return body }
        var message = [UInt8](repeating: 0, count: framing.headerSize + body.count + framing.trailerSize)
        message.replaceSubrange(framing.headerSize..<framing.headerSize + body.count, with: body)
        message.withUnsafeMutableBytes { framing.frame($0) }
        return message
    }
}
