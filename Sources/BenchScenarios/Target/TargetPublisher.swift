import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

/// A fan-out target run's publisher: one connection to the user's server (an sse:// target's to `--publish-url`), its
/// protocol session, and the published message, rewritten in place for each broadcast (marker, MQTT's packet
/// identifier, stx's CRC) from a copy made once: no allocation per broadcast.
final class TargetPublisher<T: Transport> {
    /// The connection, once its connect started.
    private(set) var connection: Connection<T>?
    /// Its protocol session: a new one for each connection.
    private(set) var session: ProtocolSession
    private let speech: ServerProtocol
    private let maximumMessageSize: Int
    /// `--reconnect`: when the publisher tries again after its connection closed during the run; nil: it does not.
    var reconnects: ReconnectSchedule?
    /// It used its tries and stays away.
    var gaveUp = false
    /// While it is away during the run: when its connection closed (0: it is not away).
    var awaySince: UInt64 = 0
    /// The connection's handshakes are done (its greeting is then sent).
    var isEstablished = false
    /// Its connects started so far (each connection's name counts them, ``ProtocolSession/connectionName(_:connect:)``).
    private(set) var connectsStarted = 0
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
        speech = kind
        maximumMessageSize = max(64 << 10, 4 * configuration.payload)
        session = ProtocolSession(kind, role: .publisher, maximumMessageSize: maximumMessageSize)
        reconnects = configuration.reconnect.map {
            ReconnectSchedule($0, seed: configuration.seed, firstClient: configuration.clients, count: 1)
        }
        let payload = (configuration.target?.publishTemplate ?? .bare).expand(size: configuration.payload)
        (publication, markerOffset) = session.machine.publication(of: payload.bytes, markerAt: payload.markerOffset)
        outgoing = .allocate(byteCount: publication.bytes.count, alignment: 8)
        transmitStamps = stampsTransmits ? TransmitStampQueue() : nil
    }

    deinit {
        outgoing.deallocate()
    }

    var isOpen: Bool { connection?.isOpen == true }

    /// Its connection closed, but it tries again (`--reconnect`) and has not given up.
    var mayReturn: Bool { reconnects != nil && !gaveUp }

    /// Forgets the closed connection and its session, for a new connect (``open(to:epoll:token:settings:maximumQueuedBytes:stamps:)``).
    func startOver() {
        precondition(!isOpen, "the publisher has one connection at a time")
        connection = nil
        isEstablished = false
        session = ProtocolSession(speech, role: .publisher, maximumMessageSize: maximumMessageSize)
        if transmitStamps != nil { transmitStamps = TransmitStampQueue() }  // their offsets count from the new connection
    }

    /// Connected (and not closed since), greeted and, where the protocol confirms it, accepted: broadcasts may go.
    var isReady: Bool { isOpen && isEstablished && session.isReady }

    /// Starts the connect to `address` (its kernel transmit stamps on before any byte, so that their offsets count
    /// from the first one).
    func open(
        to address: SocketAddress, epoll: Epoll, token: UInt64, settings: TransportSettings, maximumQueuedBytes: Int,
        stamps: KernelTimestamps?
    ) throws {
        connection = try Connection<T>.connecting(
            to: address, token: token, epoll: epoll, settings: settings, maximumQueuedBytes: maximumQueuedBytes,
            stamps: stamps, transmitStamps: true)
        connectsStarted += 1
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
