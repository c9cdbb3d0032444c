import BenchCore
import BenchScenarios

/// The summary as one JSON object on stdout (`--json`), for scripts.
///
///     {"scenario":"fanout","status":"complete","run_folder":"results/…","seed":1,"clients":50,…,
///      "metrics":[{"metric":"delivery","count":10000,"lost":0,"min_us":…,"pct_under":100.0},…],
///      "thresholds":[{"expression":"spread.p99<200ms","measured":"412.3µs","limit":"200ms",
///                     "measured_value":412.300,"limit_value":200000.000,"held":true}]}
///
/// Numbers are JSON numbers; times are microseconds, like `summary.csv` (a threshold's `measured_value` and
/// `limit_value` too, or counts and percent); a value never measured is `null`.
public enum SummaryJSON {
    /// The JSON text, without a trailing newline.
    public static func render(
        _ analysis: RunAnalysis,
        thresholds: [ThresholdResult] = [],
        runFolder: String
    ) -> String {
        let recording = analysis.recording
        let configuration = recording.configuration
        var fields: [(String, String)] = [
            ("scenario", JSONText.string(configuration.scenario.rawValue)),
            ("transport", JSONText.string(configuration.target.map { $0.url.scheme.rawValue } ?? configuration.transport.rawValue)),
            ("target", configuration.target.map { JSONText.string($0.url.description) } ?? "null"),
            ("status", JSONText.string(recording.status.rawValue)),
            ("run_folder", JSONText.string(runFolder)),
            ("seed", "\(configuration.seed)"),
            ("clients", "\(configuration.clients)"),
            ("messages", "\(configuration.messages)"),
            ("interval_ns", "\(configuration.interval)"),
            ("arrival", JSONText.string(configuration.isClosedLoop ? "closed-loop" : configuration.arrival.rawValue)),
            ("payload_bytes", "\(configuration.payload)"),
            ("under_ns", "\(configuration.under)"),
            ("server_cpus", JSONText.string(recording.server.cpus.description)),
            ("client_cpus", JSONText.string(recording.clientThreads.cpus.description)),
        ]
        let metrics = analysis.summaries.map { summary -> String in
            let values: [(String, String)] = [
                ("metric", JSONText.string(summary.metric)),
                ("count", "\(summary.count)"),
                ("lost", "\(summary.lost)"),
                ("min_us", microseconds(summary.min)),
                ("mean_us", microseconds(summary.mean)),
                ("stddev_us", microseconds(summary.standardDeviation)),
                ("p50_us", microseconds(summary.p50)),
                ("p90_us", microseconds(summary.p90)),
                ("p95_us", microseconds(summary.p95)),
                ("p99_us", microseconds(summary.p99)),
                ("p999_us", microseconds(summary.p999)),
                ("max_us", microseconds(summary.max)),
                ("under_us", microseconds(summary.under)),
                ("pct_under", summary.percentUnder.map { DecimalText.fixed($0, fractionDigits: 3) } ?? "null"),
                ("precision", summary.isExact ? "\"exact\"" : "\"\(SummaryCSV.histogramPrecision)\""),
            ]
            return object(values)
        }
        fields.append(("metrics", "[" + metrics.joined(separator: ",") + "]"))
        fields.append(("thresholds", ThresholdsJSON.render(thresholds)))
        return object(fields)
    }

    private static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(JSONText.string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    private static func microseconds(_ value: UInt64?) -> String {
        value.map { DecimalText.microseconds(fromNanoseconds: $0) } ?? "null"
    }

    private static func microseconds(_ value: Double?) -> String {
        value.map { DecimalText.fixed($0 / 1_000, fractionDigits: 3) } ?? "null"
    }

}
