import BenchCore
import BenchScenarios

/// `summary.csv`: one row per metric, times in microseconds. `precision` says how the percentiles were found: `exact`
/// (nearest rank over every value) or read from the histogram, within its relative error, for a run whose values did
/// not fit `--exact-budget`; thresholds read the same figures.
public enum SummaryCSV {
    public static let fileName = "summary.csv"

    public static let header = [
        "metric", "count", "lost", "min_us", "mean_us", "stddev_us", "p50_us", "p90_us", "p95_us", "p99_us",
        "p999_us", "max_us", "under_us", "pct_under", "precision", "clock_error_us",
    ]

    /// The metrics whose values compare a client's receive stamp with the server's clock: with agents on other clocks
    /// (`bench serve`), they carry the agents' clock error bound.
    static let clockDependentMetrics: Set<String> = ["delivery", "spread", "completion", "stack"]

    /// The `precision` of percentiles read from a histogram (``LatencyHistogram/relativeError``, 1/2048).
    public static let histogramPrecision = "histogram ±0.049%"

    /// Writes `summary.csv`. Empty fields: no value was measured. `clockError`: the largest error bound of the agents'
    /// clocks (`bench serve`), given for the metrics it bears on; nil (empty) without agents.
    public static func write<Sink: ByteSink>(
        _ summaries: [DistributionSummary], clockError: UInt64? = nil, to writer: inout CSVWriter<Sink>
    ) throws {
        try writer.row(header)
        for summary in summaries {
            writer.field(summary.metric)
            writer.field(summary.count)
            writer.field(summary.lost)
            writer.microseconds(summary.min)
            writer.microseconds(summary.mean)
            writer.microseconds(summary.standardDeviation)
            writer.microseconds(summary.p50)
            writer.microseconds(summary.p90)
            writer.microseconds(summary.p95)
            writer.microseconds(summary.p99)
            writer.microseconds(summary.p999)
            writer.microseconds(summary.max)
            writer.field(microsecondsFromNanoseconds: summary.under)
            if let percent = summary.percentUnder { writer.field(percent, fractionDigits: 3) } else { writer.emptyField() }
            writer.field(summary.isExact ? "exact" : histogramPrecision)
            writer.microseconds(clockDependentMetrics.contains(summary.metric) ? clockError : nil)
            try writer.endRow()
        }
    }
}
