/// How one connection's connect to a user's server went, phase by phase (ns, on the client's clock): the TCP connect
/// (from its start to the connection's completion), the TLS handshake, the WebSocket upgrade, and the protocol's own
/// handshake until the client was subscribed (an MQTT CONNECT and SUBSCRIBE and their acks, a Phoenix join and its
/// reply, a GraphQL connection_init and its ack…). A phase the connection does not have is 0. The first three add up
/// to the `connect` metric's time.
///
/// A client's subscribed report carries them as its text, `tcp,tls,ws,subscribe` in decimal.
public struct ConnectPhases: Equatable, Sendable {
    public var tcp: UInt64
    public var tls: UInt64
    public var webSocket: UInt64
    public var subscribe: UInt64

    /// The longest phase read from a report: an hour (a connect that takes longer has timed out long before).
    public static let longest: UInt64 = 3_600_000_000_000

    public init(tcp: UInt64, tls: UInt64, webSocket: UInt64, subscribe: UInt64) {
        (self.tcp, self.tls, self.webSocket, self.subscribe) = (tcp, tls, webSocket, subscribe)
    }

    /// The phases from a connection's times (monotonic ns): its connect's start, the TCP connect's completion, the end
    /// of the stream's handshake (TLS), the end of every transport handshake, and when the protocol made it ready.
    /// A time that went backwards (it cannot) counts as 0.
    public init(started: UInt64, connected: UInt64, streamEstablished: UInt64, established: UInt64, ready: UInt64) {
        func span(_ from: UInt64, _ to: UInt64) -> UInt64 { to > from ? to - from : 0 }
        self.init(
            tcp: span(started, connected), tls: span(connected, streamEstablished),
            webSocket: span(streamEstablished, established), subscribe: span(established, ready))
    }

    /// The phases of a connection that has a TLS handshake or not, and a WebSocket upgrade or not: the span of a
    /// phase it has not (the few steps of the harness between two that it has) goes to the phase before it, so that
    /// the phases still add up to the connect time.
    public func having(tls hasTLS: Bool, webSocket hasWebSocket: Bool) -> ConnectPhases {
        var phases = self
        if !hasWebSocket {
            if hasTLS { phases.tls += phases.webSocket } else { phases.tcp += phases.webSocket }
            phases.webSocket = 0
        }
        if !hasTLS {
            phases.tcp += phases.tls
            phases.tls = 0
        }
        return phases
    }

    /// True when the transport's phases add up to `connectTime`, as a client's own do (its connect time is at least
    /// 1 ns: phases of 0 go with 1).
    public func addUp(to connectTime: UInt64) -> Bool {
        let transport = tcp + tls + webSocket  // each at most an hour: no overflow
        return transport == connectTime || (connectTime == 1 && transport == 0)
    }

    /// As a report carries them.
    public var text: String { "\(tcp),\(tls),\(webSocket),\(subscribe)" }

    /// Reads a report's text: four decimal numbers of nanoseconds, each at most ``longest``; nil for anything else.
    public init?(text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard (1...13).contains(part.count), part.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let value = UInt64(String(decoding: part, as: UTF8.self)), value <= Self.longest
            else { return nil }
            values.append(value)
        }
        self.init(tcp: values[0], tls: values[1], webSocket: values[2], subscribe: values[3])
    }
}
