import BenchCore

/// Socket.IO v5 over Engine.IO v4, on WebSocket text messages, as one connection speaks it: the server speaks first
/// (its open packet, `0{…}`), answered with the namespace's connect (`40` or `40/NS,`); the namespace's acknowledgement
/// (`40…`) makes the connection ready, after which a subscriber sends its `--subscribe` event (`42…`); every server
/// ping (`2`) is answered with a pong (`3`) at once, so that the server's `pingTimeout` never passes; an event (`42…`)
/// is a delivery (its marker says which broadcast); a connect error (`44…`), the namespace's disconnect (`41`) or the
/// transport's close (`1`) is the server's error. Each answer is a message of its own.
public final class SocketIOSession: SessionStateMachine {
    private let settings: ServerProtocol.SocketIOSettings
    private let role: SessionRole
    private var message: CarriedBytes
    /// The namespace's prefix in packets: empty for `/`, else `/NS,`.
    private let prefix: String
    public private(set) var isReady = false
    public var outbox = SessionOutbox()

    init(_ settings: ServerProtocol.SocketIOSettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role) = (settings, role)
        message = CarriedBytes(maximumMessageSize: maximumMessageSize)
        prefix = settings.namespace == "/" || settings.namespace.isEmpty ? "" : settings.namespace + ","
    }

    public func connected(name: String) {}  // the server speaks first (its open packet)

    /// Collects each WebSocket message whole, then reads it as one Engine.IO packet.
    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try message.collect(UnsafeRawBufferPointer(bytes), endsMessage: endsMessage) { packet($0, act) }
    }

    public func publication(of payload: [UInt8]) -> Publication {
        let head = Array(("42" + prefix).utf8)
        return Publication(bytes: head + payload, payloadOffset: head.count)
    }

    private func packet(_ message: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) {
        guard let type = message.first else { return }
        switch type {
        case UInt8(ascii: "0"):  // open: connect to the namespace
            outbox.append(message: "40" + prefix)
        case UInt8(ascii: "2"):  // ping
            outbox.append(message: "3")
        case UInt8(ascii: "1"):
            act(.serverError("the server closed the Engine.IO session"))
        case UInt8(ascii: "4") where message.count >= 2:
            switch message[1] {
            case UInt8(ascii: "0"):
                guard !isReady else { return }
                if role == .subscriber, let subscribe = settings.subscribe { outbox.append(message: "42" + prefix + subscribe) }
                isReady = true
                act(.ready)
            case UInt8(ascii: "1"):
                act(.serverError("the server disconnected the namespace \(settings.namespace)"))
            case UInt8(ascii: "2"):
                act(.delivered(message))
            case UInt8(ascii: "4"):
                act(.serverError("connect_error " + String(decoding: message.prefix(200), as: UTF8.self)))
            default:
                break  // acknowledgements, binary events: not this run's
            }
        default:
            break  // pong, noop, upgrade: nothing to do
        }
    }
}
