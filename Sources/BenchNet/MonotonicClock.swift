import Glibc

/// The one clock every timestamp comes from: `CLOCK_MONOTONIC`, in nanoseconds.
///
/// All threads and processes on one machine share it, so a server's send time and a client's receive time
/// can be subtracted. A read is a vDSO call of a few tens of nanoseconds, with no system call.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot), never decreasing.
    @inline(__always)
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// How long the calling thread has waited on a run queue, ready but not running (`/proc/thread-self/schedstat`'s
/// second field), in nanoseconds: a thread starved of CPU by other work shows here, one waiting for a peer does not.
/// Nil where the kernel does not keep it.
public enum ThreadRunQueueWait {
    public static func now() -> UInt64? {
        guard let bytes = try? Posix.readFile("/proc/thread-self/schedstat", limit: 256) else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: " ")
        return fields.count >= 2 ? UInt64(fields[1]) : nil
    }
}

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds: what tells a busy thread
/// from a waiting one, so that a run can say when its own measuring thread was the bottleneck.
public enum ThreadCPUTime {
    public static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
