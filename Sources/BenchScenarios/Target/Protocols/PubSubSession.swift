import BenchCore

/// What a publish/subscribe connection to a user's server found in what it received.
enum PubSubEvent {
    /// A published message, as the server relayed it (its marker tells which broadcast).
    case message(UnsafeRawBufferPointer)
    /// The server confirmed the subscription (Redis: `subscribe`; NATS: the `PONG` after `SUB`; MQTT: CONNACK, and
    /// SUBACK for a subscriber).
    case ready
    /// The server reported an error (`-ERR …`).
    case error(String)
}

/// One connection's side of the protocol a fan-out target speaks: what it sends to subscribe and to publish, and
/// the cutting of what it receives into messages. Redis (RESP 2: `SUBSCRIBE`, `PUBLISH`, `AUTH`), NATS (`CONNECT`,
/// `SUB`, `PUB`, `PING`/`PONG`, `MSG`) and MQTT 3.1.1 (``MQTTPacket``: CONNECT with a keepalive, SUBSCRIBE, PUBLISH at
/// QoS 0, 1 or 2 both ways, PINGREQ) are spoken here; a WebSocket or framed-TCP server gets the user's own
/// `--subscribe` text and `--publish` template. Received bytes are parsed in place; only an incomplete tail is carried
/// over, in one buffer per connection, reused: no allocation per message. What the protocol owes the server in answer
/// (NATS's `PONG`, MQTT's acknowledgements) is gathered in ``replies`` for the owner to send.
final class PubSubSession {
    enum Speech: Sendable {
        case redis(channel: String, password: String?)
        case nats(subject: String)
        case mqtt(MQTTSettings)
        /// Server-Sent Events: subscribers GET the stream, the publisher POSTs to `--publish-url`.
        case sse(SSESettings)
        /// Socket.IO v5 over Engine.IO v4 on WebSocket (``consumeSocketIO(_:_:_:)``).
        case socketIO(SocketIOSettings)
        /// ws:// or tcp:// with a framing: the user's `--subscribe` text and `--publish` template.
        case custom(framing: MessageFraming?, subscribe: String?)
    }

    /// An MQTT target's topic and QoS, the keepalive (seconds, from `--heartbeat`; 0: none), the credentials, and the
    /// start of each connection's client identifier (the run's own, so that runs and agents never share one).
    struct MQTTSettings: Sendable {
        var topic: String
        var qos: UInt8
        var keepAlive: UInt16
        var username: String?
        var password: String?
        var clientIDPrefix: String
    }

    /// An `sse://` target: the stream's path and Host field, and the publish URL's.
    struct SSESettings: Sendable {
        var streamPath: String
        var streamHost: String
        var publishPath: String
        var publishHost: String
    }

    /// A `socketio://` target: the namespace, and the event a subscriber sends once connected (`--subscribe`, a JSON
    /// array such as `["join","room1"]`).
    struct SocketIOSettings: Sendable {
        var namespace: String
        var subscribe: String?
    }

    let kind: Speech
    /// `sse://`: the HTTP and event-stream reader of this connection.
    let eventStream: HTTPEventStream?
    /// True once the server confirmed the subscription (at once where the protocol has no confirmation); set only here
    /// and in the protocols' extensions.
    var isReady: Bool
    private var buffer: [UInt8] = []
    let maximumMessageSize: Int
    private var decoder: MessageDecoder?
    let isSubscriber: Bool
    /// MQTT: the broker has not accepted the connection yet.
    var awaitingConnectAcknowledgement = true
    /// What the protocol owes the server in answer to what was consumed; the owner sends it and empties it.
    var replies: [UInt8] = []
    /// Where each answer in ``replies`` ends, when each must go as a message of its own (Socket.IO on WebSocket);
    /// empty: all of it is one.
    var replyBoundaries: [Int] = []

    init(_ kind: Speech, subscriber: Bool, maximumMessageSize: Int) {
        self.kind = kind
        self.isSubscriber = subscriber
        self.maximumMessageSize = maximumMessageSize
        switch kind {  // a statement, not an `if case` expression: that form crashed the -O ownership verifier once
        case .sse: eventStream = HTTPEventStream(role: subscriber ? .subscriber : .publisher, maximumMessageSize: maximumMessageSize)
        default: eventStream = nil
        }
        switch kind {
        case .redis: isReady = !subscriber
        case .nats, .mqtt, .socketIO: isReady = false
        case .sse: isReady = !subscriber  // HTTP has no greeting: a publisher may POST once connected
        case .custom(let framing, _):
            isReady = true
            decoder = framing.map { MessageDecoder(framing: $0, maximumMessageSize: maximumMessageSize) }
        }
        buffer.reserveCapacity(4096)
        replies.reserveCapacity(64)  // an acknowledgement or a PONG at a time: 20,000 sessions keep little
    }

    /// How often the protocol's keepalive goes while the connection is open (half MQTT's keepalive; see
    /// ``sendKeepAlive(on:)``); nil: it has none.
    var keepAliveInterval: UInt64? {
        guard case .mqtt(let settings) = kind, settings.keepAlive > 0 else { return nil }
        return UInt64(settings.keepAlive) * 500_000_000
    }

    /// What the connection sends once it is open: the subscription (a subscriber), or the protocol's greeting; `id` names
    /// the connection where the protocol wants a name of each (MQTT's client identifier).
    func opening(subscriber: Bool, id: String) -> [UInt8] {
        switch kind {
        case .mqtt(let settings):
            let connect = MQTTPacket.connect(
                clientID: settings.clientIDPrefix + id, keepAlive: settings.keepAlive, username: settings.username,
                password: settings.password)
            return connect + (subscriber ? MQTTPacket.subscribe(topic: settings.topic, qos: settings.qos) : [])
        case .socketIO:
            return []  // the server speaks first (its open packet)
        case .sse(let settings):
            guard subscriber else { return [] }
            return Array(("GET \(settings.streamPath) HTTP/1.1\r\nHost: \(settings.streamHost)\r\n"
                + "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").utf8)
        case .redis(let channel, let password):
            let auth = password.map { Self.resp(["AUTH", $0]) } ?? []
            return auth + (subscriber ? Self.resp(["SUBSCRIBE", channel]) : [])
        case .nats(let subject):
            let connect = Array("CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"bench\"}\r\n".utf8)
            return connect + (subscriber ? Array("SUB \(subject) 1\r\n".utf8) : []) + Array("PING\r\n".utf8)
        case .custom(let framing, let subscribe):
            guard subscriber, let subscribe else { return [] }
            return Self.framed(Array(subscribe.utf8), framing)
        }
    }

    /// The bytes to send for a published message with `payload`, around which the protocol puts its own (the payload
    /// is the expanded `--publish` template for ws, tcp and MQTT servers), the offset of `payload` in them, and of a
    /// packet identifier to rewrite per message (MQTT at QoS 1 or 2).
    func publication(of payload: [UInt8]) -> (bytes: [UInt8], payloadOffset: Int, packetIDOffset: Int?) {
        switch kind {
        case .mqtt(let settings):
            let (bytes, packetID, offset) = MQTTPacket.publish(topic: settings.topic, qos: settings.qos, payload: payload)
            return (bytes, offset, packetID)
        case .socketIO(let settings):
            let head = Array(("42" + Self.namespacePrefix(settings.namespace)).utf8)
            return (head + payload, head.count, nil)
        case .sse(let settings):
            let head = Array(("POST \(settings.publishPath) HTTP/1.1\r\nHost: \(settings.publishHost)\r\n"
                + "Content-Type: text/plain\r\nContent-Length: \(payload.count)\r\n\r\n").utf8)
            return (head + payload, head.count, nil)
        case .redis(let channel, _):
            let head = Array("*3\r\n$7\r\nPUBLISH\r\n$\(channel.utf8.count)\r\n\(channel)\r\n$\(payload.count)\r\n".utf8)
            return (head + payload + [13, 10], head.count, nil)
        case .nats(let subject):
            let head = Array("PUB \(subject) \(payload.count)\r\n".utf8)
            return (head + payload + [13, 10], head.count, nil)
        case .custom(let framing, _):
            return (Self.framed(payload, framing), framing?.headerSize ?? 0, nil)
        }
    }

    /// Takes bytes the transport unwrapped (`endsMessage`: a WebSocket message ended) and calls `onEvent` for what
    /// they complete; what is owed in answer goes to ``replies``.
    func consume(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ onEvent: (PubSubEvent) -> Void
    ) throws(MessageFramingError) {
        switch kind {
        case .custom where decoder != nil:
            try decoder!.decode(bytes) { body in
                onEvent(.message(UnsafeRawBufferPointer(body)))
                return true
            }
        case .custom:
            if endsMessage {
                buffer.withUnsafeBytes { onEvent(.message($0)) }
                buffer.removeAll(keepingCapacity: true)
            } else {
                try append(bytes)
            }
        case .socketIO(let settings):
            if endsMessage {
                buffer.withUnsafeBytes { consumeSocketIO($0, settings, onEvent) }
                buffer.removeAll(keepingCapacity: true)
            } else {
                try append(bytes)
            }
        case .sse:
            try eventStream!.consume(UnsafeRawBufferPointer(bytes)) { event in
                if case .ready = event { isReady = true }
                onEvent(event)
            }
        case .redis, .nats, .mqtt:
            // Parsed in place where nothing is carried over, which is the rule; only an incomplete tail is kept.
            // What is kept is bounded by the largest message: a tail longer than that is no message of this run.
            if buffer.isEmpty {
                let used = try consumeProtocol(UnsafeRawBufferPointer(bytes), onEvent)
                try keep(UnsafeRawBufferPointer(rebasing: bytes[used...]))
                return
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(bytes))
            let used = try buffer.withUnsafeBytes { carried in
                Result { () throws(MessageFramingError) in try consumeProtocol(carried, onEvent) }
            }.get()
            buffer.removeFirst(used)
            try checkTail()
        }
    }

    /// Takes every complete reply, operation or packet from the front of `bytes`: how many bytes they took.
    private func consumeProtocol(
        _ bytes: UnsafeRawBufferPointer, _ onEvent: (PubSubEvent) -> Void
    ) throws(MessageFramingError) -> Int {
        switch kind {
        case .redis: return try consumeRESP(bytes, onEvent)
        case .mqtt: return try consumeMQTT(bytes, onEvent)
        default: return try consumeNATS(bytes, onEvent)
        }
    }

    private func append(_ bytes: UnsafeMutableRawBufferPointer) throws(MessageFramingError) {
        try keep(UnsafeRawBufferPointer(bytes))
    }

    /// Adds to the incomplete message kept for the next read, as long as it stays within a message's size.
    private func keep(_ bytes: UnsafeRawBufferPointer) throws(MessageFramingError) {
        buffer.append(contentsOf: bytes)
        try checkTail()
    }

    private func checkTail() throws(MessageFramingError) {
        guard buffer.count <= maximumMessageSize + 4096 else {
            throw MessageFramingError(description: "a message of more than \(maximumMessageSize) bytes")
        }
    }

    // MARK: Helpers

    static func hasPrefix(_ prefix: StaticString, _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        guard end - start >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[start + index] != prefix.utf8Start[index] { return false }
        return true
    }

    /// The non-negative decimal number in `bytes[start..<end]`, or nil.
    static func decimal(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int? {
        guard end > start, end - start <= 18 else { return nil }
        var value = 0
        for byte in bytes[start..<end] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    static func crlf(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// A RESP array of bulk strings: a Redis command.
    static func resp(_ words: [String]) -> [UInt8] {
        var text = "*\(words.count)\r\n"
        for word in words { text += "$\(word.utf8.count)\r\n\(word)\r\n" }
        return Array(text.utf8)
    }

    private static func framed(_ body: [UInt8], _ framing: MessageFraming?) -> [UInt8] {
        guard let framing else { return body }
        var message = [UInt8](repeating: 0, count: framing.headerSize + body.count + framing.trailerSize)
        message.replaceSubrange(framing.headerSize..<framing.headerSize + body.count, with: body)
        message.withUnsafeMutableBytes { framing.frame($0) }
        return message
    }
}
