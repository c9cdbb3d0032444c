import BenchCore

/// What a run has measured so far, for whoever watches it while it goes (`--metrics-listen`): per metric a histogram
/// of fixed buckets (Prometheus's kind: cumulative counts by upper bound, the sum and the count), the losses by their
/// outcome, and the latest lag. Kept by the ``RunCollector`` on the writer's thread as messages settle, beside its own
/// statistics; read by taking a copy (``RunCollector/liveSnapshot()``).
public struct LiveStatistics: Sendable {
    /// One metric's histogram: `counts[i]` values at most `bounds[i]` and above the bound before; the last count is
    /// what lies above every bound.
    public struct Histogram: Sendable, Equatable {
        public let metric: String
        public let bounds: [UInt64]
        public private(set) var counts: [UInt64]
        /// The sum of the values (ns, saturating) and how many there are.
        public private(set) var sum: UInt64 = 0
        public private(set) var count: UInt64 = 0

        init(metric: String, bounds: [UInt64]) {
            self.metric = metric
            self.bounds = bounds
            counts = Array(repeating: 0, count: bounds.count + 1)
        }

        @inline(__always)
        mutating func record(_ value: UInt64) {
            var low = 0, high = bounds.count  // the first bound at or above the value
            while low < high {
                let middle = (low + high) / 2
                if bounds[middle] < value { low = middle + 1 } else { high = middle }
            }
            counts[low] += 1
            sum = sum.addingReportingOverflow(value).overflow ? .max : sum + value
            count += 1
        }

        /// How many values are at most each bound, in order (Prometheus's `le` buckets without `+Inf`).
        public var cumulative: [UInt64] {
            var running: UInt64 = 0
            return bounds.indices.map { index in
                running += counts[index]
                return running
            }
        }
    }

    /// The buckets' upper bounds: 1, 2 and 5 of each decade from 10 µs to 50 s, then 60 s; with `under` (the run's
    /// `--under`) among them, so that "how many within it" is a bucket.
    public static func bounds(under: UInt64) -> [UInt64] {
        var bounds: [UInt64] = []
        var decade: UInt64 = 10_000
        while decade <= 10_000_000_000 {
            bounds += [decade, 2 * decade, 5 * decade]
            decade *= 10
        }
        bounds.append(60_000_000_000)
        if under > 0 && !bounds.contains(under) { bounds.append(under) }
        return bounds.sorted()
    }

    public private(set) var histograms: [Histogram]
    /// Messages lost so far, by their outcome (``MessageOutcome``'s raw value).
    public private(set) var lost: [Int] = Array(repeating: 0, count: 16)
    /// The lag of the latest message or broadcast that had one (ns).
    public private(set) var latestLag: UInt64?

    init(metrics: [String], under: UInt64) {
        let bounds = Self.bounds(under: under)
        histograms = metrics.map { Histogram(metric: $0, bounds: bounds) }
    }

    @inline(__always)
    mutating func record(_ value: UInt64, at position: Int, isLag: Bool) {
        histograms[position].record(value)
        if isLag { latestLag = value }
    }

    @inline(__always)
    mutating func lose(_ outcome: MessageOutcome) {
        lost[Int(outcome.rawValue)] += 1
    }

    /// The losses with their outcome's name (`samples.csv`'s `outcome`), those with any.
    public var lostByOutcome: [(outcome: String, count: Int)] {
        lost.indices.compactMap { raw in
            guard lost[raw] > 0, let outcome = MessageOutcome(rawValue: UInt8(raw)) else { return nil }
            return (outcome.name, lost[raw])
        }
    }
}

/// A copy of what a run has measured so far, taken on the writer's thread for the live view.
public struct LiveSnapshot: Sendable {
    public let statistics: LiveStatistics
    /// Per metric so far: count, lost, p50, p99, max (from the run's histograms).
    public let totals: [TimelineRow]
    /// The rows of the report interval that is under way, and of those that ended (the last ``maximumRows``); their
    /// times are offsets from the run's start.
    public let current: [TimelineRow]
    public let timeline: [TimelineRow]
    /// The main metric second by second (``LivePoints``): the chart's points; the latest seconds may still grow.
    public let points: [TimelineRow]
    /// Behind a mix of links: each link group's metrics so far, in the mix's order; empty otherwise.
    public let linkGroups: [LiveLinkGroup]
    /// Measured messages settled so far (warmup is not measured).
    public let settledMessages: Int
    /// How long the run has been sending when the snapshot was taken (ns; the rows' times count from the same start).
    public let elapsed: UInt64

    /// The most timeline rows a snapshot keeps: a long run's page shows its latest.
    public static let maximumRows = 3_000
}
