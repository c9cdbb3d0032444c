import BenchCore
import CBenchLinux
import Glibc

/// One non-blocking connection in an event loop, over transport `T`: its socket, its transport's layers (TLS,
/// WebSocket), and a bounded queue for what the socket could not take yet. It carries bytes: what they mean is the
/// owner's protocol's.
///
/// A connection goes through states: connecting (a client's non-blocking connect), handshaking (TLS, WebSocket
/// Upgrade; nothing to do for plain TCP), open. Handshakes advance as bytes arrive, in the owner's event loop; no
/// call blocks. ``receiveBytes(_:count:_:)`` takes what one read returned and hands the owner the application's bytes,
/// unwrapped in place. ``send(_:stamped:)`` wraps a frame and writes it at once when nothing is
/// queued, which is the common case and costs one system call; when the socket takes only part or nothing, the rest
/// is queued and the connection asks its epoll for ``EpollEvents/writable``, and ``writeQueued()`` then drains it.
/// A frame is never split by the queue limit: it is queued whole or dropped whole. One thread uses a connection.
public final class Connection<T: Transport> {
    /// What became of a frame given to ``send(_:stamped:)``.
    public enum SendOutcome: Sendable, Equatable {
        /// The socket took it all.
        case written
        /// Some or all waits in the queue; it will go out in order.
        case queued
        /// The queue is full (the peer does not read): nothing was sent.
        case dropped
    }

    enum State {
        case connecting
        case handshaking
        case open
    }

    /// The socket's number, valid while ``isOpen``.
    public let descriptor: Int32
    /// The socket itself, closed (once) by ``close(code:)`` or, failing that, when the connection is released.
    private var socket: Descriptor?
    /// The owner's token for this connection in ``epoll``.
    public let token: UInt64
    /// The most bytes allowed to wait in the queue before whole frames are dropped.
    public let maximumQueuedBytes: Int
    /// When the connection began: the start of the client's connect, or the accept (monotonic ns).
    public let startedAt: UInt64
    /// The earliest its connect may end (monotonic ns; 0: as soon as the kernel's does): a connect through an emulated
    /// link takes its handshake's way there and back, which the kernel's on loopback does not. A writable event before
    /// then is set aside (the connection stops watching for it) until ``letConnectEnd()``.
    public var connectNotBefore: UInt64 = 0
    /// When its TCP connect completed (monotonic ns; ``startedAt`` for one accepted or connected at once); 0 until then.
    public internal(set) var connectedAt: UInt64 = 0
    /// When its stream's own handshake (TLS) ended, and the framing's (the WebSocket upgrade) began; 0 until then.
    public private(set) var streamEstablishedAt: UInt64 = 0
    /// When its transport's handshakes ended (monotonic ns); 0 until then.
    public private(set) var establishedAt: UInt64 = 0
    /// False once ``close(code:)`` ran.
    public private(set) var isOpen = true
    /// Wire bytes taken for sending, written or queued, since the connection began: the stream offset after the last
    /// byte sent so far, which is how the kernel keys transmit stamps.
    public internal(set) var bytesTaken: UInt64 = 0
    /// True for a server's connection that began with a 0 byte where ``TransportSettings/acceptsPlainPeers`` allows
    /// it: bench frames flow as they are, past the transport's layers (an agent's control connection).
    public private(set) var isPlain = false

    let epoll: Epoll
    /// With the io_uring engine: where this connection's reads arrive (its epoll then watches only for writable,
    /// errors and hang-ups), and the batch its writes go out in.
    let receiver: UringReceiver?
    let batch: SendBatch<T>?
    /// The serial of its armed receive (``UringReceiver/arm(_:token:)``), 0 before.
    var receiveSerial: UInt32 = 0
    /// Its bytes wait in ``batch`` for the next submission (its queue is empty meanwhile), and how many.
    var isStaged = false
    var stagedByteCount = 0
    var stream: T.Stream
    var framing: T.Framing
    var state: State
    var framingStarted = false
    /// Its first bytes decide whether it is plain (``isPlain``).
    var sniffing: Bool
    var outbound = OutboundQueue()
    var watchingWritable = false
    /// Room for a frame head, or a whole control frame of the transport's own; none where its framing writes
    /// nothing of its own (``FramingLayer/scratchSize``).
    let scratch: UnsafeMutableRawBufferPointer
    /// Behind an emulated link (`--link`): its paths and queues, and its loop's scheduler that wakes for their exits.
    var link: ConnectionLink?
    var linkScheduler: LinkScheduler<T>?
    /// Set for the one wire write that asks for a kernel transmit stamp.
    var stampNextWrite = false
    /// What the last wire write did, and the error that stopped it, for the layer that asked for it.
    var lastOutcome = SendOutcome.written
    var writeFailure: SystemError?

    /// Takes ownership of a socket, connected or (with `connecting`) with a non-blocking connect under way, and
    /// registers it with `epoll`. Call ``start()`` once it is connected (a connecting one starts itself when
    /// ``writeQueued()`` sees the connect finish).
    ///
    /// The descriptor belongs to the connection from the call on, even when this throws: it is closed then.
    public init(
        descriptor socket: consuming Descriptor,
        token: UInt64,
        epoll: Epoll,
        role: TransportRole,
        settings: TransportSettings,
        maximumQueuedBytes: Int,
        connecting: Bool = false,
        startedAt: UInt64 = MonotonicClock.now(),
        receiver: UringReceiver? = nil,
        batch: SendBatch<T>? = nil
    ) throws(ConnectionError) {
        do {
            let interest = Self.readInterest(with: receiver)
            try epoll.add(socket.rawValue, interest: connecting ? interest.union(.writable) : interest, token: token)
        } catch {
            throw .system(error)
        }
        self.stream = try T.Stream(role: role, settings: settings)
        self.framing = try T.Framing(role: role, settings: settings)
        self.descriptor = socket.rawValue
        self.socket = consume socket
        self.token = token
        self.epoll = epoll
        self.receiver = receiver
        self.batch = batch
        self.maximumQueuedBytes = maximumQueuedBytes
        self.startedAt = startedAt
        self.connectedAt = connecting ? 0 : startedAt
        self.state = connecting ? .connecting : .handshaking
        self.watchingWritable = connecting
        self.sniffing = settings.acceptsPlainPeers && role == .server
        self.scratch = T.Framing.scratchSize > 0
            ? .allocate(byteCount: T.Framing.scratchSize, alignment: 8) : UnsafeMutableRawBufferPointer(start: nil, count: 0)
        if !connecting { armReceive() }
    }

    deinit {
        if scratch.baseAddress != nil { scratch.deallocate() }
        if let slot = link?.slot, slot >= 0 { linkScheduler?.unregister(slot) }
    }

    /// Bytes waiting to be written.
    public var queuedByteCount: Int { waiting }

    /// Bytes waiting to go: the queue's, and behind a link, what its uplink holds past TCP's window
    /// (``ConnectionLink/backlog``), as a socket's full buffer would leave in the queue.
    @inline(__always) var waiting: Int { link == nil ? outbound.count : outbound.count + link!.backlog }

    /// True once every handshake is done, while the connection is open: the application's bytes can flow.
    public var isEstablished: Bool { isOpen && state == .open }

    /// True when its reads arrive through io_uring's provided buffers, which cut the stream routinely.
    public var readsFromRing: Bool { receiver != nil }

    /// WebSocket pings the peer sent (each answered with a pong).
    public var pingsReceived: Int { framing.pingsReceived }

    /// Starts the transport's handshakes on a connected socket: a client sends its TLS hello or Upgrade request.
    public func start() throws(ConnectionError) {
        guard state == .handshaking else { return }
        try stream.start(writeWire)
        try check()
        try advanceHandshake()
    }

    /// Why the peer refused this client's handshake, when it did and its reason was still coming: what a close by the
    /// peer then means (a server that announces a reason and closes before sending it all).
    public var handshakeRefusal: String? { framing.pendingRefusal }

    /// Takes `buffer[0..<count]`, what one ``read(into:stamps:)`` returned: advances the handshakes, answers the
    /// transport's own frames (pings, close), and hands `onBytes` the application's bytes as the transport unwrapped
    /// them, in place (the callee may change them), with `endsMessage` true (and no bytes) at the end of each WebSocket
    /// message. What the bytes mean is the caller's protocol's: a connection knows no application frame. The buffer's
    /// bytes past `count` may be used for decrypted ones.
    ///
    /// - Returns: False when `onBytes` asked to stop or the connection was closed meanwhile; the rest is dropped.
    /// - Throws: ``ConnectionError`` on anything the peer got wrong at the transport's layers, or an orderly close by
    ///   the peer (``ConnectionError/closedByPeer(_:)``); the owner then closes the connection.
    @inline(__always)
    public func receiveBytes(
        _ buffer: UnsafeMutableRawBufferPointer, count: Int,
        _ onBytes: (UnsafeMutableRawBufferPointer, _ endsMessage: Bool) -> Bool
    ) throws(ConnectionError) -> Bool {
        if sniffing { sniff(buffer, count: count) }
        if isPlain {
            return count == 0 || (onBytes(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), false) && isOpen)
        }
        var remaining = count
        while let plaintext = try stream.nextPlaintext(in: buffer, count: &remaining, write: writeWire) {
            try advanceHandshake()
            var offset = 0
            while let output = try framing.unwrap(plaintext, offset: &offset, reply: writeLayer) {
                try check()
                try advanceHandshake()  // the Upgrade's answer and the first message may come in one read
                let proceed: Bool
                switch output {
                case .data(let bytes): proceed = onBytes(bytes, false)
                case .messageEnd: proceed = onBytes(UnsafeMutableRawBufferPointer(start: nil, count: 0), true)
                }
                guard proceed, isOpen else { return false }
            }
            try check()
            try advanceHandshake()
        }
        try check()
        try advanceHandshake()
        return true
    }

    /// Wraps and sends one bench frame, or more, now if possible and otherwise through the queue. The transport
    /// may change `frame`'s bytes (a WebSocket client masks them).
    ///
    /// - Parameter stamped: Ask the kernel for a transmit stamp of this send (on a socket prepared with
    ///   ``KernelTimestamps/enable(on:transmit:)``). Bytes that wait in the queue go out unstamped.
    /// - Throws: ``SystemError`` when the peer is gone (`EPIPE`, `ECONNRESET`); the owner closes the connection.
    @inline(__always)
    public func send(_ frame: UnsafeMutableRawBufferPointer, stamped: Bool = false) throws(SystemError) -> SendOutcome {
        try send(frame, stamped: stamped, limit: maximumQueuedBytes)
    }

    /// Sends what a protocol owes the peer (an acknowledgement, a pong, a subscription) as ``send(_:stamped:)`` does,
    /// but past the messages' limit: up to the queue's hard cap, as the transport's own control bytes go (a queue full
    /// of messages is backpressure, not a reason to leave the protocol's state apart from the peer's); `.dropped` only
    /// beyond that.
    public func sendOwed(_ bytes: UnsafeMutableRawBufferPointer) throws(SystemError) -> SendOutcome {
        try send(bytes, stamped: false, limit: Self.hardLimit(maximumQueuedBytes))
    }

    @inline(__always)
    private func send(_ frame: UnsafeMutableRawBufferPointer, stamped: Bool, limit: Int) throws(SystemError) -> SendOutcome {
        guard isOpen else { throw SystemError("send (the connection is closed)", errno: ENOTCONN) }
        // Bytes that only wait for the batch's submission are not a peer that does not read: they go first, and what
        // the socket did not take of them is queued, then counted.
        if isStaged && stagedByteCount + frame.count > maximumQueuedBytes { batch?.flush() }
        let waiting = self.waiting
        guard waiting == 0 || waiting + frame.count <= limit, framing.admits(frame.count) else { return .dropped }
        let headSize = isPlain ? 0 : framing.head(for: frame, into: scratch)
        stampNextWrite = stamped
        let head = UnsafeRawBufferPointer(rebasing: scratch[0..<headSize])
        let sent = isPlain
            ? writeWire(head, UnsafeRawBufferPointer(frame))
            : stream.send(head: head, body: UnsafeRawBufferPointer(frame), write: writeWire)
        stampNextWrite = false
        if let writeFailure { throw writeFailure }
        // The stream layer failed before any write (TLS could not encrypt): nothing went out.
        guard sent else { throw SystemError("send (TLS could not encrypt the frame)", errno: EIO) }
        return lastOutcome
    }

    /// Closes the socket (which also removes it from the epoll), after the transport's orderly close (a WebSocket
    /// close frame with `code`) when the socket can take it at once. Safe to call twice.
    public func close(code: UInt16 = WebSocketCloseCode.normal) {
        guard isOpen else { return }
        if isStaged { batch?.flush() }
        if state == .open && outbound.isEmpty && !isPlain {
            let size = framing.close(code: code, into: scratch)
            if size > 0 { _ = writeLayer(UnsafeRawBufferPointer(rebasing: scratch[0..<size])) }
            stream.close(writeWire)
        }
        isOpen = false
        if isStaged { batch?.flush() }  // its last bytes go before the descriptor does
        if let receiver, receiveSerial != 0 { receiver.cancel(token: token, serial: receiveSerial) }
        if link != nil, closeLink(), let forgotten = socket.take() {
            try? epoll.remove(descriptor)
            linkScheduler?.keep(forgotten)
        } else {
            socket.take()?.close()
        }
    }

    /// The first bytes of a server's connection that may be plain: a 0 byte first makes it so, and open at once.
    private func sniff(_ buffer: UnsafeMutableRawBufferPointer, count: Int) {
        guard count > 0 else { return }
        sniffing = false
        guard buffer[0] == 0, state == .handshaking else { return }
        isPlain = true
        state = .open
        establishedAt = MonotonicClock.now()
        streamEstablishedAt = establishedAt
    }

    /// Starts the framing layer once the stream is established, and marks the connection open once both are.
    @inline(__always)
    func advanceHandshake() throws(ConnectionError) {
        guard state == .handshaking, stream.isEstablished else { return }
        if !framingStarted {
            framingStarted = true
            streamEstablishedAt = MonotonicClock.now()
            try framing.start(writeLayer)
            try check()
        }
        if framing.isEstablished {
            state = .open
            establishedAt = MonotonicClock.now()
        }
    }

    /// Throws the error a layer's write met.
    @inline(__always)
    func check() throws(ConnectionError) {
        if let writeFailure { throw .system(writeFailure) }
    }
}
