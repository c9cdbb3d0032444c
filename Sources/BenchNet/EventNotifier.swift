import CBenchLinux
import Glibc

/// An eventfd: any thread can ring it to wake an event loop that watches it.
public final class EventNotifier: Sendable {
    /// The eventfd, to register with an ``Epoll`` for ``EpollEvents/readable``.
    public let descriptor: Int32

    /// Creates a non-blocking eventfd.
    public init() throws(SystemError) {
        descriptor = try Posix.call("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit {
        Posix.close(descriptor)
    }

    /// Wakes whoever watches the descriptor. Safe from any thread.
    public func notify() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Consumes pending notifications so the descriptor stops being readable.
    public func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
