import BenchCore

/// How bench frames travel on a connection: a stream layer (plain TCP or TLS) below a framing layer (bench frames
/// as they are, or each one in a WebSocket message).
///
/// ``Connection`` is generic over its transport, so each run's hot path is compiled for its own layers: no
/// existential, no allocation per message. The four transports of `--transport` are ``TCP``, ``WebSocket``,
/// ``TLS`` and ``SecureWebSocket``.
public protocol Transport: Sendable {
    associatedtype Stream: StreamLayer
    associatedtype Framing: FramingLayer
}

/// Plain TCP: bench frames straight on the socket.
public enum TCP: Transport {
    public typealias Stream = PlainStream
    public typealias Framing = BenchFraming
}

/// RFC 6455 WebSocket over TCP: one bench frame per binary message.
public enum WebSocket: Transport {
    public typealias Stream = PlainStream
    public typealias Framing = WebSocketFraming
}

/// Bench frames inside TLS.
public enum TLS: Transport {
    public typealias Stream = TLSStream
    public typealias Framing = BenchFraming
}

/// WebSocket inside TLS (`wss://`).
public enum SecureWebSocket: Transport {
    public typealias Stream = TLSStream
    public typealias Framing = WebSocketFraming
}

/// Which end of a connection this side is.
public enum TransportRole: Sendable {
    /// Accepted it: answers handshakes, expects masked WebSocket frames.
    case server
    /// Opened it: starts handshakes, masks its WebSocket frames.
    case client
}

/// What every connection of a run needs to set up its transport.
public struct TransportSettings: @unchecked Sendable {
    /// The largest bench frame either side sends or accepts.
    public var maximumFrameSize: Int
    /// The WebSocket path: what clients ask for and the server accepts.
    public var webSocketPath: String
    /// The `Host` field of clients' WebSocket handshakes (host:port).
    public var webSocketHost: String
    /// TLS: this side's context (a server's certificate, or a client's pin); nil on plain transports.
    public var tls: TLSContext?
    /// TLS clients: the server's name to send (SNI), when it is a name rather than an address.
    public var tlsServerName: String?
    /// TLS clients that verify: the name (or address) the server's certificate must carry, the one they connect to.
    public var tlsPeerName: String?
    /// TLS clients: the protocol offered by ALPN (RFC 7301), which the server must choose (`h2` for HTTP/2); nil: none.
    public var tlsALPN: String?

    /// TLS clients connect to `host` (a name or an address): its certificate must carry it, and a name is sent (SNI).
    public mutating func expectServer(named host: String) {
        tlsPeerName = host
        if host.first.map({ !$0.isNumber }) == true && !host.contains(":") { tlsServerName = host }
    }
    /// WebSocket messages are text (a user's server that speaks JSON): sent as text frames, and text accepted.
    public var webSocketText = false
    /// The WebSocket subprotocol clients ask for and the server must take (`mqtt` for MQTT over WebSocket); nil: none.
    public var webSocketSubprotocol: String?
    /// The WebSocket is opened by the layer that carries it (HTTP/2's extended CONNECT, RFC 8441): no Upgrade of its
    /// own, its messages flow at once.
    public var webSocketOpenedBelow = false
    /// Fields a client adds to its WebSocket handshake (`--header`: a token, a cookie).
    public var handshakeFields: [HeaderField] = []
    /// A server's connections whose first byte is 0 carry bench frames as they are, past the transport's layers:
    /// the control connections of agents (``Connection/isPlain``), which learn the transport only from their welcome.
    /// A TLS record (0x16) or an HTTP request ('G') never starts so.
    public var acceptsPlainPeers = false

    public init(maximumFrameSize: Int, webSocketPath: String = "/", webSocketHost: String = "", tls: TLSContext? = nil) {
        self.maximumFrameSize = maximumFrameSize
        self.webSocketPath = webSocketPath
        self.webSocketHost = webSocketHost
        self.tls = tls
    }
}

/// Where a layer's bytes for the wire go: a head and a body, written in one call (or queued) by the connection.
/// False when the connection failed; the connection keeps the error.
public typealias WireWriter = (_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool

/// The stream below the frames: plain bytes, or TLS records.
public protocol StreamLayer {
    init(role: TransportRole, settings: TransportSettings) throws(ConnectionError)
    /// True once the stream carries application bytes (at once for plain TCP, after the handshake for TLS).
    var isEstablished: Bool { get }
    /// Called once the socket is connected: a TLS client sends its hello.
    mutating func start(_ write: WireWriter) throws(ConnectionError)
    /// Takes `buffer[0..<count]`, just read from the socket; then ``nextPlaintext(in:count:write:)`` hands out what
    /// it carried.
    mutating func nextPlaintext(
        in buffer: UnsafeMutableRawBufferPointer, count: inout Int, write: WireWriter
    ) throws(ConnectionError) -> UnsafeMutableRawBufferPointer?
    /// Sends `head` then `body` as application bytes.
    mutating func send(head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, write: WireWriter) -> Bool
    /// What an orderly close sends (TLS's close_notify).
    mutating func close(_ write: WireWriter)
}

/// The frames inside the stream: bench frames as they are, or WebSocket messages holding them.
public protocol FramingLayer {
    init(role: TransportRole, settings: TransportSettings) throws(ConnectionError)
    /// True once frames can flow (at once for bench framing, after the HTTP Upgrade for WebSocket).
    var isEstablished: Bool { get }
    /// WebSocket pings received (each is answered with a pong).
    var pingsReceived: Int { get }
    /// A client whose handshake was refused and that waits for the refusal's body: why (the peer may close first).
    var pendingRefusal: String? { get }
    /// Called once the stream is established: a WebSocket client sends its Upgrade request.
    mutating func start(_ reply: (UnsafeRawBufferPointer) -> Bool) throws(ConnectionError)
    /// The next piece of bench-frame bytes in `bytes` from `offset` on (which it moves past what it used), or nil when
    /// `bytes` is used up. Handshake bytes and the layer's own frames are dealt with on the way, their answers sent
    /// through `reply` (handshake, pong, close). Pull-style, so that the caller may send or close between two pieces.
    mutating func unwrap(
        _ bytes: UnsafeMutableRawBufferPointer, offset: inout Int, reply: (UnsafeRawBufferPointer) -> Bool
    ) throws(ConnectionError) -> FramingOutput?
    /// Writes the head that goes before the bench frame `body` into `head` (at least
    /// ``WebSocketFrameHeader/maximumSize`` bytes) and returns its size; may change `body` (a client masks it).
    mutating func head(for body: UnsafeMutableRawBufferPointer, into head: UnsafeMutableRawBufferPointer) -> Int
    /// Writes a heartbeat of the layer's own (a WebSocket ping) into `buffer` and returns its size; 0 when the layer
    /// has none (bench framing sends heartbeat frames).
    mutating func ping(into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Writes what an orderly close with `code` sends into `buffer` and returns its size; 0 for nothing.
    mutating func close(code: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// False when a message of `count` bytes cannot go now (the layer's flow-control window is closed, or it is
    /// larger than the layer carries): the connection drops it whole, as a full queue does. True by default.
    mutating func admits(_ count: Int) -> Bool
    /// Why ``admits(_:)`` would not take a message of `count` bytes now, for the event that says it was not sent;
    /// nil when it would (or the layer never refuses one).
    func refusal(of count: Int) -> String?
    /// What the layer sends of its own through `reply` is owed to the peer (HTTP/2's acknowledgements and window
    /// updates): it goes up to the queue's hard cap, and the connection fails beyond it, rather than being left out as
    /// a WebSocket pong may be while the queue is full.
    static var owesItsReplies: Bool { get }
    /// The room ``head(for:into:)``, ``ping(into:)`` and ``close(code:into:)`` write into: each connection sets it
    /// aside once (0 for a layer that writes nothing: no memory at all per connection).
    static var scratchSize: Int { get }
}

/// What a framing layer unwrapped.
public enum FramingOutput {
    /// Bench-frame bytes, in place; the receiver may change them.
    case data(UnsafeMutableRawBufferPointer)
    /// The end of a message (WebSocket): a bench frame must not go on past it.
    case messageEnd
}

/// Why a connection ended or could not go on, worded for the events.
public enum ConnectionError: Error, CustomStringConvertible {
    case system(SystemError)
    case webSocket(WebSocketError)
    case handshake(String)
    case tls(String)
    /// The peer closed in order (a WebSocket close frame, a TLS close_notify), as said here.
    case closedByPeer(String)
    /// The layer that carries the frames failed after its handshake (an HTTP/2 stream reset or ended), as said here.
    case carrier(String)

    public var description: String {
        switch self {
        case .system(let error): "\(error)"
        case .webSocket(let error): "\(error)"
        case .handshake(let reason): "handshake failed: \(reason)"
        case .tls(let reason): "TLS: \(reason)"
        case .closedByPeer(let how): "closed by peer (\(how))"
        case .carrier(let reason): reason
        }
    }

    /// The WebSocket status code to close with for this error.
    public var closeCode: UInt16 {
        switch self {
        case .webSocket(let error): error.code
        default: WebSocketCloseCode.normal
        }
    }
}

extension FramingLayer {
    public var pendingRefusal: String? { nil }
    @inline(__always)
    public mutating func admits(_ count: Int) -> Bool { true }
    public func refusal(of count: Int) -> String? { nil }
    public static var owesItsReplies: Bool { false }
}
