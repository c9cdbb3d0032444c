import Glibc

/// Wall-clock time, for labelling a run (`start_utc`), never for measuring one: it can jump.
public enum WallClock {
    /// Nanoseconds since the Unix epoch (`CLOCK_REALTIME`).
    public static func nowUnixNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
