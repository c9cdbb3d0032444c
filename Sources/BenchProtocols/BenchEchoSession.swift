import BenchCore

/// The built-in server's own protocol, a simulated client's side, as a state machine over the bytes its stream layers
/// unwrapped: bench frames in (``received(_:endsMessage:readAt:kernel:)``), what the client owes the server out, in its
/// ``outbox``: its hello once connected, a heartbeat when one is due, and for every data frame its echo, stamped with
/// the time the read returned (and the kernel's receive stamp). Each goes as a write of its own, so the server reads
/// them as it always did. The outbox may be shared by the sessions of a thread (``SharedOutbox``), drained after each
/// event. The server's goodbye ends the run (``heardGoodbye``). No sockets: tested with bytes alone,
/// split at every point.
public final class BenchEchoSession {
    /// The client this connection is.
    public let client: UInt32
    /// The run's token, said in the hello.
    private let token: UInt64
    private var decoder: FrameDecoder
    private let maximumFrameSize: Int
    private let readsFromRing: Bool
    /// What the client owes the server; the owner sends each write and empties it after each event.
    public let outbox: SharedOutbox
    /// The server said goodbye: the run is over, and the close that follows is its end, not a drop.
    public private(set) var heardGoodbye = false

    /// Client `client`'s session in the run with `token`, refusing frames over `maximumFrameSize` bytes (the run's
    /// message size); `readsFromRing` when its reads come through io_uring, which cuts the stream routinely (room for a
    /// cut frame is then set aside now, not in the middle of the run). What it owes goes to `outbox` (by default one of
    /// its own, for a read of `readSize` bytes).
    public init(
        client: UInt32, token: UInt64, maximumFrameSize: Int, readsFromRing: Bool, outbox: SharedOutbox? = nil
    ) {
        (self.client, self.token, self.maximumFrameSize, self.readsFromRing) = (client, token, maximumFrameSize, readsFromRing)
        decoder = Self.decoder(maximumFrameSize: maximumFrameSize, readsFromRing: readsFromRing)
        self.outbox = outbox ?? Self.outbox(maximumFrameSize: maximumFrameSize, readSize: 2 * maximumFrameSize)
    }

    /// An outbox for what one read of at most `readSize` bytes can owe: the echoes of every frame in it, of the one
    /// cut before it and of a TLS record begun in an earlier read (up to 16 KiB more plaintext), and a hello or
    /// heartbeat (at least the smallest message each), so that it never grows.
    public static func outbox(maximumFrameSize: Int, readSize: Int) -> SharedOutbox {
        let plaintext = readSize + Self.largestTLSRecord
        let frames = plaintext / WireFormat.minimumMessageSize + 2
        return SharedOutbox(capacity: plaintext + maximumFrameSize + WireFormat.helloFrameSize, messages: frames)
    }

    /// The most plaintext a TLS record holds (RFC 8446, 5.1).
    static let largestTLSRecord = 16 << 10

    private static func decoder(maximumFrameSize: Int, readsFromRing: Bool) -> FrameDecoder {
        FrameDecoder(
            maximumFrameSize: maximumFrameSize,
            pendingCapacity: readsFromRing ? FrameDecoder.ringCutCapacity(frameSize: maximumFrameSize) : 0)
    }

    /// A new connection of the same client (a reconnect): nothing of the last one is carried over.
    public func restart() {
        if decoder.bufferedByteCount > 0 {
            decoder = Self.decoder(maximumFrameSize: maximumFrameSize, readsFromRing: readsFromRing)
        }
        outbox.removeAll()
        heardGoodbye = false
    }

    /// The connection's handshakes ended: its hello goes to the outbox.
    public func connected() {
        withFrame(size: WireFormat.helloFrameSize) { Frame.encodeHello(into: $0, client: client, token: token) }
    }

    /// A heartbeat is due (where the transport has no ping of its own): its frame goes to the outbox.
    public func heartbeat() {
        withFrame(size: WireFormat.heartbeatFrameSize) { Frame.encodeHeartbeat(into: $0, client: client) }
    }

    /// Takes bytes the stream layers unwrapped, read at `now` (stamped `kernel` by the kernel; 0: none); every data
    /// frame's echo goes to the outbox, stamped with those times. `endsMessage`: a message of a message-oriented layer
    /// (WebSocket) ended with them, which must not be inside a frame.
    ///
    /// - Returns: False once the server said goodbye: the rest is not read.
    /// - Throws: ``BenchEchoError`` on a frame the server got wrong or must not send to a client.
    @inline(__always)
    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, readAt now: UInt64, kernel: UInt64
    ) throws(BenchEchoError) -> Bool {
        guard !heardGoodbye else { return false }
        var unexpected: FrameKind?
        let proceed: Bool
        do throws(FrameError) {
            if endsMessage {
                try decoder.messageEnded()
                return true
            }
            proceed = try decoder.decode(bytes) { frame in
                guard frame.kind == .data else {
                    if frame.kind == .goodbye { heardGoodbye = true } else { unexpected = frame.kind }
                    return false
                }
                frame.convertToEcho(receivedNanoseconds: now, receivedKernelNanoseconds: kernel)
                outbox.append(message: UnsafeRawBufferPointer(frame.bytes))
                return true
            }
        } catch {
            throw .frame(error)
        }
        if let unexpected { throw .unexpected(unexpected) }
        return proceed
    }

    private func withFrame(size: Int, _ encode: (UnsafeMutableRawBufferPointer) -> Frame) {
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
            outbox.append(message: UnsafeRawBufferPointer(encode(buffer).bytes))
        }
    }
}

/// What a simulated client of the built-in server cannot take from it.
public enum BenchEchoError: Error, Equatable, CustomStringConvertible {
    /// A frame whose header is not a valid frame, or a message that ended inside one.
    case frame(FrameError)
    /// A valid frame of a kind the server does not send a client (a hello, an echo).
    case unexpected(FrameKind)

    public var description: String {
        switch self {
        case .frame(let error): "\(error)"
        case .unexpected(let kind): "the server sent \(kind.withArticle) frame"
        }
    }
}
