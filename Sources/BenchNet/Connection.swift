import BenchCore
import CBenchLinux
import Glibc

/// One non-blocking TCP connection in an event loop: its descriptor, the decoder for what it receives, and
/// a bounded queue for what the socket could not take yet.
///
/// ``send(_:)`` writes at once when nothing is queued, which is the common case and costs one system call.
/// When the socket takes only part or nothing, the rest is queued and the connection asks its epoll for
/// ``EpollEvents/writable``; ``writeQueued()`` then drains it. A frame is never split by the queue limit: it
/// is queued whole or dropped whole. One thread uses a connection.
public final class Connection {
    /// What became of the bytes given to ``send(_:)``.
    public enum SendOutcome: Sendable, Equatable {
        /// The socket took them all.
        case written
        /// Some or all wait in the queue; they will go out in order.
        case queued
        /// The queue is full (the peer does not read): nothing was sent.
        case dropped
    }

    /// The socket.
    public let descriptor: Int32
    /// The owner's token for this connection in ``epoll``.
    public let token: UInt64
    /// Decodes what this connection receives.
    public var decoder: FrameDecoder
    /// The most bytes allowed to wait in the queue before whole frames are dropped.
    public let maximumQueuedBytes: Int

    private let epoll: Epoll
    private var outbound = OutboundQueue()
    private var watchingWritable = false
    /// False once ``close()`` ran.
    public private(set) var isOpen = true
    /// Bytes taken for sending, written or queued, since the connection began: the stream offset after the last
    /// byte sent so far, which is how the kernel keys transmit stamps.
    public private(set) var bytesTaken: UInt64 = 0

    /// Takes ownership of a connected non-blocking socket and registers it with `epoll` for reading.
    ///
    /// The descriptor belongs to the connection from the call on, even when this throws: it is closed then,
    /// exactly once, and the caller must not close it.
    public init(
        descriptor: Int32,
        token: UInt64,
        epoll: Epoll,
        maximumFrameSize: Int,
        maximumQueuedBytes: Int
    ) throws(SystemError) {
        do {
            try epoll.add(descriptor, interest: .readable, token: token)
        } catch {
            Posix.close(descriptor)  // no instance exists yet, so no deinit closes it again
            throw error
        }
        self.descriptor = descriptor
        self.token = token
        self.epoll = epoll
        self.decoder = FrameDecoder(maximumFrameSize: maximumFrameSize)
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    deinit {
        if isOpen { Posix.close(descriptor) }
    }

    /// Bytes waiting to be written.
    public var queuedByteCount: Int { outbound.count }

    /// Reads once into `buffer`, with the kernel's receive stamp of what it read when `stamps` is given (0
    /// otherwise, or when the kernel gave none). `.processed((0, _))` means the peer closed.
    @inline(__always)
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps? = nil
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        if let stamps { return try stamps.receive(descriptor, into: buffer) }
        guard case .processed(let count) = try Posix.read(descriptor, into: buffer) else { return .wouldBlock }
        return .processed((count, 0))
    }

    /// Sends `bytes`, one whole frame or more, now if possible and otherwise through the queue.
    ///
    /// - Parameter stamped: Ask the kernel for a transmit stamp of this send (on a socket prepared with
    ///   ``KernelTimestamps/enable(on:transmit:)``). Bytes that wait in the queue go out unstamped.
    /// - Throws: ``SystemError`` when the peer is gone (`EPIPE`, `ECONNRESET`); the caller closes the connection.
    @inline(__always)
    public func send(_ bytes: UnsafeRawBufferPointer, stamped: Bool = false) throws(SystemError) -> SendOutcome {
        guard outbound.isEmpty else {
            guard outbound.count + bytes.count <= maximumQueuedBytes else { return .dropped }
            outbound.append(bytes)
            bytesTaken += UInt64(bytes.count)
            return .queued
        }
        let result = try Posix.nonBlockingCall("send") {
            stamped
                ? CBench_sendStamped(descriptor, bytes.baseAddress, UInt(bytes.count))
                : Glibc.send(descriptor, bytes.baseAddress, bytes.count, CBenchMSG_NOSIGNAL)
        }
        bytesTaken += UInt64(bytes.count)
        var written = 0
        if case .processed(let count) = result {
            if count == bytes.count { return .written }
            written = count
        }
        outbound.append(UnsafeRawBufferPointer(rebasing: bytes[written...]))
        try watchWritable(true)
        return .queued
    }

    /// Writes what the queue holds, as far as the socket takes it; call on ``EpollEvents/writable``.
    public func writeQueued() throws(SystemError) {
        let descriptor = self.descriptor
        let result = outbound.withWaitingBytes { bytes in
            Result { () throws(SystemError) in
                try Posix.nonBlockingCall("send") {
                    Glibc.send(descriptor, bytes.baseAddress, bytes.count, CBenchMSG_NOSIGNAL)
                }
            }
        }
        if case .processed(let count) = try result.get() { outbound.removeFirst(count) }
        if outbound.isEmpty { try watchWritable(false) }
    }

    /// Closes the socket (which also removes it from the epoll). Safe to call twice.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        Posix.close(descriptor)
    }

    private func watchWritable(_ watch: Bool) throws(SystemError) {
        guard watch != watchingWritable else { return }
        watchingWritable = watch
        try epoll.modify(descriptor, interest: watch ? [.readable, .writable] : .readable, token: token)
    }
}
