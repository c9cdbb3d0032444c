import BenchCore
import Glibc

/// A connection under the io_uring engine: its reads arrive through the loop's ``UringReceiver`` and its writes wait
/// in the loop's ``SendBatch`` (see `BenchNet/Uring/`).
extension Connection {
    /// What a connection's epoll watches besides writable: readable, unless io_uring's receive (`receiver`) reads it
    /// (then only errors and hang-ups, which epoll always reports).
    static func readInterest(with receiver: UringReceiver?) -> EpollEvents { receiver == nil ? .readable : [] }

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
