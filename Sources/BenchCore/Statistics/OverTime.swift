/// A latency over a run's time, cut into at most ``maximumBuckets`` slices, each with its worst value: what a plot of
/// a long run can show without a point per message (a 100,000-message ping-pong makes 1,000 points, not 100,000).
///
/// Built as the values stream in, in any order, without knowing the run's length: slices start 1 ms wide and double
/// (neighbours merged) whenever a time falls past the last one. The final width depends only on the latest time
/// added, so the live run and its saved folder, read back in another order, cut the same slices.
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

    /// Slices with at least one message, in time order (once ``finished()``).
    public private(set) var buckets: [Bucket] = []
    /// The width of a slice, ns.
    public private(set) var width: UInt64 = 1_000_000
    private var worst: [UInt64?]
    private var lost: [Int]
    private var seen: [Bool]

    public init() {
        worst = Array(repeating: nil, count: Self.maximumBuckets)
        lost = Array(repeating: 0, count: Self.maximumBuckets)
        seen = Array(repeating: false, count: Self.maximumBuckets)
    }

    /// A message sent at `time` (ns after the start) with `value`, or lost (nil).
    public mutating func add(time: UInt64, value: UInt64?) {
        while time / width >= UInt64(Self.maximumBuckets) { doubleWidth() }
        let index = Int(time / width)
        seen[index] = true
        if let value { worst[index] = max(worst[index] ?? 0, value) } else { lost[index] += 1 }
    }

    /// Slices twice as wide: slice i takes what 2i and 2i + 1 held.
    private mutating func doubleWidth() {
        for index in 0..<Self.maximumBuckets {
            let (a, b) = (2 * index, 2 * index + 1)
            guard a < Self.maximumBuckets else {
                (worst[index], lost[index], seen[index]) = (nil, 0, false)
                continue
            }
            let merged: [UInt64] = [worst[a], b < Self.maximumBuckets ? worst[b] : nil].compactMap { $0 }
            let lostHere = lost[a] + (b < Self.maximumBuckets ? lost[b] : 0)
            let seenHere = seen[a] || (b < Self.maximumBuckets && seen[b])
            (worst[index], lost[index], seen[index]) = (merged.max(), lostHere, seenHere)
        }
        width *= 2
    }

    /// The slices, once every message was added.
    public func finished() -> OverTime {
        var result = self
        result.buckets = seen.indices.filter { seen[$0] }.map {
            Bucket(start: UInt64($0) * width, worst: worst[$0], lost: lost[$0])
        }
        result.worst = []
        result.lost = []
        result.seen = []
        return result
    }
}
