import CBenchLinux
import Glibc

/// A timerfd on `CLOCK_MONOTONIC`, armed at an absolute time, once or periodically: how scheduled sends and
/// housekeeping wake an event loop without a timeout on every epoll_wait.
///
/// A timerfd is an hrtimer, which is not subject to the thread's timer slack (unlike epoll_wait's timeout).
public final class MonotonicTimer {
    /// The timerfd, to register with an ``Epoll`` for ``EpollEvents/readable``.
    public var descriptor: Int32 { owned.rawValue }
    private let owned: Descriptor

    /// Creates a disarmed timer.
    public init() throws(SystemError) {
        let number = try Posix.call("timerfd_create") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        }
        owned = Descriptor(owning: number, owner: "MonotonicTimer")
    }

    /// Arms the timer to fire at `deadline`, a ``MonotonicClock`` time (a deadline in the past fires at once),
    /// and then every `period` nanoseconds if `period` is not 0.
    public func arm(at deadline: UInt64, period: UInt64 = 0) throws(SystemError) {
        let clamped = max(deadline, 1)  // an all-zero it_value would disarm
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(clamped / 1_000_000_000)
        spec.it_value.tv_nsec = Int(clamped % 1_000_000_000)
        spec.it_interval.tv_sec = Int(period / 1_000_000_000)
        spec.it_interval.tv_nsec = Int(period % 1_000_000_000)
        _ = try Posix.call("timerfd_settime") {
            timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        }
    }

    /// Consumes the expirations so the descriptor stops being readable.
    public func drain() {
        var expirations: UInt64 = 0
        _ = Glibc.read(descriptor, &expirations, MemoryLayout<UInt64>.size)
    }
}
