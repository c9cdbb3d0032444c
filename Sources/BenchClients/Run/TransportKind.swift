import BenchCore
import BenchProtocols

/// The transport of a run (`--transport`): how the bench frames travel between server and clients.
public enum TransportKind: String, Sendable, CaseIterable {
    /// Bench frames straight on TCP.
    case tcp
    /// One bench frame per binary WebSocket message (RFC 6455), after an HTTP Upgrade.
    case ws
    /// Bench frames inside TLS (1.2 or 1.3).
    case tls
    /// WebSocket inside TLS.
    case wss

    /// True for the WebSocket transports.
    public var isWebSocket: Bool { self == .ws || self == .wss }
    /// True for the TLS transports.
    public var usesTLS: Bool { self == .tls || self == .wss }
}

extension TargetURL.Scheme {
    /// What connections to a target of this scheme travel over: WebSocket for ws, Socket.IO and the protocols over
    /// WebSocket (mqtt+ws, nats+ws, stomp+ws), plain TCP for the rest; over TLS for the secure schemes.
    public var transport: TransportKind {
        let webSocket = record.travelsInWebSocket || overWebSocket
        switch (webSocket, usesTLS) {
        case (true, false): return .ws
        case (true, true): return .wss
        case (false, false): return .tcp
        case (false, true): return .tls
        }
    }
}
