import BenchCore
import BenchNet
import BenchScenarios

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

    /// The largest time a run can measure: its longest timetable and timeout. A larger value in a saved run's file
    /// was not written by a run.
    static let largestTime = RunConfiguration.Limits.longestTimetable + 3 * RunConfiguration.Limits.longestDuration

    /// Reads the run in `folder`.
    ///
    /// `samples.csv` and `broadcasts.csv` are streamed straight into the distributions: besides one row at a time,
    /// memory holds only the values the distributions keep (8 bytes each), not the files. What the files hold is
    /// checked as it is read: every time a whole number of nanoseconds a run can measure, and a sample's `lost` in
    /// agreement with its latency (empty exactly when lost); anything else is a damaged folder, not a loss.
    /// Every summary also holds the other `percentiles` asked for (`[99.99]`), and those the saved thresholds read.
    public init(folder: String, percentiles: [Double] = []) throws {
        self.folder = folder
        func path(_ name: String) -> String { folder + "/" + name }
        var settings: [(key: String, value: String)] = []
        do {
            try CSVFileRows.read(path(RunSettingsCSV.fileName), columns: ["key", "value"]) { row in
                settings.append((key: row[0], value: row[1]))
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
        guard let under = UInt64(try setting("under_ns")), under > 0, under <= RunConfiguration.Limits.longestDuration
        else {
            throw LoadError(description: "\(folder)/\(RunSettingsCSV.fileName): under_ns is not a duration a run takes")
        }
        func builder(_ metric: String) -> DistributionBuilder { DistributionBuilder(metric: metric, under: under) }
        /// A sample's latency, which must be there exactly when the sample is not lost.
        func recordSample(_ row: CSVFileRows.Row, _ column: Int, _ name: String, lost: Int, into builder: inout DistributionBuilder) throws {
            let value = try row.nanoseconds(column, named: name)
            guard (value == nil) == (row[lost] == "1"), row[lost] == "0" || row[lost] == "1" else {
                throw LoadError(description: "\(row.path) line \(row.line): lost is '\(row[lost].prefix(10))' and \(name) "
                    + (value == nil ? "is empty" : "is not"))
            }
            if let value { builder.record(value) } else { builder.recordLost() }
        }

        var builders: [DistributionBuilder]
        var roundTrips: OverTime?
        var broadcasts: [RunResults.Broadcast] = []
        var stack = builder("stack")
        let hasStack = settings.contains { $0.key == "timestamps" && $0.value == "both" }
        switch try setting("scenario") {
        case "fanout":
            var (delivery, spread, completion, rtt, lag) = (
                builder("delivery"), builder("spread"), builder("completion"), builder("rtt"), builder("lag")
            )
            // A fanout through a user's server has no echoes: no rtt.
            let hasEchoes = (settings.first { $0.key == "target" }?.value ?? "").isEmpty
            let columns = ["delivery_ns", "rtt_ns", "lost"] + (hasStack ? ["stack_ns"] : [])
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: columns) { row in
                try recordSample(row, 0, "delivery_ns", lost: 2, into: &delivery)
                if hasEchoes { try recordSample(row, 1, "rtt_ns", lost: 2, into: &rtt) }
                if hasStack, let value = try row.nanoseconds(3, named: "stack_ns") { stack.record(value) }
            }
            let broadcastColumns = ["broadcast", "t0_ns", "lag_ns", "spread_ns", "completion_ns", "complete"]
            try CSVFileRows.read(path(BroadcastsCSV.fileName), columns: broadcastColumns) { row in
                guard let index = Int(row[0]), index >= 0, row[5] == "0" || row[5] == "1" else {
                    throw LoadError(description: "\(row.path) line \(row.line): not a broadcast row")
                }
                let complete = row[5] == "1"
                let spreadValue = try row.nanoseconds(3, named: "spread_ns")
                let completionValue = try row.nanoseconds(4, named: "completion_ns")
                guard complete == (spreadValue != nil), complete == (completionValue != nil) else {
                    throw LoadError(description: "\(row.path) line \(row.line): complete is \(row[5]) but spread_ns and "
                        + "completion_ns say otherwise")
                }
                if let value = spreadValue { spread.record(value) } else { spread.recordLost() }
                if let value = completionValue { completion.record(value) } else { completion.recordLost() }
                if let value = try row.nanoseconds(2, named: "lag_ns") { lag.record(value) }
                broadcasts.append(RunResults.Broadcast(
                    index: index, start: try row.nanoseconds(1, named: "t0_ns") ?? 0, spread: spreadValue))
            }
            builders = [delivery, spread, completion] + (hasEchoes ? [rtt] : []) + [lag]
        case "roundtrip":
            var (rtt, lag) = (builder("rtt"), builder("lag"))
            var overTime = OverTime(durationText: settings.first { $0.key == "duration_s" }?.value ?? "")
            let columns = ["rtt_ns", "lag_ns", "lost", "sent_ns"] + (hasStack ? ["stack_ns"] : [])
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: columns) { row in
                try recordSample(row, 0, "rtt_ns", lost: 2, into: &rtt)
                if let value = try row.nanoseconds(1, named: "lag_ns") { lag.record(value) }
                if let sent = try row.nanoseconds(3, named: "sent_ns") {
                    overTime.add(time: sent, value: try row.nanoseconds(0, named: "rtt_ns"))
                }
                if hasStack, let value = try row.nanoseconds(4, named: "stack_ns") { stack.record(value) }
            }
            roundTrips = overTime.finished()
            builders = [rtt, lag]
        case let other:
            throw LoadError(description: "\(folder): unknown scenario '\(other)'")
        }
        // The connect metric, in runs written since it exists.
        if Posix.fileExists(path(ConnectionsCSV.fileName)) {
            var connect = builder("connect")
            try CSVFileRows.read(path(ConnectionsCSV.fileName), columns: ["client", "connect_ns"]) { row in
                guard let value = try row.nanoseconds(1, named: "connect_ns") else {
                    throw LoadError(description: "\(row.path) line \(row.line): connect_ns is empty")
                }
                connect.record(value)
            }
            builders.append(connect)
        }
        if hasStack { builders.append(stack) }
        var thresholds: [ThresholdResult] = []
        if let text = try? FileText.read(path(ThresholdsCSV.fileName)) {
            thresholds = try ThresholdsCSV.read(text)
        }
        let requested = percentiles + Threshold.percentiles(in: thresholds.map(\.expression))
        results = RunResults(
            settings: settings, summaries: builders.map { $0.summary(percentiles: requested) },
            histograms: builders.map(\.histogram),
            broadcasts: broadcasts, thresholds: thresholds, roundTripsOverTime: roundTrips
        )
    }

    /// `fanout` or `roundtrip`.
    public var scenario: String { results.setting("scenario") ?? "" }
}
