import CBenchLinux
import Glibc

/// An eventfd: any thread can ring it to wake an event loop that watches it.
public final class EventNotifier: Sendable {
    /// The eventfd, to register with an ``Epoll`` for ``EpollEvents/readable``.
    public var descriptor: Int32 { owned.rawValue }
    private let owned: Descriptor

    /// Creates a non-blocking eventfd.
    public init() throws(SystemError) {
        owned = Descriptor(
            owning: try Posix.call("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }, owner: "EventNotifier")
    }

    /// Wakes whoever watches the descriptor. Safe from any thread.
    public func notify() {
        var one: UInt64 = 1
        _ = Glibc.write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Blocks until notified or `nanoseconds` pass (rounded up to a millisecond, at most a minute); true when it was
    /// notified, the notification consumed. A signal that interrupts the wait reads as a timeout.
    public func wait(nanoseconds: UInt64) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min((nanoseconds + 999_999) / 1_000_000, 60_000))
        guard Glibc.poll(&entry, 1, milliseconds) > 0 else { return false }
        drain()
        return true
    }

    /// Consumes pending notifications so the descriptor stops being readable.
    public func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
