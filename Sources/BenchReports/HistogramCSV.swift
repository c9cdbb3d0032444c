import BenchCore
import BenchScenarios

/// `histogram.csv`: each metric's distribution in log-spaced bins (8 per doubling, each at most 12.5% wide),
/// from the first non-empty bin to the last, so that it plots as is.
public enum HistogramCSV {
    public static let fileName = "histogram.csv"

    public static let header = ["metric", "low_us", "high_us", "count", "cumulative_pct"]

    /// Bits of the bins' sub-buckets: 2^(4-1) = 8 bins per power of two.
    static let binBits = 4

    /// Writes `histogram.csv`. `cumulative_pct` is the share of all sent (lost ones included) at or below the
    /// bin, so it stops short of 100 when messages were lost.
    public static func write<Sink: ByteSink>(
        _ summaries: [DistributionSummary],
        _ histograms: [LatencyHistogram],
        to writer: inout CSVWriter<Sink>
    ) throws {
        try writer.row(header)
        for (summary, histogram) in zip(summaries, histograms) {
            let total = Double(summary.count + summary.lost)
            var cumulative: UInt64 = 0
            for bin in histogram.bins(coarseSubBucketBits: binBits) {
                cumulative += bin.count
                writer.field(summary.metric)
                writer.field(microsecondsFromNanoseconds: bin.low)
                writer.field(microsecondsFromNanoseconds: bin.high)
                writer.field(bin.count)
                writer.field(100 * Double(cumulative) / total, fractionDigits: 3)
                try writer.endRow()
            }
        }
    }
}
