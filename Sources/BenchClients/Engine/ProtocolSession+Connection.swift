import BenchCore
import BenchNet
import BenchProtocols

/// A protocol's state machine on its connection: what it owes the server, sent after each read and at each keepalive.
extension ProtocolSession {
    /// Sends what the protocol owes the server (a pong, an acknowledgement, a subscription: each a message of its own
    /// where the protocol wants that) from the machine's own buffer, and empties it.
    package func sendOwed<T: Transport>(on connection: Connection<T>) throws {
        try drainOutbox { _ = try connection.send($0) }
    }

    /// The connection is open: what the protocol says first (its greeting, a subscriber's subscription) is sent.
    package func open<T: Transport>(on connection: Connection<T>, name: String) throws {
        machine.connected(name: name)
        try sendOwed(on: connection)
    }

    /// The keepalive is due: the protocol's ping (MQTT's PINGREQ) is sent, through the machine's buffer.
    package func sendHeartbeat<T: Transport>(on connection: Connection<T>) throws {
        machine.heartbeat()
        try sendOwed(on: connection)
    }

    /// The run ends: what the protocol says last (a `close` line) is sent, as far as the socket takes it at once.
    package func sendClosing<T: Transport>(on connection: Connection<T>) {
        machine.closing()
        try? sendOwed(on: connection)
        try? connection.writeQueued()
    }

    /// How often the keepalive goes (nanoseconds); nil: the protocol has none.
    package var heartbeatInterval: UInt64? { machine.heartbeatInterval }
}
