import BenchCore

/// One MQTT 3.1.1 control packet from a broker, as far as a publisher or subscriber needs it, parsed on the bytes (no
/// string or array per message); and the packets this harness sends.
enum MQTTPacket: Equatable {
    /// CONNACK with its return code (0: accepted).
    case connectAcknowledged(returnCode: UInt8)
    /// SUBACK with the first granted QoS (0x80: refused).
    case subscribeAcknowledged(granted: UInt8)
    /// PUBLISH: its QoS, packet identifier (0 at QoS 0) and where its payload lies.
    case publish(qos: UInt8, packetID: UInt16, payload: Range<Int>)
    /// PUBREL of a QoS 2 delivery (answered with PUBCOMP).
    case publishReleased(packetID: UInt16)
    /// PUBREC of a QoS 2 publish (answered with PUBREL).
    case publishReceived(packetID: UInt16)
    /// PUBACK, PUBCOMP, PINGRESP, UNSUBACK: nothing to do.
    case other

    /// The packet starting at `start` and where it ends, or nil while it is incomplete.
    ///
    /// - Throws: ``MessageFramingError`` for a remaining length that is malformed or past `maximumSize`, a packet type
    ///   a broker never sends (0, 1, 8, 10, 12, 14, 15), or a packet whose fields run past its length.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, from start: Int, maximumSize: Int
    ) throws(MessageFramingError) -> (end: Int, packet: MQTTPacket)? {
        guard start < bytes.count else { return nil }
        let type = bytes[start] >> 4
        let flags = bytes[start] & 0x0F
        var length = 0
        var position = start + 1
        for shift in stride(from: 0, through: 21, by: 7) {
            guard position < bytes.count else { return nil }
            let byte = bytes[position]
            position += 1
            length |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            guard shift < 21 else { throw MessageFramingError(description: "an MQTT remaining length of more than 4 bytes") }
        }
        guard length <= maximumSize + 1024 else {
            throw MessageFramingError(description: "an MQTT packet of \(length) bytes, more than a message of this run")
        }
        guard bytes.count - position >= length else { return nil }
        let end = position + length
        func identifier(at offset: Int) throws(MessageFramingError) -> UInt16 {
            guard offset + 2 <= end else { throw MessageFramingError(description: "an MQTT packet shorter than its fields") }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        switch type {
        case 2:
            guard length == 2 else { throw MessageFramingError(description: "an MQTT CONNACK of \(length) bytes") }
            return (end, .connectAcknowledged(returnCode: bytes[position + 1]))
        case 3:
            let qos = (flags >> 1) & 0x03
            guard qos < 3 else { throw MessageFramingError(description: "an MQTT PUBLISH of QoS 3") }
            let topicLength = Int(try identifier(at: position))
            var payloadStart = position + 2 + topicLength
            var packetID: UInt16 = 0
            if qos > 0 {
                packetID = try identifier(at: payloadStart)
                payloadStart += 2
            }
            guard payloadStart <= end else { throw MessageFramingError(description: "an MQTT PUBLISH shorter than its topic") }
            return (end, .publish(qos: qos, packetID: packetID, payload: payloadStart..<end))
        case 4, 7, 11, 13:
            return (end, .other)
        case 5:
            return (end, .publishReceived(packetID: try identifier(at: position)))
        case 6:
            return (end, .publishReleased(packetID: try identifier(at: position)))
        case 9:
            guard length >= 3 else { throw MessageFramingError(description: "an MQTT SUBACK without a return code") }
            return (end, .subscribeAcknowledged(granted: bytes[position + 2]))
        default:
            throw MessageFramingError(description: "an MQTT packet of type \(type), which a broker does not send")
        }
    }

    // MARK: What this harness sends

    /// CONNECT with a clean session, `keepAlive` seconds, and the user name and password when given.
    static func connect(clientID: String, keepAlive: UInt16, username: String?, password: String?) -> [UInt8] {
        var flags: UInt8 = 0x02
        var payload = string(clientID)
        if let username {
            flags |= 0x80
            payload += string(username)
        }
        if let password {
            flags |= 0x40
            payload += string(password)
        }
        let variable: [UInt8] = [0, 4] + Array("MQTT".utf8) + [4, flags, UInt8(keepAlive >> 8), UInt8(keepAlive & 0xFF)]
        return packet(0x10, variable + payload)
    }

    /// SUBSCRIBE to `topic` at `qos`, packet identifier 1.
    static func subscribe(topic: String, qos: UInt8) -> [UInt8] {
        packet(0x82, [0, 1] + string(topic) + [qos])
    }

    /// A PUBLISH of `payload` to `topic` at `qos`, and the offsets of its packet identifier (nil at QoS 0: it has
    /// none) and payload, to be rewritten per message.
    static func publish(topic: String, qos: UInt8, payload: [UInt8]) -> (bytes: [UInt8], packetIDOffset: Int?, payloadOffset: Int) {
        let head = string(topic) + (qos > 0 ? [0, 1] : [])
        let bytes = packet(0x30 | qos << 1, head + payload)
        let payloadOffset = bytes.count - payload.count
        return (bytes, qos > 0 ? payloadOffset - 2 : nil, payloadOffset)
    }

    /// PUBACK (0x40), PUBREC (0x50), PUBREL (0x62) or PUBCOMP (0x70) of `packetID`, added to what `outbox` owes.
    static func acknowledge(_ type: UInt8, _ packetID: UInt16, into outbox: inout SessionOutbox) {
        outbox.append(byte: type)
        outbox.append(byte: 2)
        outbox.append(byte: UInt8(packetID >> 8))
        outbox.append(byte: UInt8(packetID & 0xFF))
    }

    static let pingRequest: [UInt8] = [0xC0, 0]

    /// A length-prefixed UTF-8 string.
    private static func string(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8.prefix(65_535))
        return [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8
    }

    /// A fixed header of `first` and the remaining length, then `body`.
    private static func packet(_ first: UInt8, _ body: [UInt8]) -> [UInt8] {
        var length = body.count
        var header: [UInt8] = [first]
        repeat {
            var byte = UInt8(length & 0x7F)
            length >>= 7
            if length > 0 { byte |= 0x80 }
            header.append(byte)
        } while length > 0
        return header + body
    }

    /// What a CONNACK's return code means (MQTT 3.1.1, 3.2.2.3).
    static func refusal(_ returnCode: UInt8) -> String {
        let reasons = [
            1: "unacceptable protocol version", 2: "identifier rejected", 3: "server unavailable",
            4: "bad user name or password", 5: "not authorized",
        ]
        return "CONNACK refused the connection: \(reasons[Int(returnCode)] ?? "return code") (\(returnCode))"
    }
}
