/// A client's connection closed during the run, and maybe it came back: the samples of the `reconnect` metric.
public struct ClientOutage: Sendable, Equatable {
    /// The client whose connection closed.
    public let client: Int
    /// When the server closed it or saw it close (monotonic ns).
    public let closed: UInt64
    /// When the server accepted the client's next hello (monotonic ns); 0 while (or if) it has not come back.
    public var back: UInt64

    public init(client: Int, closed: UInt64, back: UInt64 = 0) {
        self.client = client
        self.closed = closed
        self.back = back
    }

    /// Close → hello accepted, in nanoseconds; nil when the client never came back (lost).
    public var reconnectTime: UInt64? { back == 0 ? nil : back - closed }
}
