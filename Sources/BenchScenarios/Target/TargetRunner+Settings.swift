import BenchClients
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
        // Where the URL's path names something else (Socket.IO's namespace, MQTT's topic, NATS's subject), the
        // WebSocket is at the scheme's path (or --ws-path), with the query the protocol's record asks (Engine.IO's).
        let path = targetSettings.webSocketPathInUse.map(target.scheme.record.webSocketRequestTarget) ?? target.path
        var settings = TransportSettings(
            maximumFrameSize: max(64 << 10, 4 * payload), webSocketPath: path, webSocketHost: "\(host):\(target.port)")
        settings.expectServer(named: target.host)
        // A ws:// or Socket.IO server's messages are text, and STOMP's frames; MQTT's and NATS's bytes go as binary.
        settings.webSocketText = target.scheme.webSocketCarriesText
        settings.webSocketSubprotocol = target.scheme.webSocketSubprotocol ?? targetSettings.protocolDescription?.subprotocol
        settings.handshakeFields = targetSettings.headers
        // HTTP/2 over TLS: h2, which the server must choose.
        settings.tlsALPN = target.scheme.record.alpn ?? (targetSettings.overHTTP2 ? "h2" : nil)
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
        ServerProtocol(
            url: settings.url, framing: settings.framing, subscribe: settings.subscribeText,
            description: settings.protocolDescription, publishURL: settings.publishURL,
            publishMethod: settings.publishMethod, headers: settings.headers,
            qos: settings.qos, heartbeat: configuration.heartbeat, runToken: configuration.token, overHTTP2: settings.overHTTP2)
    }
}
