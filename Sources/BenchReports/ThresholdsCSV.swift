import BenchCore

/// `thresholds.csv`: every threshold given for the run, held or breached.
public enum ThresholdsCSV {
    public static let fileName = "thresholds.csv"

    public static let header = ["expression", "metric", "stat", "op", "limit", "measured", "held"]

    /// Writes `thresholds.csv`; `measured` is empty when the run has no such value (then it did not hold).
    public static func write<Sink: ByteSink>(_ results: [ThresholdResult], to writer: inout CSVWriter<Sink>) throws {
        try writer.row(header)
        for result in results {
            writer.field(result.expression)
            writer.field(result.metric)
            writer.field(result.statistic)
            writer.field(result.comparison)
            writer.field(result.limitText)
            if let measured = result.measuredText { writer.field(measured) } else { writer.emptyField() }
            writer.flag(result.held)
            try writer.endRow()
        }
    }
}
