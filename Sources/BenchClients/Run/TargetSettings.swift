import BenchCore
import BenchProtocols

/// A user's server to measure (`--target`) and everything that says how to speak to it: the settings only a target
/// run has, held by its role (``RunRole/target(_:agentToken:)``) so that no other run carries them.
public struct TargetSettings: Sendable, Equatable {
    /// Where the server is and what it speaks.
    public var url: TargetURL
    /// How messages are cut out of the stream on `tcp://` targets (`--framing`).
    public var framing: MessageFraming = .length32
    /// What each subscriber sends first (`--subscribe`); nil: what the protocol says (a SUBSCRIBE, a `sub`).
    public var subscribeText: String?
    /// The message a publisher (fanout) or each client (roundtrip) sends (`--publish`).
    public var publishTemplate: PublishTemplate = .bare
    /// The WebSocket path where the URL's path names something else (`--ws-path`): a socketio:// target's Engine.IO
    /// path (`?EIO=4&transport=websocket` added unless it has a query), an mqtt+ws://, nats+ws:// or stomp+ws://
    /// target's; nil: the scheme's (``TargetURL/Scheme/defaultWebSocketPath``: `/socket.io/`, `/mqtt`, `/`, `/ws`).
    public var webSocketPath: String?

    /// The WebSocket path asked for where the URL's path names something else: `--ws-path`, or the scheme's; nil
    /// where the URL's path is the WebSocket's (ws://) or there is no WebSocket.
    public var webSocketPathInUse: String? { webSocketPath ?? url.scheme.defaultWebSocketPath }
    /// An MQTT target's quality of service, both ways (`--qos`: 0, 1 or 2).
    public var qos: UInt8 = 0
    /// A `grpc://` target's fan-out: the unary method its publisher calls with each broadcast (`--publish-method`, as
    /// `/package.Service/Method`).
    public var publishMethod: String?
    /// A fan-out's subscribers one connection carries, each on a stream of its own (`--streams-per-connection`, HTTP/2's
    /// gRPC): 1, one connection each, elsewhere.
    public var streamsPerConnection = 1
    /// Its connections' HTTP/1.1 handshake goes as a stream of an HTTP/2 connection (`--http2`): a WebSocket's by
    /// extended CONNECT (RFC 8441), an event stream's GET (``TargetURL/Scheme/reachesOverHTTP2``).
    public var overHTTP2 = false
    /// Its server answers a ping: its protocol's (``ProtocolRecord/hasPing``), or HTTP/2's where the connections are
    /// HTTP/2's.
    public var hasPing: Bool { url.scheme.record.hasPing || overHTTP2 }
    /// An `sse://` target: where its publisher POSTs each broadcast (`--publish-url`, an `http://` URL).
    public var publishURL: TargetURL?
    /// Fields added to every HTTP handshake of the clients and the publisher (`--header`: ws, wss, socketio, sse and
    /// its POSTs). Secrets: reports name them, never give their values.
    public var headers: [HeaderField] = []
    /// A ws:// target's protocol described in lines (`--protocol`: a built-in's name or a file), `{channel}` filled in;
    /// nil: the user's own text (`--subscribe`, `--publish`).
    public var protocolDescription: ProtocolDescription?
    /// Who each client is (`--clients-file`): its variables in the headers, the URL's path, `--subscribe`, and the
    /// credentials of MQTT and STOMP. Secrets, as the headers' values.
    public var identities: ClientIdentities?

    /// The server at `url`, spoken to as its scheme says by default.
    public init(_ url: TargetURL) {
        self.url = url
    }
}

extension TargetSettings: CustomStringConvertible {
    /// The server as people read it: its URL, credentials hidden.
    public var description: String { url.description }
}
