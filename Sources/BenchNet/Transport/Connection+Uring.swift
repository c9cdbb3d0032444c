import BenchCore
import Glibc

/// Reading a connection, and a connection under the io_uring engine: its reads arrive through the loop's
/// ``UringReceiver`` and its writes wait in the loop's ``SendBatch`` (see `BenchNet/Uring/`).
extension Connection {
    /// What a connection's epoll watches besides writable: readable, unless io_uring's receive (`receiver`) reads it
    /// (then only errors and hang-ups, which epoll always reports).
    static func readInterest(with receiver: UringReceiver?) -> EpollEvents { receiver == nil ? .readable : [] }

    /// Reads once into `buffer`, with the kernel's receive stamp of what it read when `stamps` is given (0
    /// otherwise, or when the kernel gave none). `.processed((0, _))` means the peer closed. With the io_uring
    /// engine, takes the bytes of the completion its loop is handling instead (and the ring's stamp); `buffer` must
    /// hold a provided buffer (64 KiB does).
    @inline(__always)
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps? = nil
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        if link != nil { return try readThroughLink(into: buffer, stamps: stamps) }
        if let receiver {  // io_uring read it already: the bytes of the completion being handled, if they are ours
            var ended = false
            let result = try receiver.take(token: token, serial: receiveSerial, into: buffer, ended: &ended)
            if ended && isOpen { armReceive() }
            return result
        }
        if let stamps { return try stamps.receive(descriptor, into: buffer) }
        guard case .processed(let count) = try Posix.read(descriptor, into: buffer) else { return .wouldBlock }
        return .processed((count, 0))
    }

    /// With the io_uring engine: arms the multishot receive of this connection (once connected).
    func armReceive() {
        guard let receiver else { return }
        receiveSerial = receiver.arm(descriptor, token: token)
    }

    /// What the socket took of `bytes`, which ``SendBatch/flush()`` submitted for this connection (a negative errno
    /// when it failed): the rest moves to its queue and waits for epoll to say writable; a failure is thrown by the
    /// next send.
    func settleBatchedSend(_ result: Int32, of bytes: UnsafeRawBufferPointer) {
        (isStaged, stagedByteCount) = (false, 0)
        guard result >= 0 || result == -EAGAIN else {
            if writeFailure == nil { writeFailure = SystemError("send (io_uring)", errno: -result) }
            return
        }
        let taken = max(0, min(Int(result), bytes.count))
        guard taken < bytes.count else { return }
        outbound.append(UnsafeRawBufferPointer(rebasing: bytes[taken...]))
        do {
            try watchWritable(true)
        } catch {
            writeFailure = error
        }
    }
}
