import BenchCore

/// The user's server to measure (`--target`): its protocol, address, and where on it the run talks.
///
///     tcp://HOST:PORT                 any echo (roundtrip) or relay (fanout) server, framed by --framing
///     ws://HOST:PORT/PATH             a WebSocket server; wss:// the same over TLS
///     redis://[:PASSWORD@]HOST:PORT/CHANNEL   Redis PUBLISH/SUBSCRIBE
///     nats://HOST:PORT/SUBJECT        NATS PUB/SUB
///     mqtt://[USER:PASSWORD@]HOST:PORT/TOPIC  an MQTT 3.1.1 broker
///     sse://HOST:PORT/PATH            a Server-Sent Events stream (with an http:// publish URL)
///     socketio://HOST:PORT[/NAMESPACE]  a Socket.IO server (v5, Engine.IO v4, over WebSocket)
///     http://HOST:PORT/PATH           where an sse:// target's publisher POSTs (`--publish-url`), not a target
///     mqtts://, sses://, socketios://, https://   the same over TLS (as wss:// is ws:// over TLS)
///     mqtt+ws://, nats+ws://          MQTT or NATS over WebSocket (the WebSocket path is `--ws-path`: /mqtt, /);
///     mqtt+wss://, nats+wss://        the same over TLS
///     stomp://[USER:PASSWORD@]HOST:PORT/DESTINATION   a STOMP 1.2 broker (the destination with its slash: /topic/x);
///     stomps://, stomp+ws://, stomp+wss://             over TLS, over WebSocket (`--ws-path`, default /ws)
///     grpc://HOST:PORT/package.Service/Method         a gRPC server over cleartext HTTP/2 (h2c, prior knowledge);
///     grpcs://                                         over TLS, HTTP/2 chosen by ALPN (h2)
public struct TargetURL: Sendable, Equatable, CustomStringConvertible {
    public enum Scheme: String, Sendable, CaseIterable {
        case tcp, ws, wss, redis, nats, mqtt, mqtts, sse, sses, http, https
        case socketIO = "socketio"
        case socketIOSecure = "socketios"
        case mqttOverWebSocket = "mqtt+ws"
        case mqttOverSecureWebSocket = "mqtt+wss"
        case natsOverWebSocket = "nats+ws"
        case natsOverSecureWebSocket = "nats+wss"
        case stomp
        case stompSecure = "stomps"
        case stompOverWebSocket = "stomp+ws"
        case stompOverSecureWebSocket = "stomp+wss"
        case grpc
        case grpcSecure = "grpcs"

        /// The protocol spoken, TLS and WebSocket aside: wss → ws, mqtts → mqtt, sses → sse, https → http,
        /// socketios → socketio, mqtt+ws(s) → mqtt, nats+ws(s) → nats.
        public var protocolScheme: Scheme {
            switch self {
            case .wss: .ws
            case .mqtts, .mqttOverWebSocket, .mqttOverSecureWebSocket: .mqtt
            case .natsOverWebSocket, .natsOverSecureWebSocket: .nats
            case .stompSecure, .stompOverWebSocket, .stompOverSecureWebSocket: .stomp
            case .sses: .sse
            case .https: .http
            case .socketIOSecure: .socketIO
            case .grpcSecure: .grpc
            default: self
            }
        }

        /// True for the schemes over TLS.
        public var usesTLS: Bool {
            [
                .wss, .mqtts, .sses, .https, .socketIOSecure, .mqttOverSecureWebSocket, .natsOverSecureWebSocket,
                .stompSecure, .stompOverSecureWebSocket, .grpcSecure,
            ].contains(self)
        }

        /// True for the protocols carried in WebSocket messages although they have a stream of their own (MQTT, NATS,
        /// STOMP): their bytes are the WebSocket messages', their handshake an HTTP one.
        public var overWebSocket: Bool {
            [
                .mqttOverWebSocket, .mqttOverSecureWebSocket, .natsOverWebSocket, .natsOverSecureWebSocket,
                .stompOverWebSocket, .stompOverSecureWebSocket,
            ].contains(self)
        }

        /// True where the WebSocket messages are text (a ws:// server's, Socket.IO's, STOMP's frames), false where
        /// they are binary (MQTT's, NATS's bytes).
        public var webSocketCarriesText: Bool {
            protocolScheme == .ws || protocolScheme == .socketIO || protocolScheme == .stomp
        }

        /// The WebSocket path a client asks for when `--ws-path` does not say (the URL's path names a topic or a
        /// subject): mosquitto's and EMQX's `/mqtt`, nats-server's `/`; nil for the schemes whose URL has it.
        public var defaultWebSocketPath: String? {
            switch self {
            case .mqttOverWebSocket, .mqttOverSecureWebSocket: "/mqtt"
            case .natsOverWebSocket, .natsOverSecureWebSocket: "/"
            case .stompOverWebSocket, .stompOverSecureWebSocket: "/ws"
            case .socketIO, .socketIOSecure: "/socket.io/"
            default: nil
            }
        }

        /// The WebSocket subprotocol a client asks for: `mqtt` for MQTT over WebSocket (as MQTT 3.1.1 §6 wants it),
        /// `v12.stomp` for STOMP 1.2's.
        public var webSocketSubprotocol: String? {
            guard overWebSocket else { return nil }
            return protocolScheme == .mqtt ? "mqtt" : protocolScheme == .stomp ? "v12.stomp" : nil
        }

        /// Every scheme's name, for messages.
        static var names: String {
            "tcp, ws, wss, redis, nats, nats+ws, nats+wss, mqtt, mqtts, mqtt+ws, mqtt+wss, stomp, stomps, stomp+ws, "
                + "stomp+wss, sse, sses, socketio, socketios, grpc or grpcs"
        }
    }

    public var scheme: Scheme
    public var host: String
    /// True when `host` names this machine's loopback (127.0.0.0/8, `localhost`, `::1`, bracketed or not).
    public static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "localhost" || host == "::1" || host == "[::1]"
    }

    public var port: UInt16
    /// ws/wss: the path, from `/`. redis: the channel; nats: the subject (without the leading `/`); stomp: the
    /// destination, with it. tcp: empty.
    public var path: String
    /// redis: the password for AUTH, from `redis://:PASSWORD@host`; mqtt: CONNECT's, from `mqtt://USER:PASSWORD@host`;
    /// stomp: CONNECT's passcode.
    public var password: String?
    /// mqtt: CONNECT's user name; stomp: its login.
    public var username: String?

    /// Why a URL is not a target, for the usage error.
    public struct Invalid: Error, Equatable, Sendable {
        public let reason: String

        public init(reason: String) {
            self.reason = reason
        }
    }

    /// Parses `text`; throws with the reason when it is not a target this harness speaks.
    public init(_ text: String) throws(Invalid) {
        guard let separator = text.firstRange(of: "://") else {
            throw Invalid(reason: "expected SCHEME://HOST:PORT[/PATH] with a scheme of \(Scheme.names)")
        }
        let written = String(text[..<separator.lowerBound]).lowercased()
        guard let scheme = Scheme(rawValue: written) else {
            // A protocol spoken over WebSocket that bench describes in lines: its ws:// URL and --protocol.
            let described = ["graphql", "phoenix", "actioncable"].first { written.hasPrefix($0) }
            let secure = written.hasSuffix("wss")
            throw Invalid(
                reason: "unknown scheme '\(text[..<separator.lowerBound])': "
                    + (described.map { "\($0) goes over WebSocket: --target \(secure ? "wss" : "ws")://HOST:PORT/PATH --protocol \($0)" }
                        ?? "expected \(Scheme.names)"))
        }
        self.scheme = scheme
        var rest = Substring(text[separator.upperBound...])
        let pathStart = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<pathStart]
        rest = rest[pathStart...]
        password = nil
        username = nil
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            switch scheme.protocolScheme {
            case .redis where credentials.first == ":":
                password = String(credentials.dropFirst())
            case .mqtt, .stomp:
                let colon = credentials.firstIndex(of: ":")
                username = String(credentials[..<(colon ?? credentials.endIndex)])
                password = colon.map { String(credentials[credentials.index(after: $0)...]) }
                guard username?.isEmpty == false else { throw Invalid(reason: "a user name is missing before the @") }
            default:
                throw Invalid(reason: "credentials are only for redis (redis://:PASSWORD@…), mqtt and stomp (mqtt://USER:PASSWORD@…)")
            }
        }
        // HOST:PORT, or [IPv6]:PORT.
        let hostPart: Substring
        let portPart: Substring
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]"), authority[authority.index(after: close)...].first == ":" else {
                throw Invalid(reason: "expected [IPv6]:PORT")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            portPart = authority[authority.index(close, offsetBy: 2)...]
        } else {
            guard let colon = authority.lastIndex(of: ":") else { throw Invalid(reason: "expected HOST:PORT (the port is needed)") }
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw Invalid(reason: "the host is missing") }
        guard let port = UInt16(portPart), port > 0 else { throw Invalid(reason: "the port must be 1 to 65535") }
        host = String(hostPart)
        self.port = port
        let printable = rest.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        guard printable && rest.utf8.count <= 1024 else {
            throw Invalid(reason: "the path must be printable ASCII without blanks, at most 1024 characters")
        }
        switch scheme.protocolScheme {
        case .tcp:
            guard rest.isEmpty || rest == "/" else { throw Invalid(reason: "a tcp target has no path") }
            path = ""
        case .ws, .sse, .http, .socketIO:
            path = rest.isEmpty ? "/" : String(rest)
        case .mqtt:
            let topic = rest.dropFirst()
            guard !topic.isEmpty, !topic.contains("+"), !topic.contains("#") else {
                throw Invalid(reason: "expected a topic without wildcards after the address, as mqtt://HOST:PORT/TOPIC")
            }
            path = String(topic)
        case .grpc:
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw Invalid(reason: "expected the method after the address, as grpc://HOST:PORT/package.Service/Method")
            }
            path = String(rest)
        case .stomp:
            guard rest.count > 1 else {
                throw Invalid(reason: "expected a destination after the address, as stomp://HOST:PORT/topic/NAME")
            }
            path = String(rest)
        case .redis, .nats:
            let name = rest.dropFirst()
            let isNATS = scheme.protocolScheme == .nats
            guard !name.isEmpty, !name.contains("/") || isNATS else {
                throw Invalid(reason: "expected \(isNATS ? "a subject" : "a channel") after the address, as \(scheme.rawValue)://HOST:PORT/NAME")
            }
            guard !name.contains(" ") && !(isNATS && (name.contains("*") || name.contains(">"))) else {
                throw Invalid(reason: "a subject to publish to cannot hold wildcards")
            }
            path = String(name)
        default:  // a scheme over TLS: its protocol's scheme is one of the above
            path = String(rest)
        }
    }

    /// `text` with the password of a URL in it (`redis://:PASSWORD@`, `mqtt://USER:PASSWORD@`) shown as `***`, whether
    /// or not it parses: for every message and report that repeats what the user typed.
    public static func hidingPassword(in text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return text }
        let authority = text[scheme.upperBound...].prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    /// The URL with its password, as it parses back: for a process of the run's own (an agent, a child) that must
    /// connect too; never for a report.
    public var textWithCredentials: String {
        text(credentials: (username ?? "") + (password.map { ":\($0)" } ?? "") + (username != nil || password != nil ? "@" : ""))
    }

    public var description: String {
        text(credentials: (username ?? "") + (password.map { _ in ":***" } ?? "") + (username != nil || password != nil ? "@" : ""))
    }

    private func text(credentials: String) -> String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let tail = path.isEmpty ? "" : path.hasPrefix("/") ? path : "/" + path
        return "\(scheme.rawValue)://\(credentials)\(address)\(tail)"
    }
}

extension TargetURL.Scheme {
    /// True when a chat server of this scheme sends each message to its sender too (NATS, MQTT, Redis, STOMP: the sender is
    /// subscribed to its room): the sender's read of it is the message's round trip.
    public var sendsChatToSender: Bool {
        [.nats, .mqtt, .redis, .stomp].contains(protocolScheme)
    }

    /// Why a chat run cannot have its members send on their own connections to a server of this scheme; nil when it can.
    public var chatRefusal: String? {
        switch protocolScheme {
        case .tcp, .ws, .mqtt, .nats, .socketIO, .redis, .stomp, .grpc: return nil
        default:
            return "\(rawValue):// publishes over separate HTTP requests, not on a member's connection: nats://, "
                + "mqtt://, redis://, stomp://, ws://, tcp://, socketio:// and grpc:// targets take chat"
        }
    }

    /// Why a round trip cannot be measured through a server of this scheme; nil when it can (each client publishes to
    /// its own topic, or sends to an echo, and reads its messages back).
    public var roundtripRefusal: String? {
        switch protocolScheme {
        case .tcp, .ws, .mqtt, .nats, .socketIO, .stomp, .grpc: return nil
        case .redis:
            return "redis:// has no round trip (a subscribed Redis connection cannot publish): measure it with bench fanout"
        default:
            return "\(rawValue):// publishes over separate HTTP requests: measure it with bench fanout"
        }
    }
}
