import BenchCore
import BenchScenarios

/// `summary.csv`: one row per metric (and behind a mix of links, per metric and link group), times in microseconds. `precision` says how the percentiles were found: `exact`
/// (nearest rank over every value) or read from the histogram, within its relative error, for a run whose values did
/// not fit `--exact-budget`; thresholds read the same figures.
public enum SummaryCSV {
    public static let fileName = "summary.csv"

    public static let header = [
        "metric", "count", "lost", "min_us", "mean_us", "stddev_us", "p50_us", "p90_us", "p95_us", "p99_us",
        "p999_us", "max_us", "under_us", "pct_under", "precision", "clock_error_us", "link",
    ]

    /// The metrics whose values compare a client's receive stamp with the server's clock: with agents on other clocks
    /// (`bench serve`), they carry the agents' clock error bound.
    static let clockDependentMetrics: Set<String> = ["delivery", "spread", "completion", "stack"]

    /// The `precision` of percentiles read from a histogram (``LatencyHistogram/relativeError``, 1/2048).
    public static let histogramPrecision = "histogram ±0.049%"

    /// Writes `summary.csv`. Empty fields: no value was measured. `clockError`: the largest error bound of the agents'
    /// clocks (`bench serve`), given for the metrics it bears on; nil (empty) without agents. The run's rows have an
    /// empty `link`; behind a mix of links, `linkRows` (``rows(of:clockError:)``) follow, each metric again per group.
    public static func write<Sink: ByteSink>(
        _ summaries: [DistributionSummary], clockError: UInt64? = nil, linkRows: [[String]] = [],
        to writer: inout CSVWriter<Sink>
    ) throws {
        try writer.row(header)
        for summary in summaries { try writer.row(cells(summary, clockError: clockError, link: "")) }
        for row in linkRows where row.count == header.count { try writer.row(row) }
    }

    /// The rows of each link group of a run behind a mix of links, as `summary.csv` holds them.
    public static func rows(of groups: [LinkGroupBreakdown.Group], clockError: UInt64? = nil) -> [[String]] {
        groups.flatMap { group in group.summaries.map { cells($0, clockError: clockError, link: group.name) } }
    }

    /// One row's fields.
    private static func cells(_ summary: DistributionSummary, clockError: UInt64?, link: String) -> [String] {
        func microseconds(_ value: UInt64?) -> String { value.map(DecimalText.microseconds(fromNanoseconds:)) ?? "" }
        func fixed(_ value: Double?) -> String {
            value.map { DecimalText.fixed($0 / 1_000, fractionDigits: 3) } ?? ""
        }
        return [
            summary.metric, "\(summary.count)", "\(summary.lost)", microseconds(summary.min), fixed(summary.mean),
            fixed(summary.standardDeviation), microseconds(summary.p50), microseconds(summary.p90),
            microseconds(summary.p95), microseconds(summary.p99), microseconds(summary.p999), microseconds(summary.max),
            microseconds(summary.under), summary.percentUnder.map { DecimalText.fixed($0, fractionDigits: 3) } ?? "",
            summary.isExact ? "exact" : histogramPrecision,
            microseconds(clockDependentMetrics.contains(summary.metric) ? clockError : nil), link,
        ]
    }
}
