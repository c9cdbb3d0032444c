import BenchCore

/// `thresholds.csv`: every threshold given for the run, held, breached or inconclusive: those the run was started with
/// (`source` `run`) and those a `bench check` added (`check`), each with what its verdict rests on.
public enum ThresholdsCSV {
    public static let fileName = "thresholds.csv"

    /// `values`: values judged (measured and lost); `beyond_limit`: how many lay on the wrong side of the limit (a
    /// share's statistics only); `ci95_low_us`/`ci95_high_us`: a percentile's 95% interval; `decision`: pass, fail or
    /// undecided at `confidence_pct`; `inconclusive`: why the verdict is not a measurement of the server (`;`-separated);
    /// then the limit and the measured value as numbers, in the column of their unit (the others empty): times in µs,
    /// shares in percent, counts of messages. (`limit` and `measured` are as people read them, units and all.)
    public static let header = [
        "expression", "metric", "stat", "op", "limit", "measured", "held", "source", "verdict", "values", "beyond_limit",
        "ci95_low_us", "ci95_high_us", "decision", "confidence_pct", "inconclusive", "limit_us", "measured_us",
        "limit_pct", "measured_pct", "limit_count", "measured_count",
    ]

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
            writer.field(result.verdict.rawValue)
            let evidence = result.evidence
            writer.field(evidence.map { "\($0.values)" } ?? "")
            writer.field(evidence?.beyond.map { "\($0)" } ?? "")
            writer.field(evidence?.interval.map { DecimalText.fixed($0.lowerBound, fractionDigits: 3) } ?? "")
            writer.field(evidence?.interval.map { DecimalText.fixed($0.upperBound, fractionDigits: 3) } ?? "")
            writer.field(evidence?.decision.rawValue ?? "")
            writer.field(evidence.map { DecimalText.fixed($0.confidence * 100, fractionDigits: 1) } ?? "")
            writer.field(result.inconclusive.map(\.rawValue).joined(separator: ";"))
            let unit = MeasuredUnit(result)
            for column in [MeasuredUnit.microseconds, .percent, .messages] {
                for number in [result.limitNumber, result.measuredNumber] {
                    writer.field(column == unit ? number.map { DecimalText.fixed($0, fractionDigits: 3) } ?? "" : "")
                }
            }
            try writer.endRow()
        }
    }

    /// The number in the unit's column that has one (`limit_us`, `limit_pct` or `limit_count`, from `first`, every
    /// second column).
    private static func number(_ row: [String], at first: Int) -> Double? {
        stride(from: first, to: row.count, by: 2).lazy.compactMap { Double(row[$0]) }.first
    }

    /// A row's evidence (nil where it has none): the share allowed comes from the expression, as the run judged it.
    private static func evidence(_ row: [String]) -> ThresholdResult.Evidence? {
        guard let values = Int(row[9]), let decision = ProportionDecision.Outcome(rawValue: row[13]),
            let confidence = Double(row[14])
        else { return nil }
        let nanoseconds = [row[11], row[12]].map { Double($0).map { UInt64(roundingClamped: ($0 * 1000).rounded()) } }
        var interval: ClosedRange<Double>?
        var intervalText: String?
        if let low = nanoseconds[0], let high = nanoseconds[1], low <= high {
            interval = (Double(low) / 1000)...(Double(high) / 1000)
            intervalText = DurationText.display(low) + "–" + DurationText.display(high)
        }
        return ThresholdResult.Evidence(
            values: values, beyond: Int(row[10]),
            allowedShare: (try? Threshold(parsing: row[0], defaultMetric: row[1], metrics: [row[1]]))?.allowedShare,
            interval: interval, intervalText: intervalText, confidence: confidence / 100, decision: decision)
    }

    /// Reads back what ``write(_:to:)`` wrote, evidence and all (a percentile's interval to the nanosecond, as written),
    /// and the files of runs written before its later columns existed (`source` all `run`; no evidence, nothing
    /// inconclusive).
    public static func read(_ text: String) throws -> [ThresholdResult] {
        let rows = try CSVReader.rows(text)
        guard let first = rows.first, [7, 8, 16, header.count].contains(first.count), first == Array(header.prefix(first.count))
        else {
            throw SavedRun.LoadError(description: "\(fileName) does not start with \(header.joined(separator: ","))")
        }
        return try rows.dropFirst().map { row in
            guard row.count == first.count else {
                throw SavedRun.LoadError(description: "\(fileName): a row has \(row.count) fields, not \(first.count)")
            }
            let source = row.count > 7 ? ThresholdResult.Source(rawValue: row[7]) : .run
            guard let source else { throw SavedRun.LoadError(description: "\(fileName): unknown source '\(row[7])'") }
            var inconclusive: [InconclusiveReason] = []
            if row.count >= 16, !row[15].isEmpty {
                let (reasons, unknown) = InconclusiveReason.parseList(row[15].replacingAll(";", with: ","))
                guard unknown.isEmpty else {
                    throw SavedRun.LoadError(description: "\(fileName): unknown reason '\(unknown[0])'")
                }
                inconclusive = InconclusiveReason.allCases.filter(reasons.contains)
            }
            return ThresholdResult(
                expression: row[0], metric: row[1], statistic: row[2], comparison: row[3], limitText: row[4],
                measuredText: row[5].isEmpty ? nil : row[5], held: row[6] == "1", source: source,
                measuredNumber: row.count == header.count ? number(row, at: 17) : nil,
                limitNumber: row.count == header.count ? number(row, at: 16) : nil,
                evidence: row.count >= 16 ? evidence(row) : nil, inconclusive: inconclusive)
        }
    }
}

/// What an objective's measured number (``ThresholdResult/measuredNumber``) counts: times in microseconds, the
/// share under (or lost) in percent, losses in messages.
enum MeasuredUnit: String {
    case microseconds = "µs", percent = "%", messages

    init(_ result: ThresholdResult) {
        if result.statistic == "pct_under" || result.limitText.hasSuffix("%") {
            self = .percent
        } else {
            self = result.statistic == "lost" ? .messages : .microseconds
        }
    }
}
