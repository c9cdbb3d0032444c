import BenchCore
import BenchNet
import BenchProtocols

extension TransportSettings {
    /// Client `client`'s: its row's values in the WebSocket path (and query) and the `--header` fields.
    public func personalized(by identities: ClientIdentities?, client: Int) -> TransportSettings {
        guard let identities else { return self }
        var settings = self
        settings.webSocketPath = identities.expand(webSocketPath, client: client)
        settings.handshakeFields = handshakeFields.map { $0.personalized(by: identities, client: client) }
        return settings
    }
}
