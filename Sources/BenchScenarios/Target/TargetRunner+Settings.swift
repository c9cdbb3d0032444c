import BenchCore
import BenchNet

/// What connecting to a user's server takes, for this process's connections and a child's alike.
extension TargetRunner {
    /// The transport settings of connections to `target`: the Host field and the TLS server name are the URL's, as a
    /// browser would send them (a proxy or CDN in front of the user's server routes by them), not the address they
    /// resolved to; a wss target's certificate is pinned from `pem` (which came from `source`, for messages).
    static func transportSettings(
        for target: TargetURL, payload: Int, engineIOPath: String? = nil, pinning pem: [UInt8]?, from source: String
    ) throws(RunError) -> TransportSettings {
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        // Socket.IO's WebSocket is Engine.IO's, at its default path (or --ws-path); the URL's path is the namespace.
        let path = target.scheme.protocolScheme == .socketIO ? engineIOTarget(engineIOPath ?? "/socket.io/") : target.path
        var settings = TransportSettings(
            maximumFrameSize: max(64 << 10, 4 * payload), webSocketPath: path, webSocketHost: "\(host):\(target.port)")
        if target.host.first.map({ !$0.isNumber }) == true && !target.host.contains(":") {
            settings.tlsServerName = target.host
        }
        settings.webSocketText = true
        if target.scheme.usesTLS {
            do throws(TLSError) {
                try OpenSSL.load()
                guard let pem else { throw TLSError("a \(target.scheme.rawValue) target needs --tls-ca") }
                do {
                    settings.tls = try TLSContext(pinning: try TLSCertificate(pem: pem))
                } catch {
                    throw TLSError("\(source): \(error)")
                }
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

    /// A wss target's certificate to pin, read from `--tls-ca`; nil for other targets, or without `--tls-ca`.
    static func trustedPEM(_ configuration: RunConfiguration) throws(RunError) -> [UInt8]? {
        guard configuration.target?.scheme.usesTLS == true, let path = configuration.tlsTrustPath else { return nil }
        do throws(SystemError) {
            return try Posix.readFile(path, limit: 1 << 20)
        } catch {
            throw .tls(TLSError("--tls-ca \(path): \(error)"))
        }
    }

    /// What a fan-out target's connections speak.
    static func speech(of target: TargetURL, _ configuration: RunConfiguration) -> PubSubSession.Speech {
        switch target.scheme.protocolScheme {
        case .redis: return .redis(channel: target.path, password: target.password)
        case .nats: return .nats(subject: target.path)
        case .tcp: return .custom(framing: configuration.framing, subscribe: configuration.subscribeText)
        case .ws: return .custom(framing: nil, subscribe: configuration.subscribeText)
        case .socketIO:
            return .socketIO(PubSubSession.SocketIOSettings(namespace: target.path, subscribe: configuration.subscribeText))
        case .sse, .http:
            func host(_ url: TargetURL) -> String { (url.host.contains(":") ? "[\(url.host)]" : url.host) + ":\(url.port)" }
            let publish = configuration.publishURL
            return .sse(PubSubSession.SSESettings(
                streamPath: target.path, streamHost: host(target), publishPath: publish?.path ?? "/",
                publishHost: publish.map(host) ?? ""))
        default:  // mqtt (the secure schemes' protocols are the ones above)
            // Client identifiers within MQTT 3.1.1's guaranteed 23 bytes: "b", the run's token, "-", the connection.
            return .mqtt(PubSubSession.MQTTSettings(
                topic: target.path, qos: configuration.qos,
                keepAlive: UInt16(min((configuration.heartbeat + 999_999_999) / 1_000_000_000, 65_535)),
                username: target.username, password: target.password,
                clientIDPrefix: "b\(String(configuration.token, radix: 36))-"))
        }
    }
}

extension PubSubSession.Speech {
    /// What roundtrip client `client` speaks: where a topic names what a connection receives (MQTT, NATS), its own
    /// (`TOPIC/<client>`, `SUBJECT.<client>`), so that its messages come back to it alone; the same otherwise.
    func ownTopic(of client: Int) -> PubSubSession.Speech {
        switch self {
        case .mqtt(var settings):
            settings.topic += "/\(client)"
            return .mqtt(settings)
        case .nats(let subject):
            return .nats(subject: "\(subject).\(client)")
        default:
            return self
        }
    }
}
