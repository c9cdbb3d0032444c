import BenchCore

/// Socket.IO v5 over Engine.IO v4, on WebSocket text messages, as a ``PubSubSession`` speaks it: the server's open
/// packet (`0{…}`) is answered with the namespace's connect (`40` or `40/NS,`); the namespace's acknowledgement
/// (`40…`) makes the connection ready, after which a subscriber sends its `--subscribe` event (`42…`); every server
/// ping (`2`) is answered with a pong (`3`) at once, so that the server's `pingTimeout` never passes; an event (`42…`)
/// is a message (its marker says which broadcast); a connect error (`44…`), the namespace's disconnect (`41`) or the
/// transport's close (`1`) is the server's error. Each answer is a message of its own (``replyBoundaries``).
extension PubSubSession {
    /// The namespace's prefix in packets: empty for `/`, else `/NS,`.
    static func namespacePrefix(_ namespace: String) -> String {
        namespace == "/" || namespace.isEmpty ? "" : namespace + ","
    }

    /// Takes one whole WebSocket message (an Engine.IO packet).
    func consumeSocketIO(
        _ message: UnsafeRawBufferPointer, _ settings: SocketIOSettings, _ onEvent: (PubSubEvent) -> Void
    ) {
        guard let type = message.first else { return }
        let prefix = Self.namespacePrefix(settings.namespace)
        switch type {
        case UInt8(ascii: "0"):  // open: connect to the namespace
            reply("40" + prefix)
        case UInt8(ascii: "2"):  // ping
            reply("3")
        case UInt8(ascii: "1"):
            onEvent(.error("the server closed the Engine.IO session"))
        case UInt8(ascii: "4") where message.count >= 2:
            switch message[1] {
            case UInt8(ascii: "0"):
                guard !isReady else { return }
                if isSubscriber, let subscribe = settings.subscribe { reply("42" + prefix + subscribe) }
                isReady = true
                onEvent(.ready)
            case UInt8(ascii: "1"):
                onEvent(.error("the server disconnected the namespace \(settings.namespace)"))
            case UInt8(ascii: "2"):
                onEvent(.message(message))
            case UInt8(ascii: "4"):
                onEvent(.error("connect_error " + String(decoding: message.prefix(200), as: UTF8.self)))
            default:
                break  // acknowledgements, binary events: not this run's
            }
        default:
            break  // pong, noop, upgrade: nothing to do
        }
    }

    /// One answer, sent as a message of its own.
    private func reply(_ text: String) {
        replies.append(contentsOf: text.utf8)
        replyBoundaries.append(replies.count)
    }
}
