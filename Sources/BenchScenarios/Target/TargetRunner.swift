import BenchCore
import BenchNet

/// Runs a scenario against a user's server (`--target`) instead of the built-in one.
enum TargetRunner {
    static func run(_ configuration: RunConfiguration, target: TargetURL, control: RunControl) throws(RunError) -> RunRecording {
        guard let address = SocketAddress(host: target.host, port: target.port) else {
            throw .invalidHost(target.host)
        }
        let limit = DescriptorLimit.raiseToHardLimit()
        guard configuration.clients + 1 + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: configuration.clients, descriptorLimit: limit)
        }
        var settings = TransportSettings(
            maximumFrameSize: max(64 << 10, 4 * configuration.payload), webSocketPath: target.path,
            webSocketHost: address.description)
        settings.webSocketText = true
        if target.scheme == .wss {
            do throws(TLSError) {
                try OpenSSL.load()
                guard let path = configuration.tlsTrustPath else { throw TLSError("a wss target needs --tls-ca") }
                let pem: [UInt8]
                do throws(SystemError) {
                    pem = try Posix.readFile(path, limit: 1 << 20)
                } catch {
                    throw TLSError("--tls-ca \(path): \(error)")
                }
                settings.tls = try TLSContext(pinning: try TLSCertificate(pem: pem))
            } catch {
                throw .tls(error)
            }
        }
        switch (configuration.scenario, target.scheme) {
        case (.roundtrip, .tcp): return try roundtrip(TCP.self, configuration, target, address, settings, control)
        case (.roundtrip, .ws): return try roundtrip(WebSocket.self, configuration, target, address, settings, control)
        case (.roundtrip, .wss):
            return try roundtrip(SecureWebSocket.self, configuration, target, address, settings, control)
        default:
            throw .setupFailed("\(configuration.scenario.rawValue) against \(target.scheme.rawValue):// targets is not built yet")
        }
    }

    private static func roundtrip<T: Transport>(
        _: T.Type, _ configuration: RunConfiguration, _ target: TargetURL, _ address: SocketAddress,
        _ settings: TransportSettings, _ control: RunControl
    ) throws(RunError) -> RunRecording {
        let clients: TargetEchoClients<T>
        do {
            clients = try TargetEchoClients<T>(
                configuration, target: target, address: address, transport: settings, control: control)
        } catch {
            throw .system(error)
        }
        return try clients.run().get()
    }
}
