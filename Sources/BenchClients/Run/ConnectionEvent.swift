/// A connection that closed before the end of the run, or was refused, and why.
public struct ConnectionEvent: Sendable, Equatable {
    /// Which side saw it.
    public enum Side: String, Sendable {
        /// The server closed or refused a connection, or saw it close.
        case server
        /// The server's listening socket could not accept (out of descriptors or memory).
        case listener
        /// A client of this process saw its connection fail.
        case clients
        /// The run as a whole: why it gave no result (nothing was measured).
        case run
        /// The emulated link (`--link`): the connections its NAT forgot, its blackouts.
        case link
    }

    /// The side that closed the connection or saw it close.
    public let side: Side
    /// The client id, or nil when the peer never said hello.
    public let client: Int?
    /// When it happened (monotonic ns).
    public let time: UInt64
    /// Why, for people: "closed by peer", "frame of 99999999 bytes announced, ..."
    public let reason: String

    public init(side: Side, client: Int?, time: UInt64, reason: String) {
        self.side = side
        self.client = client
        self.time = time
        self.reason = reason
    }
}
