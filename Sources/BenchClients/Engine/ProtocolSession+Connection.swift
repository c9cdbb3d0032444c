import Glibc
import BenchCore
import BenchNet
import BenchProtocols

/// A protocol's state machine on its connection: what it owes the server, sent after each read and at each keepalive.
extension ProtocolSession {
    /// Sends what the protocol owes the server (a pong, an acknowledgement, a subscription: each a message of its own
    /// where the protocol wants that) from the machine's own buffer, and empties it. They may pass the messages' limit
    /// (``Connection/sendOwed(_:)``); what the queue has no room for even so (the server has read nothing for twice
    /// `--max-queue`) is not dropped in silence: the connection fails, with why, as its protocol's state would no longer
    /// be the server's.
    public func sendOwed<T: Transport>(on connection: Connection<T>) throws {
        try drainOutbox { bytes in
            guard try connection.sendOwed(bytes) != .dropped else {
                let why = connection.refusal(of: bytes.count) ?? "the server takes no more bytes (twice --max-queue waits)"
                throw ConnectionError.system(SystemError("\(why): what the protocol owed it could not be sent", errno: ENOBUFS))
            }
        }
    }

    /// The name of a client's `connect`th connection of the run (0: its first): `client` alone, then with that count, so
    /// that no two connections of a run share a name. A broker that knows a connection by it (MQTT's client identifier)
    /// then never hands a live connection's identity to a try its client gave up on: a broker that hung and goes on
    /// reads the tries it accepted meanwhile, and a try of the same identifier would take the live session over.
    public static func connectionName(_ client: String, connect: Int) -> String {
        connect == 0 ? client : "\(client).\(connect)"
    }

    /// The connection is open: what the protocol says first (its greeting, a subscriber's subscription) is sent;
    /// `name` is the connection's (``connectionName(_:connect:)``).
    public func open<T: Transport>(on connection: Connection<T>, name: String) throws {
        machine.connected(name: name)
        try sendOwed(on: connection)
    }

    /// The keepalive is due: the protocol's ping (MQTT's PINGREQ) is sent, through the machine's buffer.
    public func sendHeartbeat<T: Transport>(on connection: Connection<T>) throws {
        machine.heartbeat()
        try sendOwed(on: connection)
    }

    /// The run ends: what the protocol says last (a `close` line) is sent, as far as the socket takes it at once.
    public func sendClosing<T: Transport>(on connection: Connection<T>) {
        machine.closing()
        try? sendOwed(on: connection)
        try? connection.writeQueued()
    }

    /// How often the keepalive goes (nanoseconds); nil: the protocol has none.
    public var heartbeatInterval: UInt64? { machine.heartbeatInterval }
}
