/// When a client whose connection dropped tries again (`--reconnect`): exponential backoff with jitter, as the
/// clients of chat and push services do, so that ten thousand clients dropped at once do not all come back in the
/// same millisecond.
///
/// Attempt `n` (0 for the first try after the drop) waits `d = min(maximum, base × 2^n)`, of which the first half is
/// fixed and the second drawn uniformly ("equal jitter": never sooner than half the backoff, spread over the other
/// half). After `tries` failed attempts the client gives up. Times are nanoseconds.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The wait before the first attempt (before jitter).
    public var base: UInt64
    /// The longest wait between two attempts (before jitter).
    public var maximum: UInt64
    /// Attempts after one drop before the client gives up.
    public var tries: Int

    /// A backoff of `base` doubling up to `maximum`, for at most `tries` attempts.
    public init(base: UInt64, maximum: UInt64, tries: Int) {
        self.base = base
        self.maximum = maximum
        self.tries = tries
    }

    /// The wait before attempt `attempt` (from 0), without jitter: `min(maximum, base × 2^attempt)`, never overflowing.
    public func backoff(attempt: Int) -> UInt64 {
        let cap = max(maximum, base)
        guard attempt < 64, base > 0 else { return base == 0 ? 0 : cap }
        let (doubled, overflow) = base.multipliedReportingOverflow(by: 1 << UInt64(attempt))
        return overflow ? cap : min(doubled, cap)
    }

    /// The longest a client keeps trying after one drop: every attempt's wait at its longest (ns, saturating).
    public var span: UInt64 {
        (0..<max(0, tries)).reduce(UInt64(0)) { total, attempt in
            let (sum, overflow) = total.addingReportingOverflow(backoff(attempt: attempt))
            return overflow ? .max : sum
        }
    }

    /// The wait before attempt `attempt`, with its jitter drawn from `random`: half the backoff and up to as much again.
    public func delay(attempt: Int, random: inout SplitMix64) -> UInt64 {
        let backoff = backoff(attempt: attempt)
        let half = backoff / 2
        return half + random.nextBounded(backoff - half + 1)
    }

    /// True when attempt `attempt` (from 0) is still allowed.
    public func allows(attempt: Int) -> Bool { attempt < tries }
}
