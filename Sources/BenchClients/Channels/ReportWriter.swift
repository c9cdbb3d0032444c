import BenchCore
import BenchNet
import Synchronization

/// The writing end of a channel from a thread of a run's clients to the run: what they received (read reports,
/// ``FrameKind/read``), their ``ClientReport``s and, in roundtrip, their ``SendReport``s, gathered in one buffer and
/// written with one blocking call per pass of their event loop (never one per message). A measuring thread that falls
/// behind holds the clients' thread back; its stamps were taken before. Writers that share a socket (an agent's threads
/// and its clock rounds on its control connection) share a ``SocketWriteLock``: one lock per write, never per message.
/// The built-in server's clients in this process write to memory instead (``init()``), read once they ended
/// (``collected``).
public final class ReportWriter {
    /// The channel's socket; nil: memory.
    let descriptor: Int32?
    private let lock: SocketWriteLock?
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0
    /// What a writer to memory was given, flush by flush.
    public private(set) var collected: [UInt8] = []
    /// The channel failed (the measuring thread is gone): nothing more is written.
    private(set) var isBroken = false

    public init(descriptor: Int32, lock: SocketWriteLock? = nil) {
        self.descriptor = descriptor
        self.lock = lock
        buffer = .allocate(byteCount: 64 << 10, alignment: 8)
    }

    /// A writer whose reports stay in this process, in ``collected``.
    public init() {
        descriptor = nil
        lock = nil
        buffer = .allocate(byteCount: 4 << 10, alignment: 8)
    }

    deinit {
        buffer.deallocate()
    }

    /// A broadcast `sequence` was read by `client` at `received` (the kernel's stamp `receivedKernel`, or 0).
    @inline(__always)
    func received(sequence: UInt32, client: UInt32, at received: UInt64, kernel receivedKernel: UInt64) {
        makeRoom(WireFormat.minimumMessageSize)
        Frame.encodeMessage(
            into: UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + WireFormat.minimumMessageSize]),
            kind: .read, sequence: sequence, client: client, sentNanoseconds: 0, receivedNanoseconds: received,
            receivedKernelNanoseconds: receivedKernel)
        used += WireFormat.minimumMessageSize
    }

    /// Chat: `member` read `sender`'s message `sequence` at `received` (the kernel's stamp `receivedKernel`, or 0).
    @inline(__always)
    func delivered(sequence: UInt32, sender: UInt32, member: UInt32, at received: UInt64, kernel receivedKernel: UInt64) {
        makeRoom(WireFormat.minimumMessageSize)
        Frame.encodeMessage(
            into: UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + WireFormat.minimumMessageSize]),
            kind: .delivery, sequence: sequence, client: member, sentNanoseconds: UInt64(sender),
            receivedNanoseconds: received, receivedKernelNanoseconds: receivedKernel)
        used += WireFormat.minimumMessageSize
    }

    /// What became of a message the client was ordered to send (roundtrip and chat).
    @inline(__always)
    func sent(_ report: SendReport) {
        makeRoom(SendReport.size)
        report.encode(into: UnsafeMutableRawBufferPointer(rebasing: buffer[used..<used + SendReport.size]))
        used += SendReport.size
    }

    public func report(_ report: ClientReport) {
        makeRoom(WireFormat.clientReportMaximumSize)
        used += report.encode(into: UnsafeMutableRawBufferPointer(rebasing: buffer[used...]))
    }

    /// Writes what was gathered.
    public func flush() {
        guard used > 0, !isBroken else { return used = 0 }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<used])
        guard let descriptor else {
            collected.append(contentsOf: bytes)
            return used = 0
        }
        do throws(SystemError) {
            if let lock { try lock.send(bytes, on: descriptor) } else { try Posix.sendAll(descriptor, bytes) }
        } catch {
            isBroken = true
        }
        used = 0
    }

    private func makeRoom(_ bytes: Int) {
        if buffer.count - used < bytes { flush() }
    }
}

/// Whole writes to a socket several threads write to, one at a time, so that frames do not interleave.
public final class SocketWriteLock: Sendable {
    private let mutex = Mutex(())

    public init() {}

    /// Writes all of `bytes` to the blocking `socket` while holding the lock.
    public func send(_ bytes: UnsafeRawBufferPointer, on socket: Int32) throws(SystemError) {
        try mutex.withLock { _ throws(SystemError) in try Posix.sendAll(socket, bytes) }
    }
}
