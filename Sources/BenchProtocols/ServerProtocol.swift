import BenchCore

/// What a user's server speaks, with the settings each connection's state machine needs: Redis (RESP 2), NATS,
/// MQTT 3.1.1, Server-Sent Events, Socket.IO v5 on Engine.IO v4, STOMP 1.2, a protocol described in lines
/// (`--protocol`), or the user's own text (`--subscribe`, `--publish`) on ws:// or framed tcp://. Which stream layers
/// carry it (tcp, tls, WebSocket) is the connection's business, not the protocol's.
public enum ServerProtocol: Sendable {
    case redis(channel: String, password: String?)
    case nats(subject: String)
    case mqtt(MQTTSettings)
    /// Server-Sent Events: subscribers GET the stream, the publisher POSTs to `--publish-url`.
    case sse(SSESettings)
    case socketIO(SocketIOSettings)
    /// ws:// or tcp:// with a framing: the user's `--subscribe` text and `--publish` template.
    case custom(framing: MessageFraming?, subscribe: String?)
    /// STOMP 1.2 (stomp://, stomp+ws://): a destination to SUBSCRIBE to and SEND to.
    case stomp(STOMPSettings)
    /// ws:// with `--protocol`: a protocol described in lines (Phoenix Channels, ActionCable, the user's own).
    case described(ProtocolDescription)
    /// gRPC over HTTP/2 (grpc://): a server-streaming method, a unary one to publish, a bidirectional one for round trips.
    case grpc(GRPCSettings)

    /// A STOMP target's destination (`/topic/prices`), the CONNECT's `host` (the broker's virtual host: RabbitMQ's
    /// default `/`), its `login` and `passcode`, and the heart-beat it promises to send (milliseconds, from
    /// `--heartbeat`; 0: none). It asks for none from the broker: a subscriber that only reads is not timed out.
    public struct STOMPSettings: Sendable {
        public var destination: String
        public var host: String
        public var login: String?
        public var passcode: String?
        public var heartBeatMilliseconds: Int

        public init(destination: String, host: String = "/", login: String?, passcode: String?, heartBeatMilliseconds: Int) {
            (self.destination, self.host, self.login, self.passcode) = (destination, host, login, passcode)
            self.heartBeatMilliseconds = heartBeatMilliseconds
        }
    }

    /// An MQTT target's topic and QoS, the keepalive (seconds, from `--heartbeat`; 0: none), the credentials, and the
    /// start of each connection's client identifier (the run's own, so that runs and agents never share one).
    public struct MQTTSettings: Sendable {
        public var topic: String
        public var qos: UInt8
        public var keepAlive: UInt16
        public var username: String?
        public var password: String?
        public var clientIDPrefix: String

        public init(topic: String, qos: UInt8, keepAlive: UInt16, username: String?, password: String?, clientIDPrefix: String) {
            (self.topic, self.qos, self.keepAlive) = (topic, qos, keepAlive)
            (self.username, self.password, self.clientIDPrefix) = (username, password, clientIDPrefix)
        }
    }

    /// An `sse://` target: the stream's path and Host field, and the publish URL's.
    public struct SSESettings: Sendable {
        public var streamPath: String
        public var streamHost: String
        public var publishPath: String
        public var publishHost: String
        /// The user's fields (`--header`), on the stream's GET and on every POST.
        public var fields: [HeaderField]
        /// Each stream is a request on an HTTP/2 connection of its own (`--http2`), over TLS where `usesTLS`; the
        /// publisher's POSTs stay HTTP/1.1.
        public var overHTTP2: Bool
        public var usesTLS: Bool

        public init(
            streamPath: String, streamHost: String, publishPath: String, publishHost: String, fields: [HeaderField] = [],
            overHTTP2: Bool = false, usesTLS: Bool = false
        ) {
            (self.streamPath, self.streamHost, self.publishPath, self.publishHost) = (streamPath, streamHost, publishPath, publishHost)
            (self.fields, self.overHTTP2, self.usesTLS) = (fields, overHTTP2, usesTLS)
        }
    }

    /// A `socketio://` target: the namespace, and the event a subscriber sends once connected (`--subscribe`, a JSON
    /// array such as `["join","room1"]`).
    public struct SocketIOSettings: Sendable {
        public var namespace: String
        public var subscribe: String?

        public init(namespace: String, subscribe: String?) {
            (self.namespace, self.subscribe) = (namespace, subscribe)
        }
    }
}
