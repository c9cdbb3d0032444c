/// The opening handshake of RFC 6455 (section 4): the client's HTTP Upgrade request and the server's `101` answer.
public enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to the client's key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for the client's `Sec-WebSocket-Key`: Base64 of SHA-1 of key + GUID.
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.digest(Array((key + guid).utf8)))
    }

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes in Base64.
    public static func makeKey<Random: RandomNumberGenerator>(using random: inout Random) -> String {
        Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// The client's request for `path` on `host` (host:port as the Host field wants it), asking for `subprotocol`
    /// where one is given (MQTT's `mqtt`), with the user's `extra` fields last (`--header`).
    public static func request(
        host: String, path: String, key: String, subprotocol: String? = nil, extra: [HeaderField] = []
    ) -> HTTPHead {
        var fields: [(name: String, value: String)] = [
            ("Host", host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        if let subprotocol { fields.append(("Sec-WebSocket-Protocol", subprotocol)) }
        fields += extra.map { ($0.name, $0.value) }
        return HTTPHead(startLine: "GET \(path) HTTP/1.1", fields: fields)
    }

    /// A request the server refuses: the HTTP status to answer with and why, for the events.
    public struct Refusal: Error, Equatable, Sendable {
        public var status: Int
        public var reason: String

        public init(status: Int, reason: String) {
            self.status = status
            self.reason = reason
        }
    }

    /// Checks a client's request for `path`; returns the answer to send: `101` with the accept value.
    public static func answer(to request: HTTPHead, path: String) throws(Refusal) -> HTTPHead {
        let parts = request.startLine.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[2] == "HTTP/1.1" else {
            throw Refusal(status: 400, reason: "the handshake is not a GET over HTTP/1.1: \(request.startLine.prefix(80))")
        }
        guard parts[1] == path else {
            throw Refusal(status: 404, reason: "the handshake asks for \(parts[1].prefix(80)), not \(path)")
        }
        guard request.field("Upgrade", contains: "websocket"), request.field("Connection", contains: "upgrade") else {
            throw Refusal(status: 400, reason: "the handshake does not ask to upgrade to websocket")
        }
        guard request.value(of: "Sec-WebSocket-Version") == "13" else {
            throw Refusal(status: 426, reason: "the handshake asks for WebSocket version "
                + "\(request.value(of: "Sec-WebSocket-Version") ?? "none"), not 13")
        }
        guard let key = request.value(of: "Sec-WebSocket-Key"), Base64.decode(key)?.count == 16 else {
            throw Refusal(status: 400, reason: "the handshake's Sec-WebSocket-Key is not 16 bytes in Base64")
        }
        return HTTPHead(
            startLine: "HTTP/1.1 101 Switching Protocols",
            fields: [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", acceptValue(forKey: key))])
    }

    /// What a server says when it refuses a handshake.
    public static func refusal(_ refusal: Refusal) -> HTTPHead {
        let text = [400: "Bad Request", 404: "Not Found", 426: "Upgrade Required"][refusal.status] ?? "Error"
        var fields: [(name: String, value: String)] = [("Connection", "close"), ("Content-Length", "0")]
        if refusal.status == 426 { fields.append(("Sec-WebSocket-Version", "13")) }
        return HTTPHead(startLine: "HTTP/1.1 \(refusal.status) \(text)", fields: fields)
    }

    /// Checks the server's answer to a request made with `key` (asking for `subprotocol`, where one was); nil when it
    /// accepted, otherwise why not.
    public static func problem(withAnswer answer: HTTPHead, key: String, subprotocol: String? = nil) -> String? {
        let parts = answer.startLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", parts[1] == "101" else {
            return "the server answered the handshake with \(answer.startLine.prefix(80))"
        }
        guard answer.field("Upgrade", contains: "websocket"), answer.field("Connection", contains: "upgrade") else {
            return "the server's 101 does not upgrade to websocket"
        }
        guard answer.value(of: "Sec-WebSocket-Accept") == acceptValue(forKey: key) else {
            return "the server's Sec-WebSocket-Accept does not match the key sent"
        }
        if let subprotocol, answer.value(of: "Sec-WebSocket-Protocol")?.lowercased() != subprotocol.lowercased() {
            return "the server did not take the WebSocket subprotocol \(subprotocol) (it answered "
                + (answer.value(of: "Sec-WebSocket-Protocol").map { "\($0.prefix(40))" } ?? "none") + ")"
        }
        return nil
    }
}
