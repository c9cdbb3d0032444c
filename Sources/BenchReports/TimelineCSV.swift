import BenchCore
import BenchScenarios

/// `timeline.csv`: one row per report interval (`--report-every`) and metric: what settled in it. Written as the run
/// goes, so a long run's drift shows while it runs, and what a killed run leaves is readable up to its last interval.
public enum TimelineCSV {
    public static let fileName = "timeline.csv"

    public static let header = [
        "interval", "start_s", "end_s", "metric", "count", "lost", "p50_us", "p90_us", "p99_us", "max_us",
    ]

    /// Writes one row (the header is the caller's, once).
    public static func writeRow<Sink: ByteSink>(_ row: TimelineRow, to writer: inout CSVWriter<Sink>) throws {
        writer.field(row.interval)
        writer.field(Double(row.start) / 1e9, fractionDigits: 3)
        writer.field(Double(row.end) / 1e9, fractionDigits: 3)
        writer.field(row.metric)
        writer.field(row.count)
        writer.field(row.lost)
        writer.microseconds(row.p50)
        writer.microseconds(row.p90)
        writer.microseconds(row.p99)
        writer.microseconds(row.max)
        try writer.endRow()
    }

    /// The terminal's line for an interval: its rows' main metric (delivery in fanout, rtt in roundtrip).
    public static func line(_ rows: [TimelineRow], metric: String) -> String? {
        guard let row = rows.first(where: { $0.metric == metric }) else { return nil }
        func time(_ value: UInt64?) -> String { value.map { DisplayDuration.text(nanoseconds: $0) } ?? "-" }
        // One form in every run's lines: tenths of a second, the start rounded down and the end up, so that a short
        // last interval (20.000 s to 20.004 s) still shows two ends, [20.0s–20.1s], the interval within them.
        func tenths(_ value: UInt64, up: Bool) -> String {
            let count = value / 100_000_000 + (up && value % 100_000_000 != 0 ? 1 : 0)
            return "\(count / 10).\(count % 10)"
        }
        let (start, end) = (tenths(row.start, up: false), tenths(row.end, up: true))
        return "[\(start)s–\(end)s] \(metric): \(row.count) measured, \(row.lost) lost, p50 \(time(row.p50)), "
            + "p99 \(time(row.p99)), max \(time(row.max))"
    }
}
