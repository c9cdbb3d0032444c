import BenchCore
import BenchNet
import BenchProtocols

/// A fan-out target run's publisher: one connection to the user's server (an sse:// target's to `--publish-url`), its
/// protocol session, and the published message, rewritten in place for each broadcast (marker, MQTT's packet
/// identifier, stx's CRC) from a copy made once: no allocation per broadcast.
final class TargetPublisher<T: Transport> {
    /// The connection, once its connect started.
    private(set) var connection: Connection<T>?
    let session: ProtocolSession
    /// The connection's handshakes are done (its greeting is then sent).
    var isEstablished = false
    /// With kernel stamps: the broadcasts published that wait for their transmit stamp.
    var transmitStamps: TransmitStampQueue?
    /// The protocol's keepalive (MQTT's PINGREQ): when next.
    var nextKeepAlive: UInt64 = 0
    /// Closed loop: after a publish the server did not take, the next waits until then.
    var pausedUntil: UInt64 = 0
    private let publication: Publication
    private let markerOffset: Int
    private let outgoing: UnsafeMutableRawBufferPointer

    init(_ configuration: RunConfiguration, protocol kind: ServerProtocol, stampsTransmits: Bool) {
        session = ProtocolSession(kind, role: .publisher, maximumMessageSize: max(64 << 10, 4 * configuration.payload))
        let payload = (configuration.target?.publishTemplate ?? .bare).expand(size: configuration.payload)
        publication = session.machine.publication(of: payload.bytes)
        markerOffset = publication.payloadOffset + payload.markerOffset
        outgoing = .allocate(byteCount: publication.bytes.count, alignment: 8)
        transmitStamps = stampsTransmits ? TransmitStampQueue() : nil
    }

    deinit {
        outgoing.deallocate()
    }

    var isOpen: Bool { connection?.isOpen == true }

    /// Connected, greeted and, where the protocol confirms it, accepted: broadcasts may go.
    var isReady: Bool { isEstablished && session.isReady }

    /// Starts the connect to `address` (its kernel transmit stamps on before any byte, so that their offsets count
    /// from the first one).
    func open(
        to address: SocketAddress, epoll: Epoll, token: UInt64, settings: TransportSettings, maximumQueuedBytes: Int,
        stamps: KernelTimestamps?
    ) throws {
        let socket = try TCPSocket.startConnecting(to: address)
        try? stamps?.enable(on: socket.rawValue, transmit: true)
        connection = try Connection<T>(
            descriptor: socket, token: token, epoll: epoll, role: .client, settings: settings,
            maximumQueuedBytes: maximumQueuedBytes, connecting: true)
    }

    /// The message of broadcast `sequence` of run `token` (from client id `publisherID`), ready to send.
    @inline(__always)
    func message(sequence: Int, token: UInt64, publisherID: Int) -> UnsafeMutableRawBufferPointer {
        publication.bytes.withUnsafeBytes { outgoing.copyMemory(from: $0) }  // a WebSocket client masked the last in place
        publication.mark(outgoing, with: Marker(run: token, client: UInt32(publisherID), sequence: UInt32(sequence)), at: markerOffset)
        return outgoing
    }

    /// Closes the connection (on WebSocket with the status `code`); false when it was not open.
    func close(code: UInt16 = WebSocketCloseCode.normal) -> Bool {
        guard let connection, connection.isOpen else { return false }
        connection.close(code: code)
        return true
    }
}
