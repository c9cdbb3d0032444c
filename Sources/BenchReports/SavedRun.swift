import BenchCore

/// A run folder read back from its CSV files alone: the settings, every metric's distribution rebuilt from
/// `samples.csv` and `broadcasts.csv` exactly as the run computed it, and the thresholds checked last
/// (`thresholds.csv`, if any).
public struct SavedRun: Sendable {
    /// The folder it was read from.
    public let folder: String
    /// `run.csv`, in file order.
    public let settings: [(key: String, value: String)]
    /// The distributions, in report order, with their histograms and (fanout) broadcasts.
    public let results: RunResults

    /// Why a folder could not be read as a run.
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the run in `folder`.
    ///
    /// `samples.csv` and `broadcasts.csv` are streamed straight into the distributions: besides one row at a time,
    /// memory holds only the values the distributions keep (8 bytes each), not the files.
    public init(folder: String) throws {
        self.folder = folder
        func path(_ name: String) -> String { folder + "/" + name }
        var settings: [(key: String, value: String)] = []
        do {
            try CSVFileRows.read(path(RunSettingsCSV.fileName), columns: ["key", "value"]) { row in
                settings.append((key: row[0] ?? "", value: row[1] ?? ""))
            }
        } catch {
            throw LoadError(description: "\(folder) is not a run folder: \(error)")
        }
        self.settings = settings
        func setting(_ key: String) throws -> String {
            guard let value = settings.first(where: { $0.key == key })?.value else {
                throw LoadError(description: "\(folder)/\(RunSettingsCSV.fileName) has no \(key)")
            }
            return value
        }
        guard let under = UInt64(try setting("under_ns")) else {
            throw LoadError(description: "\(folder)/\(RunSettingsCSV.fileName): under_ns is not a number")
        }
        func builder(_ metric: String) -> DistributionBuilder { DistributionBuilder(metric: metric, under: under) }
        func record(_ cell: String?, into builder: inout DistributionBuilder, lostWhenEmpty: Bool) {
            if let cell, let value = UInt64(cell) {
                builder.record(value)
            } else if lostWhenEmpty {
                builder.recordLost()
            }
        }

        var builders: [DistributionBuilder]
        var broadcasts: [RunResults.Broadcast] = []
        var stack = builder("stack")
        switch try setting("scenario") {
        case "fanout":
            var (delivery, spread, completion, rtt, lag) = (
                builder("delivery"), builder("spread"), builder("completion"), builder("rtt"), builder("lag")
            )
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: ["delivery_ns", "rtt_ns", "stack_ns"]) { row in
                record(row[0], into: &delivery, lostWhenEmpty: true)
                record(row[1], into: &rtt, lostWhenEmpty: true)
                record(row[2], into: &stack, lostWhenEmpty: false)
            }
            let columns = ["broadcast", "t0_ns", "lag_ns", "spread_ns", "completion_ns", "complete"]
            try CSVFileRows.read(path(BroadcastsCSV.fileName), columns: columns) { row in
                let complete = row[5] == "1"
                record(complete ? row[3] : nil, into: &spread, lostWhenEmpty: true)
                record(complete ? row[4] : nil, into: &completion, lostWhenEmpty: true)
                record(row[2], into: &lag, lostWhenEmpty: false)
                broadcasts.append(RunResults.Broadcast(
                    index: Int(row[0] ?? "") ?? broadcasts.count,
                    start: UInt64(row[1] ?? "") ?? 0,
                    spread: complete ? UInt64(row[3] ?? "") : nil
                ))
            }
            builders = [delivery, spread, completion, rtt, lag]
        case "roundtrip":
            var (rtt, lag) = (builder("rtt"), builder("lag"))
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: ["rtt_ns", "lag_ns", "stack_ns"]) { row in
                record(row[0], into: &rtt, lostWhenEmpty: true)
                record(row[1], into: &lag, lostWhenEmpty: false)
                record(row[2], into: &stack, lostWhenEmpty: false)
            }
            builders = [rtt, lag]
        case let other:
            throw LoadError(description: "\(folder): unknown scenario '\(other)'")
        }
        if settings.contains(where: { $0.key == "timestamps" && $0.value == "both" }) { builders.append(stack) }
        var thresholds: [ThresholdResult] = []
        if let text = try? FileText.read(path(ThresholdsCSV.fileName)) {
            thresholds = try ThresholdsCSV.read(text)
        }
        results = RunResults(
            settings: settings, summaries: builders.map { $0.summary() }, histograms: builders.map(\.histogram),
            broadcasts: broadcasts, thresholds: thresholds
        )
    }

    /// `fanout` or `roundtrip`.
    public var scenario: String { results.setting("scenario") ?? "" }
}
