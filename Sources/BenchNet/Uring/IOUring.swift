import CBenchLinux
import Glibc

/// Why an io_uring could not be set up: the step and its errno (EPERM where `kernel.io_uring_disabled` or a seccomp
/// profile forbids it, ENOSYS where the kernel has none, EINVAL where a feature the engine needs is missing).
public struct IOUringRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public let step: String
    public let errno: Int32

    public init(step: String, errno: Int32) {
        self.step = step
        self.errno = errno
    }

    public var description: String { "\(step): \(String(cString: strerror(errno))) (errno: \(errno))" }
}

/// One io_uring (the kernel's interface, through the C target's shim): its submission and completion queues and,
/// for a ring that receives, its provided buffers. Set it up on the thread that uses it; one thread uses it.
public final class IOUring {
    /// A completion, as the kernel posted it.
    public typealias Completion = CBenchCompletion

    private let ring: OpaquePointer

    /// A ring of `entries` submissions and `completions` completions with `bufferCount` (at most 32,768, 0 for a ring
    /// that only sends) provided buffers of `bufferSize` bytes, whose receives carry kernel stamps when `stamps`.
    public init(
        entries: UInt32, completions: UInt32, bufferCount: UInt32 = 0, bufferSize: UInt32 = 0, stamps: Bool = false
    ) throws(IOUringRefusal) {
        var error: Int32 = 0
        var step: UnsafePointer<CChar>?
        guard let ring = CBench_uringCreate(entries, completions, bufferCount, bufferSize, stamps ? 1 : 0, &error, &step)
        else {
            throw IOUringRefusal(step: step.map { String(cString: $0) } ?? "io_uring_setup", errno: error)
        }
        self.ring = ring
    }

    deinit {
        CBench_uringDestroy(ring)
    }

    /// Prepares a multishot receive of `fd` into the provided buffers. False when the submission queue is full.
    @inline(__always)
    public func receive(_ fd: Int32, userData: UInt64) -> Bool { CBench_uringReceive(ring, fd, userData) == 0 }

    /// Prepares a send of `bytes` on `fd` that completes in the submitting call (it never waits for room). The bytes
    /// must stay until then. False when the submission queue is full.
    @inline(__always)
    public func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, userData: UInt64) -> Bool {
        CBench_uringSend(ring, fd, bytes.baseAddress, UInt32(bytes.count), userData) == 0
    }

    /// Prepares a one-shot poll of `fd` for `events` (POLLIN …). False when the submission queue is full.
    public func poll(_ fd: Int32, events: UInt32, userData: UInt64) -> Bool {
        CBench_uringPoll(ring, fd, events, userData) == 0
    }

    /// Prepares the cancellation of the requests with user data `target`. False when the submission queue is full.
    public func cancel(_ target: UInt64, userData: UInt64) -> Bool { CBench_uringCancel(ring, target, userData) == 0 }

    /// Submits what is prepared and, with `wait`, waits for a completion, at most `timeoutNanoseconds` (nil: no
    /// limit). An interrupted or timed-out wait returns normally.
    @inline(__always)
    public func enter(wait: Bool, timeoutNanoseconds: UInt64? = nil) throws(SystemError) {
        let timeout = timeoutNanoseconds.map { Int64(min($0, UInt64(Int64.max))) } ?? -1
        let status = CBench_uringEnter(ring, wait ? 1 : 0, timeout)
        if status < 0 { throw SystemError("io_uring_enter", errno: -status) }
    }

    /// The oldest completion, taken off the queue; nil when there is none.
    @inline(__always)
    public func nextCompletion() -> Completion? {
        var completion = Completion()
        return CBench_uringNextCompletion(ring, &completion) == 1 ? completion : nil
    }

    /// The bytes a receive's completion carries, the kernel's receive stamp of them (CLOCK_REALTIME ns, 0 for none)
    /// and the buffer to give back with ``recycle(_:)``; nil when it carries no buffer.
    @inline(__always)
    public func received(_ completion: Completion) -> (bytes: UnsafeMutableRawBufferPointer, stamp: Int64, buffer: UInt16)? {
        var completion = completion
        var count: UInt32 = 0
        var stamp: Int64 = 0
        var buffer: UInt16 = 0
        guard let start = CBench_uringReceived(ring, &completion, &count, &stamp, &buffer) else { return nil }
        return (UnsafeMutableRawBufferPointer(start: start, count: Int(count)), stamp, buffer)
    }

    /// Gives a provided buffer back to the kernel.
    @inline(__always)
    public func recycle(_ buffer: UInt16) { CBench_uringRecycle(ring, buffer) }
}

extension CBenchCompletion {
    /// More completions of this multishot request will follow.
    @inline(__always)
    public var hasMore: Bool {
        var copy = self
        return CBench_uringHasMore(&copy) != 0
    }
}
