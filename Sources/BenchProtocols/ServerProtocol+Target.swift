import BenchCore

extension ServerProtocol {
    /// What a target's connections speak: the protocol of `url`'s scheme with the settings the command line gave it
    /// (`--framing`, `--subscribe`, `--protocol`, `--publish-url`, `--publish-method`, `--header`, `--qos`, `--http2`), the run's
    /// `heartbeat` (ns: an MQTT keepalive, a STOMP heart-beat) and its `runToken` (MQTT client identifiers of its own).
    public init(
        url: TargetURL, framing: MessageFraming, subscribe: String?, description: ProtocolDescription?,
        publishURL: TargetURL?, publishMethod: String? = nil, headers: [HeaderField], qos: UInt8, heartbeat: UInt64,
        runToken: UInt64, overHTTP2: Bool = false
    ) {
        switch url.scheme.protocolScheme {
        case .redis: self = .redis(channel: url.path, password: url.password)
        case .nats: self = .nats(subject: url.path)
        case .stomp:
            self = .stomp(STOMPSettings(
                destination: url.path, login: url.username, passcode: url.password,
                heartBeatMilliseconds: Int(min(heartbeat / 1_000_000, 86_400_000))))
        case .tcp: self = .custom(framing: framing, subscribe: subscribe)
        case .grpc:
            let authority = (url.host.contains(":") ? "[\(url.host)]" : url.host) + ":\(url.port)"
            self = .grpc(GRPCSettings(
                method: url.path, authority: authority, subscribe: subscribe ?? "", publishMethod: publishMethod, metadata: headers,
                usesTLS: url.scheme.usesTLS))
        case .ws: self = description.map(ServerProtocol.described) ?? .custom(framing: nil, subscribe: subscribe)
        case .socketIO: self = .socketIO(SocketIOSettings(namespace: url.path, subscribe: subscribe))
        case .sse, .http:
            func host(_ url: TargetURL) -> String { (url.host.contains(":") ? "[\(url.host)]" : url.host) + ":\(url.port)" }
            self = .sse(SSESettings(
                streamPath: url.path, streamHost: host(url), publishPath: publishURL?.path ?? "/",
                publishHost: publishURL.map(host) ?? "", fields: headers, overHTTP2: overHTTP2, usesTLS: url.scheme.usesTLS))
        default:  // mqtt (the secure schemes' protocols are the ones above)
            // Client identifiers within MQTT 3.1.1's guaranteed 23 bytes: "b", the run's token, "-", the connection.
            self = .mqtt(MQTTSettings(
                topic: url.path, qos: qos, keepAlive: UInt16(min((heartbeat + 999_999_999) / 1_000_000_000, 65_535)),
                username: url.username, password: url.password, clientIDPrefix: "b\(String(runToken, radix: 36))-"))
        }
    }

}
