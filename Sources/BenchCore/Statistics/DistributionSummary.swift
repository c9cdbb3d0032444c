/// One metric's distribution as SPEC §2 defines it: counts, losses, exact extremes and moments, percentiles
/// within 0.1%, and the share of everything sent that came in under the threshold. Times in nanoseconds.
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
    /// The threshold of ``percentUnder``.
    public let under: UInt64
    /// 100 × values strictly under ``under`` / (count + lost): a lost message counts against it. Nil when
    /// nothing was sent.
    public let percentUnder: Double?

    public init(
        metric: String, count: Int, lost: Int, min: UInt64?, max: UInt64?, mean: Double?, standardDeviation: Double?,
        p50: UInt64?, p90: UInt64?, p95: UInt64?, p99: UInt64?, p999: UInt64?, under: UInt64, percentUnder: Double?
    ) {
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
        self.under = under
        self.percentUnder = percentUnder
    }
}

/// Collects one metric's values and losses, and summarizes them.
public struct DistributionBuilder: Sendable {
    /// The metric's name.
    public let metric: String
    /// The "percent under" threshold.
    public let under: UInt64
    /// Every value recorded.
    public private(set) var histogram = LatencyHistogram()
    private var lost = 0
    private var belowThreshold = 0

    public init(metric: String, under: UInt64) {
        self.metric = metric
        self.under = under
    }

    /// Counts one measured value.
    public mutating func record(_ value: UInt64) {
        histogram.record(value)
        if value < under { belowThreshold += 1 }
    }

    /// Counts `count` values that were sent but never measured.
    public mutating func recordLost(_ count: Int = 1) {
        lost += count
    }

    /// The summary of everything counted so far.
    public func summary() -> DistributionSummary {
        let count = Int(histogram.count)
        let total = count + lost
        return DistributionSummary(
            metric: metric, count: count, lost: lost, min: histogram.min, max: histogram.max, mean: histogram.mean,
            standardDeviation: histogram.standardDeviation,
            p50: histogram.value(atPercentile: 50), p90: histogram.value(atPercentile: 90),
            p95: histogram.value(atPercentile: 95), p99: histogram.value(atPercentile: 99),
            p999: histogram.value(atPercentile: 99.9), under: under,
            percentUnder: total > 0 ? 100 * Double(belowThreshold) / Double(total) : nil
        )
    }
}
