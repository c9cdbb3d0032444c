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

    /// Reads back what ``write(_:to:)`` wrote.
    public static func read(_ text: String) throws -> [ThresholdResult] {
        let rows = try CSVReader.rows(text)
        guard rows.first == header else {
            throw SavedRun.LoadError(description: "\(fileName) does not start with \(header.joined(separator: ","))")
        }
        return try rows.dropFirst().map { row in
            guard row.count == header.count else {
                throw SavedRun.LoadError(description: "\(fileName): a row has \(row.count) fields, not \(header.count)")
            }
            return ThresholdResult(
                expression: row[0], metric: row[1], statistic: row[2], comparison: row[3], limitText: row[4],
                measuredText: row[5].isEmpty ? nil : row[5], held: row[6] == "1")
        }
    }
}
