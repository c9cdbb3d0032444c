import BenchCore

/// MQTT 3.1.1 as a ``PubSubSession`` reads it: the broker's packets, taken in place.
extension PubSubSession {
    /// Takes every complete packet off the front of `bytes`; returns how many bytes they took. A PUBLISH received at
    /// QoS 1 is acknowledged (PUBACK), at QoS 2 received (PUBREC) and completed on the broker's PUBREL (PUBCOMP); a
    /// publisher's QoS 2 PUBREC is released (PUBREL).
    func consumeMQTT(_ bytes: UnsafeRawBufferPointer, _ onEvent: (PubSubEvent) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while let (end, packet) = try MQTTPacket.parse(bytes, from: start, maximumSize: maximumMessageSize) {
            switch packet {
            case .connectAcknowledged(let code):
                guard code == 0 else {
                    onEvent(.error(MQTTPacket.refusal(code)))
                    break
                }
                awaitingConnectAcknowledgement = false
                if !isSubscriber { becomeReady(onEvent) }
            case .subscribeAcknowledged(let granted):
                guard granted != 0x80 else {
                    onEvent(.error("SUBACK refused the subscription"))
                    break
                }
                if !awaitingConnectAcknowledgement { becomeReady(onEvent) }
            case .publish(let received, let packetID, let payload):
                if received == 1 { MQTTPacket.acknowledge(0x40, packetID, into: &replies) }
                if received == 2 { MQTTPacket.acknowledge(0x50, packetID, into: &replies) }
                onEvent(.message(UnsafeRawBufferPointer(rebasing: bytes[payload])))
            case .publishReceived(let packetID):
                MQTTPacket.acknowledge(0x62, packetID, into: &replies)
            case .publishReleased(let packetID):
                MQTTPacket.acknowledge(0x70, packetID, into: &replies)
            case .other:
                break
            }
            start = end
        }
        return start
    }

    private func becomeReady(_ onEvent: (PubSubEvent) -> Void) {
        guard !isReady else { return }
        isReady = true
        onEvent(.ready)
    }

}
