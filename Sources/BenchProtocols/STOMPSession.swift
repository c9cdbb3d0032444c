import BenchCore

/// STOMP 1.2 as one connection speaks it (RabbitMQ's STOMP and Web-STOMP plugins, ActiveMQ, Spring's broker relay):
/// `CONNECT` with the heart-beats it will send and asks of the broker, `SUBSCRIBE` with a receipt for a subscriber; a subscriber is ready on
/// the `RECEIPT`, the publisher on `CONNECTED`. A `MESSAGE`'s body is a delivery, an `ERROR` the server's error, each
/// heart-beat it sends (an end of line between frames) is skipped. Each frame owed goes as a message of its own, so
/// that on WebSocket every frame is one text message, as brokers expect. Parsed on the bytes: no string per message.
public final class STOMPSession: SessionStateMachine {
    private let settings: ServerProtocol.STOMPSettings
    private let role: SessionRole
    private let maximumMessageSize: Int
    private var carried: CarriedBytes
    public private(set) var isReady = false
    public var outbox = SessionOutbox()
    /// The receipt a subscriber asks of its SUBSCRIBE, and waits for.
    private static let receipt = "bench-subscribed"

    init(_ settings: ServerProtocol.STOMPSettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role, self.maximumMessageSize) = (settings, role, maximumMessageSize)
        carried = CarriedBytes(maximumMessageSize: maximumMessageSize + STOMPFrame.maximumHeadSize)  // a frame's head too
    }

    /// Half the heart-beat it promises in its CONNECT, so that the broker never waits the whole of it for a byte.
    public var heartbeatInterval: UInt64? {
        settings.heartBeatMilliseconds > 0 ? UInt64(settings.heartBeatMilliseconds) * 500_000 : nil
    }

    public func connected(name: String) {
        // CONNECT's header values are not escaped (STOMP 1.2, "Value Encoding"); the others' are. It asks the broker for
        // heart-beats as often as it sends its own: a quiet broker is then heard (`--dead-after`), a hung one not.
        let beat = settings.heartBeatMilliseconds
        var connect = "CONNECT\naccept-version:1.2\nhost:\(settings.host)\nheart-beat:\(beat),\(beat)\n"
        if let login = settings.login { connect += "login:\(login)\n" }
        if let passcode = settings.passcode { connect += "passcode:\(passcode)\n" }
        outbox.append(message: connect + "\n\0")
        guard role == .subscriber else { return }
        outbox.append(message: "SUBSCRIBE\nid:0\ndestination:\(Self.escaped(settings.destination))\nack:auto\n"
            + "receipt:\(Self.receipt)\n\n\0")
    }

    public func heartbeat() {
        outbox.append(message: "\n")
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try carried.take(UnsafeRawBufferPointer(bytes)) { (bytes) throws(MessageFramingError) in try frames(bytes, act) }
    }

    public func publication(of payload: [UInt8]) -> Publication {
        let head = Array(("SEND\ndestination:\(Self.escaped(settings.destination))\ncontent-type:text/plain\n"
            + "content-length:\(payload.count)\n\n").utf8)
        return Publication(bytes: head + payload + [0], payloadOffset: head.count)
    }

    /// A header value as STOMP 1.2 escapes it: backslash, carriage return, line feed and colon.
    static func escaped(_ value: String) -> String {
        var text = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": text += "\\\\"
            case "\r": text += "\\r"
            case "\n": text += "\\n"
            case ":": text += "\\c"
            default: text.unicodeScalars.append(character)
            }
        }
        return text
    }

    /// Takes every complete frame (and heart-beat) off the front of `bytes`; returns how many bytes they took.
    private func frames(_ bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while true {
            while start < bytes.count && (bytes[start] == 10 || bytes[start] == 13) { start += 1 }  // heart-beats
            guard start < bytes.count, let frame = try STOMPFrame.parse(bytes, from: start, maximumBodySize: maximumMessageSize)
            else { return start }
            switch frame.command {
            case .message:
                act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[frame.body])))
            case .connected:
                if role == .publisher { becomeReady(act) }
            case .receipt:
                if frame.receiptID(in: bytes) == Self.receipt { becomeReady(act) }
            case .error:
                act(.serverError(frame.errorText(in: bytes)))
            case .other:
                break
            }
            start = frame.end
        }
    }

    private func becomeReady(_ act: (SessionAction) -> Void) {
        guard !isReady else { return }
        isReady = true
        act(.ready)
    }
}
