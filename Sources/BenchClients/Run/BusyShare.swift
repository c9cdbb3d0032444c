import BenchNet

/// A client thread's busy share as it reports it every second (a child's, an agent's, a target run's subscriber
/// thread's): its CPU time since its clients were all connected, over the time since then. The connects are setup, not
/// load: a thread busy connecting is not a saturated harness.
@usableFromInline struct BusyShare {
    private var since: (cpu: UInt64, wall: UInt64) = (0, 0)
    private var next: UInt64 = 0

    /// The thread's clients are all connected: the share counts from now, and the first is due a second later.
    mutating func begin() {
        since = (ThreadCPUTime.now(), MonotonicClock.now())
        next = since.wall + 1_000_000_000
    }

    /// When the next share is due (`.max` before ``begin()``).
    var nextDue: UInt64 { since.wall == 0 ? .max : next }

    /// The share in parts per million when one is due (every second after ``begin()``), else nil.
    mutating func takeIfDue() -> UInt64? {
        let now = MonotonicClock.now()
        guard since.wall != 0, now >= next, now > since.wall else { return nil }
        next = now + 1_000_000_000
        return Self.partsPerMillion(cpu: ThreadCPUTime.now() - since.cpu, of: now - since.wall)
    }

    /// `cpu` over `wall` (both ns, `wall` above 0), in parts per million, at most a million; in floating point, so that
    /// a thread's CPU time of days does not overflow.
    static func partsPerMillion(cpu: UInt64, of wall: UInt64) -> UInt64 {
        UInt64(min(1, Double(cpu) / Double(wall)) * 1_000_000)
    }
}
