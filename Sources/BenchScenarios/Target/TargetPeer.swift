import BenchCore
import BenchNet

/// One connection to a user's server, with what it needs per message: the message it sends (rewritten for each send,
/// no allocation), and the cutting of what comes back into messages (by `--framing`, or WebSocket messages).
final class TargetPeer<T: Transport> {
    let connection: Connection<T>
    private let framing: MessageFraming?
    /// The message as it goes on the wire (framed for tcp targets; the WebSocket layer frames ws ones).
    private let message: UnsafeMutableRawBufferPointer
    private var decoder: MessageDecoder?
    /// A WebSocket message as its pieces arrive, until its end.
    private var assembly: [UInt8] = []
    private let maximumMessageSize: Int
    /// With kernel stamps: the messages sent that wait for their transmit stamp.
    var transmitStamps: TransmitStampQueue?

    init(
        connection: Connection<T>, configuration: RunConfiguration, framing: MessageFraming?, stampsTransmits: Bool = false
    ) throws(SystemError) {
        self.connection = connection
        self.transmitStamps = stampsTransmits ? TransmitStampQueue() : nil
        self.framing = framing
        self.message = .allocate(byteCount: configuration.payload, alignment: 8)
        message.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"))
        self.maximumMessageSize = max(64 << 10, 4 * configuration.payload)
        self.decoder = framing.map { MessageDecoder(framing: $0, maximumMessageSize: maximumMessageSize) }
        if framing == nil { assembly.reserveCapacity(configuration.payload) }
    }

    deinit {
        message.deallocate()
    }

    /// Message `index` was just sent (or queued); its transmit stamp will come keyed by the offset of its last byte.
    func expectTransmitStamp(ofMessage index: Int) {
        _ = transmitStamps?.expect(message: index, lastByte: connection.bytesTaken &- 1)
    }

    /// The message carrying `marker`, ready to send: marker, padding and framing rewritten (a WebSocket client
    /// masks the bytes it sent in place).
    @inline(__always)
    func prepare(_ marker: Marker) -> UnsafeMutableRawBufferPointer {
        let header = framing?.headerSize ?? 0
        let trailer = framing?.trailerSize ?? 0
        let body = UnsafeMutableRawBufferPointer(rebasing: message[header..<message.count - trailer])
        marker.write(into: body)
        if framing == nil || framing == .stx {  // masking changed the padding, and stx's CRC covers it
            UnsafeMutableRawBufferPointer(rebasing: body[Marker.size...]).initializeMemory(
                as: UInt8.self, repeating: UInt8(ascii: "x"))
        }
        framing?.frame(message)
        return message
    }

    /// Cuts the unwrapped bytes of a read into messages and hands each to `onMessage`.
    @inline(__always)
    func messages(
        in bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ onMessage: (UnsafeRawBufferPointer) -> Void
    ) throws(MessageFramingError) {
        if decoder != nil {
            try decoder!.decode(bytes) { body in
                onMessage(UnsafeRawBufferPointer(body))
                return true
            }
            return
        }
        if endsMessage {
            assembly.withUnsafeBytes { onMessage($0) }
            assembly.removeAll(keepingCapacity: true)
            return
        }
        guard assembly.count + bytes.count <= maximumMessageSize else {
            throw MessageFramingError(description: "a WebSocket message of more than \(maximumMessageSize) bytes")
        }
        assembly.append(contentsOf: UnsafeRawBufferPointer(bytes))
    }
}
