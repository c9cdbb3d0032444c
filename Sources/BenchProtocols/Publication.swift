import BenchCore

/// A published message as it goes on the wire: the protocol's bytes around the payload, where the payload starts in
/// them, and what is rewritten per message (the marker; MQTT's packet identifier at QoS 1 or 2; a described protocol's
/// message id; a framing's length or checksum).
public struct Publication: Sendable {
    public let bytes: [UInt8]
    public let payloadOffset: Int
    /// MQTT at QoS 1 or 2: where the packet identifier is, one per message in flight.
    public let packetIDOffset: Int?
    /// A described protocol's `{message_id}`: where the message's identifier goes (``Marker/writeIdentifier(into:)``).
    public let messageIDOffset: Int?
    /// A tcp:// server's framing, framed again after each marking (stx's CRC covers the marker).
    public let framing: MessageFraming?

    public init(
        bytes: [UInt8], payloadOffset: Int, packetIDOffset: Int? = nil, messageIDOffset: Int? = nil,
        framing: MessageFraming? = nil
    ) {
        (self.bytes, self.payloadOffset, self.packetIDOffset) = (bytes, payloadOffset, packetIDOffset)
        (self.messageIDOffset, self.framing) = (messageIDOffset, framing)
    }

    /// Marks a copy of ``bytes`` (`message`) in place with `marker` at `markerOffset`: framed again where the framing
    /// covers it, the packet identifier rewritten from the marker's sequence (never 0), and the message id.
    @inline(__always)
    public func mark(_ message: UnsafeMutableRawBufferPointer, with marker: Marker, at markerOffset: Int) {
        Self.mark(
            message, with: marker, at: markerOffset, framing: framing, packetIDAt: packetIDOffset,
            messageIDAt: messageIDOffset)
    }

    /// Marks a published message in place with `marker` at `markerOffset`: framed again where `framing` covers it
    /// (stx's CRC), and at QoS 1 or 2 MQTT's packet identifier rewritten at `packetIDOffset`, one per message in flight
    /// (from the marker's sequence, never 0), and a described protocol's message id at `messageIDOffset`. The
    /// publisher's broadcasts and round-trip clients' own messages alike.
    @inline(__always)
    public static func mark(
        _ message: UnsafeMutableRawBufferPointer, with marker: Marker, at markerOffset: Int, framing: MessageFraming?,
        packetIDAt packetIDOffset: Int?, messageIDAt messageIDOffset: Int?
    ) {
        marker.write(into: UnsafeMutableRawBufferPointer(rebasing: message[markerOffset...]))
        if let messageIDOffset { marker.writeIdentifier(into: UnsafeMutableRawBufferPointer(rebasing: message[messageIDOffset...])) }
        framing?.frame(message)
        if let packetIDOffset {
            let identifier = UInt16(marker.sequence % 65_535 + 1)
            message[packetIDOffset] = UInt8(identifier >> 8)
            message[packetIDOffset + 1] = UInt8(identifier & 0xFF)
        }
    }
}
