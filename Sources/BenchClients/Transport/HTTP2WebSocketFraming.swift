import BenchCore
import BenchNet
import BenchProtocols

/// A WebSocket over HTTP/2 (RFC 8441), ws:// over cleartext HTTP/2 (prior knowledge): a client's only (`--http2`).
public enum WebSocketOverHTTP2: Transport {
    public typealias Stream = PlainStream
    public typealias Framing = HTTP2WebSocketFraming
}

/// A WebSocket over HTTP/2 over TLS (wss://, HTTP/2 chosen by ALPN `h2`).
public enum SecureWebSocketOverHTTP2: Transport {
    public typealias Stream = TLSStream
    public typealias Framing = HTTP2WebSocketFraming
}

/// RFC 6455's frames (``WebSocketFraming``) in the DATA of one HTTP/2 stream, opened by extended CONNECT
/// (``HTTP2Tunnel``, `:protocol websocket`) in place of the HTTP/1.1 Upgrade: its own connection per client, as a
/// browser's WebSocket behind an HTTP/2 front (HAProxy, Envoy, nghttpx) goes. The stream's body is unwrapped in place;
/// each message sent is one DATA frame within the server's flow-control windows (a message they cannot take now is
/// dropped, as a full queue drops it: the server does not read), and at most one frame's payload (16 KiB) long.
public struct HTTP2WebSocketFraming: FramingLayer {
    private var webSocket: WebSocketFraming
    private let tunnel: HTTP2Tunnel
    /// What the HTTP/2 connection owes the server, sent on the way.
    private var owed = SessionOutbox(capacity: 256)
    /// The body piece being unwrapped into WebSocket frames, and how far.
    private var piece: UnsafeMutableRawBufferPointer?
    private var pieceOffset = 0

    public init(role: TransportRole, settings: TransportSettings) throws(ConnectionError) {
        guard role == .client else { throw .handshake("a WebSocket over HTTP/2 is a client's only") }
        var below = settings
        below.webSocketOpenedBelow = true
        webSocket = WebSocketFraming(role: role, settings: below)
        tunnel = HTTP2Tunnel(
            .webSocket(subprotocol: settings.webSocketSubprotocol), path: settings.webSocketPath,
            authority: settings.webSocketHost, usesTLS: settings.tls != nil, fields: settings.handshakeFields,
            maximumMessageSize: settings.maximumFrameSize)
    }

    public var isEstablished: Bool { tunnel.isOpen }
    public var pingsReceived: Int { webSocket.pingsReceived }
    public var pendingRefusal: String? { tunnel.pendingRefusal }

    public mutating func start(_ reply: (UnsafeRawBufferPointer) -> Bool) throws(ConnectionError) {
        tunnel.start(outbox: &owed)
        try send(owed: reply)
    }

    @inline(__always)
    public mutating func unwrap(
        _ bytes: UnsafeMutableRawBufferPointer, offset: inout Int, reply: (UnsafeRawBufferPointer) -> Bool
    ) throws(ConnectionError) -> FramingOutput? {
        if offset == 0 { piece = nil }  // a new read: a piece of an earlier one, left when its reader stopped, is gone
        let tunnel = self.tunnel
        while true {
            if let current = piece {
                if let output = try webSocket.unwrap(current, offset: &pieceOffset, reply: { tunnel.wrapping($0, reply) }) {
                    return output
                }
                piece = nil
            }
            let body: UnsafeMutableRawBufferPointer?
            do throws(MessageFramingError) {
                body = try tunnel.next(bytes, offset: &offset, outbox: &owed)
            } catch {
                throw tunnel.isOpen ? .carrier(error.description) : .handshake(error.description)
            }
            try send(owed: reply)
            guard let body else { return nil }
            (piece, pieceOffset) = (body, 0)
        }
    }

    /// What the HTTP/2 connection owes the server, in one write.
    private mutating func send(owed reply: (UnsafeRawBufferPointer) -> Bool) throws(ConnectionError) {
        var sent = true
        owed.drain { sent = sent && reply(UnsafeRawBufferPointer($0)) }
        guard !sent else { return }
        let reason = "the server takes no more bytes (twice --max-queue waits): what HTTP/2 owes it could not be sent"
        throw tunnel.isOpen ? .carrier(reason) : .handshake(reason)
    }

    public static var owesItsReplies: Bool { true }

    public func refusal(of count: Int) -> String? { tunnel.refusal(of: count + WebSocketFrameHeader.maximumSize) }

    @inline(__always)
    public mutating func admits(_ count: Int) -> Bool {
        let most = count + WebSocketFrameHeader.maximumSize
        return most <= HTTP2Tunnel.maximumData && tunnel.takes(most)
    }

    @inline(__always)
    public mutating func head(for body: UnsafeMutableRawBufferPointer, into head: UnsafeMutableRawBufferPointer) -> Int {
        let size = webSocket.head(for: body, into: UnsafeMutableRawBufferPointer(rebasing: head[HTTP2Tunnel.headSize...]))
        tunnel.untakes(WebSocketFrameHeader.maximumSize - size)  // ``admits(_:)`` took the most a head may be
        HTTP2Tunnel.dataHead(for: size + body.count, into: head)
        return HTTP2Tunnel.headSize + size
    }

    public mutating func ping(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        wrapped(webSocket.ping(into: UnsafeMutableRawBufferPointer(rebasing: buffer[HTTP2Tunnel.headSize...])), in: buffer)
    }

    /// The WebSocket's close frame, ending this side of the stream (RFC 8441 §5).
    public mutating func close(code: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        wrapped(
            webSocket.close(code: code, into: UnsafeMutableRawBufferPointer(rebasing: buffer[HTTP2Tunnel.headSize...])), in: buffer,
            endStream: true)
    }

    /// The `size` bytes the WebSocket wrote after room for a DATA header in `buffer`, as one DATA frame; 0 for none, or
    /// where the server's windows are closed.
    private func wrapped(_ size: Int, in buffer: UnsafeMutableRawBufferPointer, endStream: Bool = false) -> Int {
        guard size > 0, tunnel.takes(size) else { return 0 }
        HTTP2Tunnel.dataHead(for: size, endStream: endStream, into: buffer)
        return HTTP2Tunnel.headSize + size
    }

    public static var scratchSize: Int { WebSocketFraming.scratchSize + HTTP2Tunnel.headSize }
}
