import CBenchLinux
import Glibc

/// What a non-blocking call did: moved some bytes (or succeeded), or would have had to wait.
public enum IOResult<Value: Sendable>: Sendable {
    case processed(Value)
    case wouldBlock
}

/// Every system call the harness makes, in one place.
///
/// Each wrapper retries `EINTR`, reports `EAGAIN`/`EWOULDBLOCK` as ``IOResult/wouldBlock`` where the call can
/// block, traps on `EBADF`/`EFAULT` (a bug in the harness, never the peer's doing) and throws a
/// ``SystemError`` carrying the call's name and errno for everything else.
public enum Posix {
    /// Runs a system call that returns -1 and sets errno on failure, retrying `EINTR`.
    @inline(__always)
    public static func call<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            precondition(error != EBADF && error != EFAULT, "\(name) failed with errno \(error): a harness bug")
            throw SystemError(name, errno: error)
        }
    }

    /// Runs a system call that may fail with `EAGAIN`, retrying `EINTR`.
    @inline(__always)
    public static func nonBlockingCall<T: FixedWidthInteger & Sendable>(
        _ name: String,
        _ body: () -> T
    ) throws(SystemError) -> IOResult<T> {
        while true {
            let result = body()
            if result >= 0 { return .processed(result) }
            let error = Glibc.errno
            if error == EINTR { continue }
            if error == EAGAIN || error == EWOULDBLOCK { return .wouldBlock }
            precondition(error != EBADF && error != EFAULT, "\(name) failed with errno \(error): a harness bug")
            throw SystemError(name, errno: error)
        }
    }

    /// Reads into `buffer`; `.processed(0)` is end of stream.
    @inline(__always)
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlockingCall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Receives into `buffer` from socket `fd` without waiting, blocking socket or not (`MSG_DONTWAIT`): `.wouldBlock`
    /// when nothing is there, `.processed(0)` at end of stream.
    public static func receiveWithoutWaiting(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> IOResult<Int> {
        try nonBlockingCall("recv") { Glibc.recv(fd, buffer.baseAddress, buffer.count, CBenchMSG_DONTWAIT) }
    }

    /// Writes from `buffer`; may write fewer bytes than given.
    @inline(__always)
    public static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlockingCall("write") { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    /// Closes a descriptor. `EINTR` is not retried: on Linux the descriptor is released either way.
    /// In debug builds it traps when a ``Descriptor`` owns `fd`: that owner closes it, nobody else.
    public static func close(_ fd: Int32) {
        DescriptorLedger.checkUnowned(fd, closer: "close")
        let result = Glibc.close(fd)
        precondition(result == 0 || Glibc.errno != EBADF, "close(\(fd)) of a descriptor not open: a harness bug")
    }

    /// Sets an integer socket option.
    public static func setSocketOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SystemError) {
        var value = value
        _ = try call("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Makes a blocking read on `fd` give up after `nanoseconds` (at least 1 µs; 0 is not allowed: it would mean
    /// never), returning ``IOResult/wouldBlock``.
    public static func setReceiveTimeout(_ fd: Int32, nanoseconds: UInt64) throws(SystemError) {
        precondition(nanoseconds > 0)
        let microseconds = max(1, nanoseconds / 1_000)
        var timeout = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
        _ = try call("setsockopt SO_RCVTIMEO") {
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Sets or clears `O_NONBLOCK` on a descriptor.
    public static func setNonBlocking(_ fd: Int32, _ nonBlocking: Bool = true) throws(SystemError) {
        let flags = try call("fcntl") { fcntl(fd, F_GETFL) }
        _ = try call("fcntl") { fcntl(fd, F_SETFL, nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) }
    }

    /// A connected pair of local stream sockets (both blocking, closed on exec): one thread's channel to another.
    public static func socketPair() throws(SystemError) -> (Int32, Int32) {
        var descriptors: [Int32] = [-1, -1]
        _ = try call("socketpair") {
            descriptors.withUnsafeMutableBufferPointer {
                socketpair(AF_UNIX, CBenchSOCK_STREAM | CBenchSOCK_CLOEXEC, 0, $0.baseAddress)
            }
        }
        return (descriptors[0], descriptors[1])
    }

    /// True when `fd` is an open socket (an inherited channel, checked before it is trusted to be one).
    public static func isSocket(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFSOCK
    }

    /// Writes what a socket takes of `bytes` now, without waiting (and never raising SIGPIPE: a peer gone is `EPIPE`);
    /// `.wouldBlock` when it takes nothing.
    @inline(__always)
    public static func sendSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try nonBlockingCall("send") {
            Glibc.send(fd, bytes.baseAddress!, bytes.count, CBenchMSG_NOSIGNAL | CBenchMSG_DONTWAIT)
        }
    }

    /// A non-blocking connect's outcome once its socket turned writable: 0 when it connected, else its errno
    /// (`SO_ERROR`).
    public static func connectOutcome(_ fd: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error : Glibc.errno
    }

    /// Closes `fd`'s sending side (a socket): its peer reads the end of the stream, and may still send.
    public static func shutdownWriting(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Writes all of `bytes` to a blocking socket (see below).
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var result: Result<Void, SystemError> = .success(())
        bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try sendAll(fd, buffer) } catch { result = .failure(error) }
        }
        try result.get()
    }

    /// Writes all of `bytes` to a blocking socket, however many calls that takes (never raising SIGPIPE: a peer
    /// gone is `EPIPE`).
    public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = try call("send") {
                Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, CBenchMSG_NOSIGNAL)
            }
            offset += written
        }
    }
}
