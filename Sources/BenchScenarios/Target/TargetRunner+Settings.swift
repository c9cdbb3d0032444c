import BenchCore
import BenchNet
import BenchProtocols

/// What connecting to a user's server takes, for this process's connections and a child's alike.
extension TargetRunner {
    /// The transport settings of connections to the target of `targetSettings`: the Host field and the TLS server name
    /// are the URL's, as a browser would send them (a proxy or CDN in front of the user's server routes by them), not
    /// the address they resolved to; the user's `--header` fields on the WebSocket handshake; a target over TLS is
    /// trusted as `trust` says (its chain and the URL's host verified, by default).
    static func transportSettings(
        for targetSettings: TargetSettings, payload: Int, trust: TLSTrust?
    ) throws(RunError) -> TransportSettings {
        let target = targetSettings.url
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        // Socket.IO's WebSocket is Engine.IO's, at its default path (or --ws-path); the URL's path is the namespace.
        // MQTT's and NATS's over WebSocket are at theirs (or --ws-path); the URL's path is the topic or subject.
        let path = switch (target.scheme.protocolScheme, targetSettings.webSocketPathInUse) {
        case (.socketIO, let inUse?): engineIOTarget(inUse)
        case (_, let inUse?): inUse
        case (_, nil): target.path
        }
        var settings = TransportSettings(
            maximumFrameSize: max(64 << 10, 4 * payload), webSocketPath: path, webSocketHost: "\(host):\(target.port)")
        settings.expectServer(named: target.host)
        // A ws:// or Socket.IO server's messages are text, and STOMP's frames; MQTT's and NATS's bytes go as binary.
        settings.webSocketText = target.scheme.webSocketCarriesText
        settings.webSocketSubprotocol = target.scheme.webSocketSubprotocol ?? targetSettings.protocolDescription?.subprotocol
        settings.handshakeFields = targetSettings.headers
        if target.scheme.usesTLS {
            do throws(TLSError) {
                try OpenSSL.load()
                settings.tls = try (trust ?? .systemStore).clientContext()
            } catch {
                throw .tls(error)
            }
        }
        return settings
    }

    /// The request target of Engine.IO's WebSocket at `path`: its query added (version 4, WebSocket at once) unless
    /// `path` has one.
    static func engineIOTarget(_ path: String) -> String {
        guard !path.contains("?") else { return path }
        return (path.hasSuffix("/") ? path : path + "/") + "?EIO=4&transport=websocket"
    }

    /// How a target over TLS is trusted: as `--tls-ca`, `--tls-pin` or `--tls-insecure` say, by default its chain
    /// against the system's store; nil for a target without TLS.
    static func trust(_ configuration: RunConfiguration) throws(RunError) -> TLSTrust? {
        guard configuration.target?.url.scheme.usesTLS == true else { return nil }
        do throws(TLSError) {
            return try TLSTrust.reading(configuration.tlsTrust, otherwise: .systemStore)
        } catch {
            throw .tls(error)
        }
    }

    /// What a target's connections speak, as its `settings` say (and the run's heartbeat and token).
    static func speech(of settings: TargetSettings, _ configuration: RunConfiguration) -> ServerProtocol {
        let target = settings.url
        switch target.scheme.protocolScheme {
        case .redis: return .redis(channel: target.path, password: target.password)
        case .nats: return .nats(subject: target.path)
        case .stomp:
            return .stomp(ServerProtocol.STOMPSettings(
                destination: target.path, login: target.username, passcode: target.password,
                heartBeatMilliseconds: Int(min(configuration.heartbeat / 1_000_000, 86_400_000))))
        case .tcp: return .custom(framing: settings.framing, subscribe: settings.subscribeText)
        case .ws:
            if let description = settings.protocolDescription { return .described(description) }
            return .custom(framing: nil, subscribe: settings.subscribeText)
        case .socketIO:
            return .socketIO(ServerProtocol.SocketIOSettings(namespace: target.path, subscribe: settings.subscribeText))
        case .sse, .http:
            func host(_ url: TargetURL) -> String { (url.host.contains(":") ? "[\(url.host)]" : url.host) + ":\(url.port)" }
            let publish = settings.publishURL
            return .sse(ServerProtocol.SSESettings(
                streamPath: target.path, streamHost: host(target), publishPath: publish?.path ?? "/",
                publishHost: publish.map(host) ?? "", fields: settings.headers))
        default:  // mqtt (the secure schemes' protocols are the ones above)
            // Client identifiers within MQTT 3.1.1's guaranteed 23 bytes: "b", the run's token, "-", the connection.
            return .mqtt(ServerProtocol.MQTTSettings(
                topic: target.path, qos: settings.qos,
                keepAlive: UInt16(min((configuration.heartbeat + 999_999_999) / 1_000_000_000, 65_535)),
                username: target.username, password: target.password,
                clientIDPrefix: "b\(String(configuration.token, radix: 36))-"))
        }
    }
}

extension ServerProtocol {
    /// What a chat member of room `room` speaks: the room's topic (`TOPIC/<room>`, `SUBJECT.<room>`, `CHANNEL:<room>`),
    /// or `{room}` in the `--subscribe` text or the `--protocol` description replaced by its number.
    func room(_ room: Int) -> ServerProtocol {
        switch self {
        case .custom(let framing, let subscribe):
            return .custom(framing: framing, subscribe: subscribe?.replacing("{room}", with: "\(room)"))
        case .socketIO(var settings):
            settings.subscribe = settings.subscribe?.replacing("{room}", with: "\(room)")
            return .socketIO(settings)
        case .described(let description):
            return .described(description.expanding { $0.replacing("{room}", with: "\(room)") })
        default:
            return below("\(room)")
        }
    }

    /// What client `client` speaks where a `--protocol` description says `{client}`: its number (a round-trip client's
    /// own channel, as `room:{client}`).
    func numbered(_ client: Int) -> ServerProtocol {
        guard case .described(let description) = self else { return self }
        return .described(description.expanding { $0.replacing("{client}", with: "\(client)") })
    }

    /// What roundtrip client `client` speaks: where a topic names what a connection receives (MQTT, NATS), its own
    /// (`TOPIC/<client>`, `SUBJECT.<client>`), so that its messages come back to it alone; the same otherwise.
    func ownTopic(of client: Int) -> ServerProtocol {
        below("\(client)")
    }

    /// Where a topic names what a connection receives, the one below it called `name` (`TOPIC/name`, `SUBJECT.name`,
    /// `CHANNEL:name`); the same speech otherwise.
    private func below(_ name: String) -> ServerProtocol {
        switch self {
        case .mqtt(var settings):
            settings.topic += "/\(name)"
            return .mqtt(settings)
        case .nats(let subject):
            return .nats(subject: "\(subject).\(name)")
        case .redis(let channel, let password):
            return .redis(channel: "\(channel):\(name)", password: password)
        case .stomp(var settings):
            settings.destination += ".\(name)"
            return .stomp(settings)
        case .custom, .socketIO, .sse, .described:
            return self
        }
    }
}
