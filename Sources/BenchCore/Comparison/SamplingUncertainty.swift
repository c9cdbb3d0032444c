/// How far a statistic of one run may be from the same statistic of another run of the same server by chance alone:
/// its 95% confidence interval, from the run's own values.
///
/// A percentile's interval is distribution-free: the rank of the p-th percentile among `count` values is binomial, so
/// with 95% confidence the true percentile lies between the values at ranks `n·q ∓ 1.96·√(n·q·(1−q))` (q = p/100).
/// The mean's is `mean ∓ 1.96·σ/√n`. A p99 of 200 broadcasts lies somewhere between the 195th value and the largest,
/// so `bench compare` of two single runs calls a change a regression only where the two intervals do not overlap. (What
/// this cannot see is how runs of the same code differ from each other: that takes repeats.)
public enum SamplingUncertainty {
    /// The normal quantile of a two-sided 95% interval.
    public static let z = 1.96

    /// The percentiles (0–100, to a thousandth) between which the `percentile`-th of `count` values lies with 95%
    /// confidence; nil without values.
    public static func percentileBounds(_ percentile: Double, count: Int) -> (lower: Double, upper: Double)? {
        guard count > 0, percentile >= 0, percentile <= 100 else { return nil }
        let n = Double(count)
        let q = percentile / 100
        let margin = z * (n * q * (1 - q)).squareRoot()
        let lower = Swift.max(0, (n * q - margin) / n * 100)
        let upper = Swift.min(100, (n * q + margin) / n * 100)
        return ((lower * 1000).rounded(.down) / 1000, (upper * 1000).rounded(.up) / 1000)
    }

    /// The percentile a statistic's name stands for (`p99.9` → 99.9); nil for min, max and mean.
    public static func percentile(of statistic: String) -> Double? {
        guard statistic.hasPrefix("p"), let value = Double(statistic.dropFirst()) else { return nil }
        return value
    }

    /// The 95% interval of `summary`'s `statistic`, in nanoseconds: a percentile's as the summary holds it (made from
    /// the values: ``DistributionSummary/percentileIntervals``), the mean's from σ; nil for min and max, and where the
    /// summary holds none.
    public static func interval(of statistic: String, in summary: DistributionSummary) -> ClosedRange<Double>? {
        if statistic == "mean" {
            guard let mean = summary.mean, let sigma = summary.standardDeviation, summary.count > 0 else { return nil }
            let margin = z * sigma / Double(summary.count).squareRoot()
            return Swift.max(0, mean - margin)...(mean + margin)
        }
        guard let percentile = percentile(of: statistic), percentile >= 0, percentile <= 100,
            let held = summary.percentileIntervals[Int((percentile * 1000).rounded())]
        else { return nil }
        return Double(held.lowerBound)...Double(held.upperBound)
    }
}
