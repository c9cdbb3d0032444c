import BenchCore

/// A histogram's percentile distribution in the text format HdrHistogram's `outputPercentileDistribution` prints
/// (and wrk2 with `--latency`), which HdrHistogram's plotter reads: the `.hgrm` files of a run folder.
///
///            Value     Percentile TotalCount 1/(1-Percentile)
///
///          402.303 0.000000000000          1           1.00
///          …
///         1234.943 1.000000000000      10000
///     #[Mean    =      420.101, StdDeviation   =       73.432]
///     #[Max     =     1234.943, Total count    =        10000]
///     #[Buckets =           34, SubBuckets     =         2048]
///
/// Values are in microseconds (HdrHistogram's output value unit scaling ratio 1000 from nanoseconds), with 3
/// decimals; five percentile ticks per half distance, as HdrHistogram's default.
public enum PercentileDistributionText {
    /// The `.hgrm` text; an empty histogram gives the header and footer only.
    public static func render(_ histogram: LatencyHistogram) -> String {
        var text = pad("Value", 12) + " " + pad("Percentile", 14) + " " + pad("TotalCount", 10) + " "
            + pad("1/(1-Percentile)", 14) + "\n\n"
        for step in histogram.percentileDistribution(ticksPerHalfDistance: 5) {
            let fraction = step.percentile / 100
            text += pad(microseconds(Double(step.value)), 12) + " " + pad(DecimalText.fixed(fraction, fractionDigits: 12), 2)
                + " " + pad("\(step.totalCount)", 10)
            if step.percentile < 100 {
                text += " " + pad(DecimalText.fixed(1 / (1 - fraction), fractionDigits: 2), 14)
            }
            text += "\n"
        }
        text += "#[Mean    = \(pad(microseconds(histogram.mean ?? 0), 12)), "
            + "StdDeviation   = \(pad(microseconds(histogram.standardDeviation ?? 0), 12))]\n"
        text += "#[Max     = \(pad(microseconds(Double(histogram.max ?? 0)), 12)), "
            + "Total count    = \(pad("\(histogram.count)", 12))]\n"
        text += "#[Buckets = \(pad("\(histogram.bucketCount)", 12)), "
            + "SubBuckets     = \(pad("\(histogram.subBucketCount)", 12))]\n"
        return text
    }

    /// Nanoseconds as microseconds with 3 decimals.
    private static func microseconds(_ nanoseconds: Double) -> String {
        DecimalText.fixed(nanoseconds / 1000, fractionDigits: 3)
    }

    /// Right-aligned in at least `width` characters, like printf's `%12s`.
    private static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
