import BenchCore

/// What one client thread's links did (`--link`), for the run's report once the thread ended: how late the thread let
/// their bytes out behind the model, and the connections each group's NAT forgot. Written by its thread alone, read
/// once every thread joined.
public final class LinkTally: @unchecked Sendable {
    /// The connections one link's NAT forgot: how many, and when the first and the last were forgotten (monotonic ns:
    /// their last byte either way, and the idle time after it).
    public struct Forgotten: Sendable {
        public var count = 0
        public var first: UInt64 = .max
        public var last: UInt64 = 0

        public init() {}

        public mutating func add(at time: UInt64) {
            count += 1
            first = min(first, time)
            last = max(last, time)
        }

        public mutating func add(_ other: Forgotten) {
            guard other.count > 0 else { return }
            count += other.count
            first = min(first, other.first)
            last = max(last, other.last)
        }
    }

    /// How late each timed hand-out out of the link was, behind its first segment's exit (ns): the thread's own delay.
    public internal(set) var lateness = LatencyHistogram()
    /// Per group of the mix (in order), the connections its NAT forgot.
    public internal(set) var forgotten: [Forgotten]

    /// A tally for a mix of `groups` groups.
    public init(groups: Int) {
        forgotten = Array(repeating: Forgotten(), count: groups)
    }
}
