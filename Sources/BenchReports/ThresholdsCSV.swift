import BenchCore

/// `thresholds.csv`: every threshold given for the run, held or breached: those the run was started with
/// (`source` `run`) and those a `bench check` added (`check`).
public enum ThresholdsCSV {
    public static let fileName = "thresholds.csv"

    public static let header = ["expression", "metric", "stat", "op", "limit", "measured", "held", "source"]

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
            writer.field(result.source.rawValue)
            try writer.endRow()
        }
    }

    /// Reads back what ``write(_:to:)`` wrote, and the files of runs written before `source` existed (all `run`).
    public static func read(_ text: String) throws -> [ThresholdResult] {
        let rows = try CSVReader.rows(text)
        guard let first = rows.first, first == header || first == Array(header.dropLast()) else {
            throw SavedRun.LoadError(description: "\(fileName) does not start with \(header.joined(separator: ","))")
        }
        return try rows.dropFirst().map { row in
            guard row.count == first.count else {
                throw SavedRun.LoadError(description: "\(fileName): a row has \(row.count) fields, not \(first.count)")
            }
            let source = row.count > 7 ? ThresholdResult.Source(rawValue: row[7]) : .run
            guard let source else { throw SavedRun.LoadError(description: "\(fileName): unknown source '\(row[7])'") }
            return ThresholdResult(
                expression: row[0], metric: row[1], statistic: row[2], comparison: row[3], limitText: row[4],
                measuredText: row[5].isEmpty ? nil : row[5], held: row[6] == "1", source: source)
        }
    }
}
