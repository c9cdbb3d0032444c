import BenchCore

/// What a publish/subscribe connection to a user's server found in what it received.
enum PubSubEvent {
    /// A published message, as the server relayed it (its marker tells which broadcast).
    case message(UnsafeRawBufferPointer)
    /// The server confirmed the subscription (Redis: `subscribe`; NATS: the `PONG` after `SUB`).
    case ready
    /// The server reported an error (`-ERR …`).
    case error(String)
}

/// One connection's side of the protocol a fan-out target speaks: what it sends to subscribe and to publish, and
/// the cutting of what it receives into messages. Redis (RESP 2: `SUBSCRIBE`, `PUBLISH`, `AUTH`) and NATS (`CONNECT`,
/// `SUB`, `PUB`, `PING`/`PONG`, `MSG`) are spoken here; a WebSocket or framed-TCP server gets the user's own
/// `--subscribe` text and `--publish` template. Received bytes are kept in one buffer per connection, reused: no
/// allocation per message once it has grown to the largest one.
final class PubSubSession {
    enum Speech {
        case redis(channel: String, password: String?)
        case nats(subject: String)
        /// ws:// or tcp:// with a framing: the user's `--subscribe` text and `--publish` template.
        case custom(framing: MessageFraming?, subscribe: String?)
    }

    let kind: Speech
    /// True once the server confirmed the subscription (at once where the protocol has no confirmation).
    private(set) var isReady: Bool
    private var buffer: [UInt8] = []
    private let maximumMessageSize: Int
    private var decoder: MessageDecoder?

    init(_ kind: Speech, subscriber: Bool, maximumMessageSize: Int) {
        self.kind = kind
        self.maximumMessageSize = maximumMessageSize
        switch kind {
        case .redis: isReady = !subscriber
        case .nats: isReady = false
        case .custom(let framing, _):
            isReady = true
            decoder = framing.map { MessageDecoder(framing: $0, maximumMessageSize: maximumMessageSize) }
        }
        buffer.reserveCapacity(4096)
    }

    /// What the connection sends once it is open: the subscription (a subscriber), or the protocol's greeting.
    func opening(subscriber: Bool) -> [UInt8] {
        switch kind {
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
    /// is the expanded `--publish` template for ws and tcp servers), and the offset of `payload` in them.
    func publication(of payload: [UInt8]) -> (bytes: [UInt8], payloadOffset: Int) {
        switch kind {
        case .redis(let channel, _):
            let head = Array("*3\r\n$7\r\nPUBLISH\r\n$\(channel.utf8.count)\r\n\(channel)\r\n$\(payload.count)\r\n".utf8)
            return (head + payload + [13, 10], head.count)
        case .nats(let subject):
            let head = Array("PUB \(subject) \(payload.count)\r\n".utf8)
            return (head + payload + [13, 10], head.count)
        case .custom(let framing, _):
            return (Self.framed(payload, framing), framing?.headerSize ?? 0)
        }
    }

    /// Takes bytes the transport unwrapped (`endsMessage`: a WebSocket message ended) and calls `onEvent` for what
    /// they complete; returns the bytes to answer with (NATS's `PONG` to a `PING`), if any.
    func consume(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ onEvent: (PubSubEvent) -> Void
    ) throws(MessageFramingError) -> [UInt8]? {
        switch kind {
        case .custom where decoder != nil:
            try decoder!.decode(bytes) { body in
                onEvent(.message(UnsafeRawBufferPointer(body)))
                return true
            }
            return nil
        case .custom:
            if endsMessage {
                buffer.withUnsafeBytes { onEvent(.message($0)) }
                buffer.removeAll(keepingCapacity: true)
            } else {
                try append(bytes)
            }
            return nil
        case .redis:
            try append(bytes)
            try consumeRESP(onEvent)
            return nil
        case .nats:
            try append(bytes)
            return try consumeNATS(onEvent)
        }
    }

    private func append(_ bytes: UnsafeMutableRawBufferPointer) throws(MessageFramingError) {
        guard buffer.count + bytes.count <= maximumMessageSize + 4096 else {
            throw MessageFramingError(description: "a message of more than \(maximumMessageSize) bytes")
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(bytes))
    }

    // MARK: Redis (RESP 2)

    /// Takes every complete reply off the front of the buffer.
    private func consumeRESP(_ onEvent: (PubSubEvent) -> Void) throws(MessageFramingError) {
        var start = 0
        defer { buffer.removeFirst(start) }
        while let (end, parts) = try RESPReply.parse(buffer, from: start) {
            switch parts {
            case .error(let text): onEvent(.error(text))
            case .push(let kind, let payload):
                if kind == "subscribe" {
                    isReady = true
                    onEvent(.ready)
                } else if kind == "message", let payload {
                    buffer.withUnsafeBytes { onEvent(.message(UnsafeRawBufferPointer(rebasing: $0[payload]))) }
                }
            case .other: break
            }
            start = end
        }
    }

    // MARK: NATS

    /// Takes every complete operation off the front of the buffer; returns the `PONG`s owed.
    private func consumeNATS(_ onEvent: (PubSubEvent) -> Void) throws(MessageFramingError) -> [UInt8]? {
        var start = 0
        var answer: [UInt8]?
        defer { buffer.removeFirst(start) }
        while let lineEnd = Self.crlf(in: buffer, from: start) {
            let line = String(decoding: buffer[start..<lineEnd], as: UTF8.self)
            if line.hasPrefix("MSG ") {
                guard let size = line.split(separator: " ").last.flatMap({ Int($0) }), size >= 0,
                    size <= maximumMessageSize
                else { throw MessageFramingError(description: "a NATS MSG line without a valid size: \(line.prefix(80))") }
                let payloadStart = lineEnd + 2
                guard buffer.count >= payloadStart + size + 2 else { return answer }  // the payload is still coming
                buffer.withUnsafeBytes { onEvent(.message(UnsafeRawBufferPointer(rebasing: $0[payloadStart..<payloadStart + size]))) }
                start = payloadStart + size + 2
                continue
            }
            if line == "PING" {
                answer = (answer ?? []) + Array("PONG\r\n".utf8)
            } else if line == "PONG" {
                if !isReady {
                    isReady = true
                    onEvent(.ready)
                }
            } else if line.hasPrefix("-ERR") {
                onEvent(.error(String(line.prefix(200))))
            }
            start = lineEnd + 2
        }
        if buffer.count - start > 64 << 10 {
            throw MessageFramingError(description: "a NATS protocol line longer than 64 KiB")
        }
        return answer
    }

    // MARK: Helpers

    static func crlf(in bytes: [UInt8], from start: Int) -> Int? {
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
        message.withUnsafeMutableBytes { buffer in
            UnsafeMutableRawBufferPointer(rebasing: buffer[framing.headerSize..<framing.headerSize + body.count])
                .copyMemory(from: UnsafeRawBufferPointer(start: body, count: body.count))
            framing.frame(buffer)
        }
        return message
    }
}

/// One RESP 2 reply as far as a subscriber needs it.
enum RESPReply {
    case error(String)
    /// An array whose first element is `kind` (`message`, `subscribe`…) and whose third, for `message`, is the payload.
    case push(kind: String, payload: Range<Int>?)
    case other

    /// The reply starting at `start` and where it ends, or nil while it is incomplete.
    static func parse(_ bytes: [UInt8], from start: Int) throws(MessageFramingError) -> (end: Int, reply: RESPReply)? {
        guard start < bytes.count, let lineEnd = PubSubSession.crlf(in: bytes, from: start) else { return nil }
        let line = String(decoding: bytes[start + 1..<lineEnd], as: UTF8.self)
        switch bytes[start] {
        case UInt8(ascii: "-"):
            return (lineEnd + 2, .error(String(line.prefix(200))))
        case UInt8(ascii: "+"), UInt8(ascii: ":"):
            return (lineEnd + 2, .other)
        case UInt8(ascii: "$"):
            guard let size = Int(line) else { throw MessageFramingError(description: "a RESP bulk length '\(line.prefix(20))'") }
            if size < 0 { return (lineEnd + 2, .other) }
            guard bytes.count >= lineEnd + 2 + size + 2 else { return nil }
            return (lineEnd + 2 + size + 2, .other)
        case UInt8(ascii: "*"):
            guard let count = Int(line), count <= 16 else {
                throw MessageFramingError(description: "a RESP array of '\(line.prefix(20))' elements")
            }
            var position = lineEnd + 2
            var elements: [Range<Int>] = []
            for _ in 0..<max(count, 0) {
                guard position < bytes.count, let end = PubSubSession.crlf(in: bytes, from: position) else { return nil }
                if bytes[position] == UInt8(ascii: "$"), let size = Int(String(decoding: bytes[position + 1..<end], as: UTF8.self)),
                    size >= 0
                {
                    guard bytes.count >= end + 2 + size + 2 else { return nil }
                    elements.append(end + 2..<end + 2 + size)
                    position = end + 2 + size + 2
                } else {
                    elements.append(position + 1..<end)
                    position = end + 2
                }
            }
            let kind = elements.first.map { String(decoding: bytes[$0], as: UTF8.self) } ?? ""
            return (position, .push(kind: kind, payload: elements.count == 3 ? elements[2] : nil))
        default:
            throw MessageFramingError(description: "not a RESP reply (starts with byte \(bytes[start]))")
        }
    }
}
