import BenchCore

/// A client's connection closed during the run, and maybe it came back: the samples of the `reconnect` metric.
public struct ClientOutage: Sendable, Equatable {
    /// The client whose connection closed.
    public let client: Int
    /// When the server closed it or saw it close (monotonic ns).
    public let closed: UInt64
    /// When the server accepted the client's next hello (monotonic ns); 0 while (or if) it has not come back.
    public var back: UInt64
    /// Against a user's server: the phases of the connect that brought it back (TCP, TLS, the WebSocket upgrade, the
    /// protocol's login and subscription); the rest of the outage was its backoff and the tries that failed.
    public var returnPhases: ConnectPhases?

    public init(client: Int, closed: UInt64, back: UInt64 = 0, returnPhases: ConnectPhases? = nil) {
        self.client = client
        self.closed = closed
        self.back = back
        self.returnPhases = returnPhases
    }

    /// Close → hello accepted, in nanoseconds; nil when the client never came back (lost).
    public var reconnectTime: UInt64? { back == 0 ? nil : back - closed }
}

/// The herd of a run's returns (the deploy's question: how long until every client is back, how hard do they hit the
/// server): from the first close to the last return, and the most returns within any one second.
public struct ReturnHerd: Equatable, Sendable {
    /// From the earliest close to the latest return (ns).
    public let lastBackAfterFirstClose: UInt64
    /// The most returns whose times lie within one second of each other.
    public let peakReturnsPerSecond: Int

    /// The herd of `outages`; nil when none came back.
    public init?(_ outages: [ClientOutage]) {
        let backs = outages.lazy.filter { $0.back != 0 }.map(\.back).sorted()
        guard let lastBack = backs.last, let firstClose = outages.lazy.map(\.closed).min() else { return nil }
        lastBackAfterFirstClose = lastBack &- min(firstClose, lastBack)
        var peak = 0
        var start = 0
        for end in backs.indices {
            while backs[end] &- backs[start] >= 1_000_000_000 { start += 1 }
            peak = Swift.max(peak, end - start + 1)
        }
        peakReturnsPerSecond = peak
    }
}
