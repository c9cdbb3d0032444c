/// One metric's distribution as SPEC §2 defines it: counts, losses, extremes, moments and nearest-rank
/// percentiles, all exact, and the share of everything sent that came in under the threshold. Times in
/// nanoseconds.
public struct DistributionSummary: Sendable, Equatable {
    /// `rtt`, `delivery`, `spread`, `completion` or `lag`.
    public let metric: String
    /// Values measured.
    public let count: Int
    /// Sent but not measured: lost, timed out, or (spread, completion) an incomplete broadcast.
    public let lost: Int
    public let min: UInt64?
    public let max: UInt64?
    public let mean: Double?
    /// Population standard deviation.
    public let standardDeviation: Double?
    public let p50: UInt64?
    public let p90: UInt64?
    public let p95: UInt64?
    public let p99: UInt64?
    public let p999: UInt64?
    /// The other percentiles asked for when the summary was made (a threshold on `p99.99`), by thousandths of a
    /// percent (`p99.99` is 99_990), computed like the five above; empty when nothing was measured.
    public let percentiles: [Int: UInt64]
    /// The threshold of ``percentUnder``.
    public let under: UInt64
    /// 100 × values strictly under ``under`` / (count + lost): a lost message counts against it. Nil when
    /// nothing was sent.
    public let percentUnder: Double?
    /// True when the percentiles are exact (nearest rank over every value); false when they were read from the
    /// histogram (a run whose values did not fit `--exact-budget`), within ``LatencyHistogram/relativeError``.
    /// Count, lost, min, max and percent-under are exact either way.
    public let isExact: Bool
    /// The 95% interval of each percentile the summary holds (``SamplingUncertainty``), by thousandths of a percent:
    /// the values at the ranks that bound it. Empty when nothing was measured or it was not made from the values.
    public let percentileIntervals: [Int: ClosedRange<UInt64>]
    /// How many measured values were at or above each limit asked for when the summary was made (a threshold's
    /// limit, so that its verdict can be decided from the count over it: ``ProportionDecision``).
    public let countsAtOrAbove: [UInt64: Int]

    public init(
        metric: String, count: Int, lost: Int, min: UInt64?, max: UInt64?, mean: Double?, standardDeviation: Double?,
        p50: UInt64?, p90: UInt64?, p95: UInt64?, p99: UInt64?, p999: UInt64?, under: UInt64, percentUnder: Double?,
        percentiles: [Int: UInt64] = [:], isExact: Bool = true, percentileIntervals: [Int: ClosedRange<UInt64>] = [:],
        countsAtOrAbove: [UInt64: Int] = [:]
    ) {
        self.isExact = isExact
        self.percentileIntervals = percentileIntervals
        self.countsAtOrAbove = countsAtOrAbove
        self.metric = metric
        self.count = count
        self.lost = lost
        self.min = min
        self.max = max
        self.mean = mean
        self.standardDeviation = standardDeviation
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
        self.p999 = p999
        self.percentiles = percentiles
        self.under = under
        self.percentUnder = percentUnder
    }
}

extension DistributionSummary {
    /// A statistic measured in time, by the name thresholds and comparisons use (`p50` … `p99.9`, `min`, `max`,
    /// `mean`), in nanoseconds; nil when nothing was measured or the name is not such a statistic.
    public func time(of statistic: String) -> Double? {
        let value: UInt64?
        switch statistic {
        case "p50": value = p50
        case "p90": value = p90
        case "p95": value = p95
        case "p99": value = p99
        case "p99.9": value = p999
        case "min": value = min
        case "max": value = max
        case "mean": return mean
        default: return nil
        }
        return value.map { Double($0) }
    }

    /// The `p`th percentile (nearest rank) in nanoseconds: one of the five every summary holds, or one asked for
    /// when it was made; nil when nothing was measured or it was not asked for.
    public func percentile(_ p: Double) -> UInt64? {
        switch Int((p * 1000).rounded()) {
        case 50_000: return p50
        case 90_000: return p90
        case 95_000: return p95
        case 99_000: return p99
        case 99_900: return p999
        case let thousandths: return percentiles[thousandths]
        }
    }
}

/// Collects one metric's values (and losses), and summarizes them.
///
/// While ``keepsValues``, every value is kept, so percentiles are exact (nearest rank over the sorted values, not
/// read from a histogram): a threshold like `rtt.p50<=2ms` is judged on the true median. The histogram, with its
/// 0.1% buckets, is kept alongside for the reports that plot or bin the distribution, and is all that is left once
/// ``dropValues()`` was called (a run too long for its memory budget): percentiles then come from it, within
/// ``LatencyHistogram/relativeError``; count, lost, min, max and percent-under stay exact. A kept value takes 4 bytes
/// when it is below 2^32 ns (4.3 s: almost every latency), 8 otherwise.
public struct DistributionBuilder: Sendable {
    /// The metric's name.
    public let metric: String
    /// The "percent under" threshold.
    public let under: UInt64
    /// Every value recorded, binned.
    public private(set) var histogram = LatencyHistogram()
    /// True while every value is kept.
    public private(set) var keepsValues: Bool
    /// The values kept: those below 2^32 ns in 4 bytes each, the rest apart (every one of them larger than any below).
    private var shortValues: [UInt32] = []
    private var longValues: [UInt64] = []
    private var recorded = 0
    private var smallest = UInt64.max
    private var largest = UInt64.min
    public private(set) var lost = 0
    private var belowThreshold = 0

    public init(metric: String, under: UInt64, keepsValues: Bool = true) {
        self.metric = metric
        self.under = under
        self.keepsValues = keepsValues
    }

    /// Counts one measured value.
    public mutating func record(_ value: UInt64) {
        if keepsValues {
            if value >> 32 == 0 { shortValues.append(UInt32(truncatingIfNeeded: value)) } else { longValues.append(value) }
        }
        histogram.record(Swift.min(value, histogram.highestTrackableValue))
        recorded += 1
        smallest = Swift.min(smallest, value)
        largest = Swift.max(largest, value)
        if value < under { belowThreshold += 1 }
    }

    /// Values kept for exact percentiles.
    public var keptValues: Int { shortValues.count + longValues.count }

    /// Forgets the values (their memory too): percentiles come from the histogram from now on.
    public mutating func dropValues() {
        keepsValues = false
        (shortValues, longValues) = ([], [])
    }

    /// Counts `count` values that were sent but never measured.
    public mutating func recordLost(_ count: Int = 1) {
        lost += count
    }

    /// The summary of everything counted so far, with the five percentiles every summary holds and the other
    /// `percentiles` asked for (e.g. `[99.99]` for a threshold on `p99.99`; to the thousandth of a percent, above 0
    /// and below 100), all by nearest rank over the measured values: the value at rank ⌈p/100 × count⌉; the 95%
    /// interval of each; and how many values were at or above each of `limits`.
    public func summary(percentiles: [Double] = [], limits: [UInt64] = []) -> DistributionSummary {
        guard keepsValues else { return histogramSummary(percentiles: percentiles, limits: limits) }
        // Every value in order: the short ones sorted, then the long ones sorted (each larger than any short one).
        let (short, long) = (shortValues.sorted(), longValues.sorted())
        let count = short.count + long.count
        func sorted(_ index: Int) -> UInt64 { index < short.count ? UInt64(short[index]) : long[index - short.count] }
        func percentile(thousandths: Int) -> UInt64? {
            guard count > 0 else { return nil }
            if thousandths <= 0 { return sorted(0) }
            let rank = max(1, (thousandths * count + 99_999) / 100_000)
            return sorted(min(rank, count) - 1)
        }
        func atOrAbove(_ limit: UInt64) -> Int {
            var (low, high) = (0, count)  // the first index whose value is at or above the limit
            while low < high {
                let middle = (low + high) / 2
                if sorted(middle) < limit { low = middle + 1 } else { high = middle }
            }
            return count - low
        }
        var mean: Double?
        var standardDeviation: Double?
        if count > 0 {
            // Differences from the smallest value, two passes: exact enough for any run's size and spread.
            let first = sorted(0)
            var sum = 0.0
            for index in 0..<count { sum += Double(sorted(index) - first) }
            let shiftedMean = sum / Double(count)
            var squares = 0.0
            for index in 0..<count {
                let deviation = Double(sorted(index) - first) - shiftedMean
                squares += deviation * deviation
            }
            mean = Double(first) + shiftedMean
            standardDeviation = (squares / Double(count)).squareRoot()
        }
        return made(
            count: count, min: count > 0 ? sorted(0) : nil, max: count > 0 ? sorted(count - 1) : nil, mean: mean,
            standardDeviation: standardDeviation,
            percentiles: percentiles, limits: limits, isExact: true, percentile: percentile(thousandths:),
            atOrAbove: atOrAbove)
    }

    /// The summary once the values were dropped: percentiles and counts over a limit from the histogram (within a
    /// bucket: a bucket that holds the limit counts as at or above it), the rest exact.
    private func histogramSummary(percentiles: [Double], limits: [UInt64]) -> DistributionSummary {
        made(
            count: recorded, min: recorded > 0 ? smallest : nil, max: recorded > 0 ? largest : nil,
            mean: histogram.mean, standardDeviation: histogram.standardDeviation, percentiles: percentiles,
            limits: limits, isExact: false,
            percentile: { thousandths in
                thousandths <= 0 ? (recorded > 0 ? smallest : nil) : histogram.value(atPercentile: Double(thousandths) / 1000)
            },
            atOrAbove: { histogram.count(atOrAbove: $0) })
    }

    /// A summary from the statistics of either kind of builder and its way of reading a percentile and counting over a
    /// limit.
    private func made(
        count: Int, min: UInt64?, max: UInt64?, mean: Double?, standardDeviation: Double?, percentiles: [Double],
        limits: [UInt64], isExact: Bool, percentile: (Int) -> UInt64?, atOrAbove: (UInt64) -> Int
    ) -> DistributionSummary {
        let total = count + lost
        let asked = percentiles.map { Int(($0 * 1000).rounded()) }.filter { $0 > 0 && $0 < 100_000 }
        var intervals: [Int: ClosedRange<UInt64>] = [:]
        for thousandths in Set([50_000, 90_000, 95_000, 99_000, 99_900] + asked) {
            guard let bounds = SamplingUncertainty.percentileBounds(Double(thousandths) / 1000, count: count),
                let lower = percentile(Int((bounds.lower * 1000).rounded())),
                let upper = bounds.upper >= 100 ? max : percentile(Int((bounds.upper * 1000).rounded()))
            else { continue }
            intervals[thousandths] = lower...Swift.max(lower, upper)
        }
        return DistributionSummary(
            metric: metric, count: count, lost: lost, min: min, max: max, mean: mean,
            standardDeviation: standardDeviation, p50: percentile(50_000), p90: percentile(90_000),
            p95: percentile(95_000), p99: percentile(99_000), p999: percentile(99_900), under: under,
            percentUnder: total > 0 ? 100 * Double(belowThreshold) / Double(total) : nil,
            percentiles: Dictionary(
                asked.compactMap { thousandths in percentile(thousandths).map { (thousandths, $0) } },
                uniquingKeysWith: { first, _ in first }),
            isExact: isExact, percentileIntervals: intervals,
            countsAtOrAbove: Dictionary(limits.map { ($0, atOrAbove($0)) }, uniquingKeysWith: { first, _ in first }))
    }
}
