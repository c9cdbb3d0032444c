import BenchCore

/// MQTT 3.1.1 as one connection speaks it (``MQTTPacket``): CONNECT with a keepalive, and SUBSCRIBE for a subscriber;
/// ready on CONNACK (a publisher) or on CONNACK and SUBACK (a subscriber). A PUBLISH received is a delivery,
/// acknowledged at QoS 1 (PUBACK) and received at QoS 2 (PUBREC, completed with PUBCOMP on the broker's PUBREL); a
/// publisher's QoS 2 PUBREC is released (PUBREL). A refused CONNACK or SUBACK is the broker's error. PINGREQ every
/// half keepalive.
public final class MQTTSession: SessionStateMachine {
    private let settings: ServerProtocol.MQTTSettings
    private let role: SessionRole
    private let maximumMessageSize: Int
    private var carried: CarriedBytes
    /// The broker has not accepted the connection yet.
    private var awaitingConnectAcknowledgement = true
    public private(set) var isReady = false
    public var outbox = SessionOutbox()

    init(_ settings: ServerProtocol.MQTTSettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role, self.maximumMessageSize) = (settings, role, maximumMessageSize)
        carried = CarriedBytes(maximumMessageSize: maximumMessageSize)
    }

    /// Half the keepalive, so that the broker never waits its whole keepalive (and half again) for a packet.
    public var heartbeatInterval: UInt64? {
        settings.keepAlive > 0 ? UInt64(settings.keepAlive) * 500_000_000 : nil
    }

    public func connected(name: String) {
        outbox.append(MQTTPacket.connect(
            clientID: settings.clientIDPrefix + name, keepAlive: settings.keepAlive, username: settings.username,
            password: settings.password))
        if role == .subscriber { outbox.append(MQTTPacket.subscribe(topic: settings.topic, qos: settings.qos)) }
    }

    public func heartbeat() {
        outbox.append(MQTTPacket.pingRequest)
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try carried.take(UnsafeRawBufferPointer(bytes)) { (bytes) throws(MessageFramingError) in try packets(bytes, act) }
    }

    public func publication(of payload: [UInt8]) -> Publication {
        let (bytes, packetID, offset) = MQTTPacket.publish(topic: settings.topic, qos: settings.qos, payload: payload)
        return Publication(bytes: bytes, payloadOffset: offset, packetIDOffset: packetID)
    }

    /// Takes every complete packet off the front of `bytes`; returns how many bytes they took.
    private func packets(_ bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while let (end, packet) = try MQTTPacket.parse(bytes, from: start, maximumSize: maximumMessageSize) {
            switch packet {
            case .connectAcknowledged(let code):
                guard code == 0 else {
                    act(.serverError(MQTTPacket.refusal(code)))
                    break
                }
                awaitingConnectAcknowledgement = false
                if role == .publisher { becomeReady(act) }
            case .subscribeAcknowledged(let granted):
                guard granted != 0x80 else {
                    act(.serverError("SUBACK refused the subscription"))
                    break
                }
                if !awaitingConnectAcknowledgement { becomeReady(act) }
            case .publish(let received, let packetID, let payload):
                if received == 1 { MQTTPacket.acknowledge(0x40, packetID, into: &outbox) }
                if received == 2 { MQTTPacket.acknowledge(0x50, packetID, into: &outbox) }
                act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[payload])))
            case .publishReceived(let packetID):
                MQTTPacket.acknowledge(0x62, packetID, into: &outbox)
            case .publishReleased(let packetID):
                MQTTPacket.acknowledge(0x70, packetID, into: &outbox)
            case .other:
                break
            }
            start = end
        }
        return start
    }

    private func becomeReady(_ act: (SessionAction) -> Void) {
        guard !isReady else { return }
        isReady = true
        act(.ready)
    }
}
