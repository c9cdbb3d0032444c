import BenchCore
import BenchNet

/// What a ``PubSubSession`` sends of its own accord on its connection: what it owes the server, and its keepalive.
extension PubSubSession {
    /// Sends ``replies`` (NATS's `PONG`s, MQTT's acknowledgements, Socket.IO's answers, each of those a message of its
    /// own), from the session's own buffer, and empties it.
    func sendReplies<T: Transport>(on connection: Connection<T>) throws {
        guard !replies.isEmpty else { return }
        defer {
            replies.removeAll(keepingCapacity: true)
            replyBoundaries.removeAll(keepingCapacity: true)
        }
        try replies.withUnsafeMutableBytes { bytes in
            guard !replyBoundaries.isEmpty else { return _ = try connection.send(bytes) }  // no array per reply
            var start = 0
            for end in replyBoundaries {
                _ = try connection.send(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]))
                start = end
            }
        }
    }

    /// Sends the protocol's keepalive (MQTT's PINGREQ) through ``replies``: no allocation per ping.
    func sendKeepAlive<T: Transport>(on connection: Connection<T>) throws {
        replies.append(contentsOf: MQTTPacket.pingRequest)
        try sendReplies(on: connection)
    }
}
