/// A latency over a run's time, cut into at most ``maximumBuckets`` slices, each with its worst value: what a plot of
/// a long run can show without a point per message (a 100,000-message ping-pong makes 1,000 points, not 100,000).
public struct OverTime: Sendable, Equatable {
    /// One slice of the run.
    public struct Bucket: Sendable, Equatable {
        /// The slice's start, nanoseconds after the run's start.
        public let start: UInt64
        /// The largest value measured in it; nil when everything in it was lost.
        public let worst: UInt64?
        /// Messages in it that were lost.
        public let lost: Int
    }

    public static let maximumBuckets = 1_000

    /// Slices with at least one message, in time order.
    public private(set) var buckets: [Bucket] = []
    private let width: UInt64
    private var worst: [UInt64?]
    private var lost: [Int]
    private var seen: [Bool]

    /// Slices for a run as long as `run.csv`'s `duration_s` says (the same text for a run and its saved folder, so that
    /// both cut the same slices).
    public init(durationText: String) {
        let seconds = Double(durationText) ?? 0
        self.init(duration: seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) + 1_000_000 : 1)
    }

    /// Slices for a run of `duration` nanoseconds.
    public init(duration: UInt64) {
        width = max(1, duration / UInt64(Self.maximumBuckets) + 1)
        worst = Array(repeating: nil, count: Self.maximumBuckets + 1)
        lost = Array(repeating: 0, count: Self.maximumBuckets + 1)
        seen = Array(repeating: false, count: Self.maximumBuckets + 1)
    }

    /// A message sent at `time` (ns after the start) with `value`, or lost (nil).
    public mutating func add(time: UInt64, value: UInt64?) {
        let index = Int(min(time / width, UInt64(Self.maximumBuckets)))
        seen[index] = true
        if let value { worst[index] = max(worst[index] ?? 0, value) } else { lost[index] += 1 }
    }

    /// The slices, once every message was added.
    public func finished() -> OverTime {
        var result = self
        result.buckets = seen.indices.filter { seen[$0] }.map { Bucket(start: UInt64($0) * width, worst: worst[$0], lost: lost[$0]) }
        result.worst = []
        result.lost = []
        result.seen = []
        return result
    }
}
