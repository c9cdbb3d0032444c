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

extension PubSubSession {
    /// A ws:// or tcp:// server's framing of what is published (nil for ws and the other protocols).
    var framing: MessageFraming? {
        guard case .custom(let framing, _) = kind else { return nil }
        return framing
    }

    /// Marks a published message in place with `marker` at `markerOffset`: framed again where the framing covers it
    /// (stx's CRC), and at QoS 1 or 2 MQTT's packet identifier rewritten at `packetIDOffset`, one per message in flight
    /// (from the marker's sequence, never 0). The publisher's broadcasts and roundtrip clients' own messages alike.
    @inline(__always)
    static func mark(
        _ message: UnsafeMutableRawBufferPointer, with marker: Marker, at markerOffset: Int, framing: MessageFraming?,
        packetIDAt packetIDOffset: Int?
    ) {
        marker.write(into: UnsafeMutableRawBufferPointer(rebasing: message[markerOffset...]))
        framing?.frame(message)
        if let packetIDOffset {
            let identifier = UInt16(marker.sequence % 65_535 + 1)
            message[packetIDOffset] = UInt8(identifier >> 8)
            message[packetIDOffset + 1] = UInt8(identifier & 0xFF)
        }
    }
}

