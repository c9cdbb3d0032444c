import BenchClients
import BenchCore
import BenchNet
import BenchScenarios
import BenchProtocols

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
    /// True when the run was cut off (killed, or the machine went down): its `run.csv` still says `running`, and
    /// what it streamed was read up to where it ends.
    public let wasCutOff: Bool
    /// A cut-off run's last report interval whose files were synced whole (-1: none); rows past it were not read.
    public let lastSyncedInterval: Int?

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
    /// Every summary also holds the other `percentiles` asked for (`[99.99]`), and those the saved thresholds read,
    /// and the counts over the `limits` asked for and the saved thresholds'.
    public init(folder: String, percentiles: [Double] = [], limits: [UInt64] = []) throws {
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
        // A run killed outright left run.csv as it was at the start: `running`. It is read as `incomplete`, its
        // files up to where they end (a row cut off by the kill is not read).
        let cutOff = settings.contains { $0.key == "status" && $0.value == RunSettingsCSV.runningStatus }
        wasCutOff = cutOff
        if cutOff {
            settings = settings.map { $0.key == "status" ? (key: "status", value: "incomplete") : $0 }
            if !settings.contains(where: { $0.key == "status_reason" }) {
                settings.append((key: "status_reason", value: ""))
            }
            settings = settings.map {
                $0.key == "status_reason"
                    ? (key: "status_reason", value: "the run was cut off; what it wrote up to then was read back") : $0
            }
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
        // Percentiles are exact as the run's were: summary.csv says which; a run cut off before writing one is read like
        // a live run, exact until its values pass the budget.
        // (The link groups' rows, in runs behind a mix of links, are read from their histograms whatever the run's were.)
        var (exact, linked) = (true, false)
        if let text = try? FileText.read(path(SummaryCSV.fileName)) {
            let rows = text.split(whereSeparator: \.isNewline)
            linked = rows.first?.hasSuffix(",link") == true
            exact = !rows.contains { $0.contains(SummaryCSV.histogramPrecision) && (!linked || $0.hasSuffix(",")) }
        }
        let budgetValues = max(0, Int(settings.first { $0.key == "exact_budget_bytes" }?.value ?? "") ?? .max) / 8
        func builder(_ metric: String) -> DistributionBuilder {
            DistributionBuilder(metric: metric, under: under, keepsValues: exact)
        }
        var keptValues = 0
        var timeline = try SavedTimeline(
            scenario: try setting("scenario"), settings: settings, cutOffFolder: cutOff ? folder : nil)
        /// A sample's latency, which must be there exactly when the sample is not lost.
        func sample(_ row: CSVFileRows.Row, _ column: Int, _ name: String, lost: Int) throws -> UInt64? {
            let value = try row.nanoseconds(column, named: name)
            guard (value == nil) == (row[lost] == "1"), row[lost] == "0" || row[lost] == "1" else {
                throw LoadError(description: "\(row.path) line \(row.line): lost is '\(row[lost].prefix(10))' and \(name) "
                    + (value == nil ? "is empty" : "is not"))
            }
            return value
        }
        /// Values kept for exact percentiles so far: past the budget, every builder keeps its histogram only.
        func kept(_ builders: inout [DistributionBuilder]) {
            keptValues += 1
            if keptValues > budgetValues { for index in builders.indices { builders[index].dropValues() } }
        }

        var builders: [DistributionBuilder] = []
        var roundTrips: OverTime?
        var broadcasts: [RunResults.Broadcast] = []
        let hasStack = settings.contains { $0.key == "timestamps" && $0.value == "both" }
        func record(_ value: UInt64?, _ metric: Int) {
            if let value {
                builders[metric].record(value)
                if builders[metric].keepsValues { kept(&builders) }
            } else {
                builders[metric].recordLost()
            }
        }
        let tolerant = cutOff
        let scenario = try setting("scenario")
        switch scenario {
        case "fanout", "chat":
            // A fanout through a user's server has no echoes: no rtt; a chat has its messages' own where the server sends
            // the sender its copy (in messages.csv).
            let chat = scenario == "chat"
            let target = settings.first { $0.key == "target" }?.value ?? ""
            let hasEchoes = chat ? (try? TargetURL(target))?.scheme.sendsChatToSender == true : target.isEmpty
            let names = ["delivery", "spread", "completion"] + (hasEchoes ? ["rtt"] : []) + ["lag"] + (hasStack ? ["stack"] : [])
            builders = names.map(builder)
            let (delivery, spread, completion, lag) = (0, 1, 2, hasEchoes ? 4 : 3)
            let rtt = hasEchoes ? 3 : nil
            let stack = hasStack ? names.count - 1 : nil
            let columns = ["delivery_ns", "lost", "interval"] + (hasStack ? ["stack_ns"] : []) + (hasEchoes && !chat ? ["rtt_ns"] : [])
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: columns, tolerant: tolerant) { row in
                guard let interval = try timeline.interval(row, 2) else { return }
                let value = try sample(row, 0, "delivery_ns", lost: 1)
                record(value, delivery)
                timeline.add(value, "delivery", interval: interval)
                if let rtt, !chat {
                    let value = try sample(row, columns.count - 1, "rtt_ns", lost: 1)
                    record(value, rtt)
                    timeline.add(value, "rtt", interval: interval)
                }
                if let stack, let value = try row.nanoseconds(3, named: "stack_ns") {
                    record(value, stack)
                    timeline.add(value, "stack", interval: interval)
                }
            }
            timeline.endFile()
            let broadcastColumns = [chat ? "seq" : "broadcast", "t0_ns", "lag_ns", "spread_ns", "completion_ns", "complete", "interval"]
                + (chat && hasEchoes ? ["rtt_ns"] : [])
            let file = BroadcastsCSV.file(for: chat ? .chat : .fanout)!.name
            var rows = 0
            try CSVFileRows.read(path(file), columns: broadcastColumns, tolerant: tolerant) { row in
                guard let index = Int(row[0]), index >= 0, row[5] == "0" || row[5] == "1" else {
                    throw LoadError(description: "\(row.path) line \(row.line): not a broadcast row")
                }
                guard let interval = try timeline.interval(row, 6) else { return }
                let complete = row[5] == "1"
                let spreadValue = try row.nanoseconds(3, named: "spread_ns")
                let completionValue = try row.nanoseconds(4, named: "completion_ns")
                guard complete == (spreadValue != nil), complete == (completionValue != nil) else {
                    throw LoadError(description: "\(row.path) line \(row.line): complete is \(row[5]) but spread_ns and "
                        + "completion_ns say otherwise")
                }
                record(spreadValue, spread)
                record(completionValue, completion)
                if chat, let rtt {
                    let value = try row.nanoseconds(7, named: "rtt_ns")  // empty: its own copy never came in time
                    record(value, rtt)
                    timeline.add(value, "rtt", interval: interval)
                }
                timeline.add(spreadValue, "spread", interval: interval)
                timeline.add(completionValue, "completion", interval: interval)
                if let value = try row.nanoseconds(2, named: "lag_ns") {
                    record(value, lag)
                    timeline.add(value, "lag", interval: interval)
                }
                let plotted = chat ? rows : index  // a chat message's sequence is its sender's: plotted in file order
                rows += 1
                if broadcasts.count < RunCollector.maximumPlottedBroadcasts && plotted == broadcasts.count {
                    broadcasts.append(RunResults.Broadcast(
                        index: plotted, start: try row.nanoseconds(1, named: "t0_ns") ?? 0, spread: spreadValue))
                } else {
                    broadcasts.removeAll()
                }
            }
        case "roundtrip":
            let names = ["rtt", "lag"] + (hasStack ? ["stack"] : [])
            builders = names.map(builder)
            var overTime = OverTime()
            let columns = ["rtt_ns", "lag_ns", "lost", "sent_ns", "interval"] + (hasStack ? ["stack_ns"] : [])
            try CSVFileRows.read(path(SamplesCSV.fileName), columns: columns, tolerant: tolerant) { row in
                guard let interval = try timeline.interval(row, 4) else { return }
                let rtt = try sample(row, 0, "rtt_ns", lost: 2)
                record(rtt, 0)
                timeline.add(rtt, "rtt", interval: interval)
                if let value = try row.nanoseconds(1, named: "lag_ns") {
                    record(value, 1)
                    timeline.add(value, "lag", interval: interval)
                }
                if let sent = try row.nanoseconds(3, named: "sent_ns") { overTime.add(time: sent, value: rtt) }
                if hasStack, let value = try row.nanoseconds(5, named: "stack_ns") {
                    record(value, 2)
                    timeline.add(value, "stack", interval: interval)
                }
            }
            roundTrips = overTime.finished()
        case let other:
            throw LoadError(description: "\(folder): unknown scenario '\(other)'")
        }
        lastSyncedInterval = timeline.lastSynced
        let stack = hasStack ? builders.removeLast() : nil
        // The connect metric, in runs written since it exists, and its phases in target runs written since they do.
        if Posix.fileExists(path(ConnectionsCSV.fileName)) {
            let header = try CSVFileRows.header(of: path(ConnectionsCSV.fileName))
            let phases = RunAnalysis.Metric.allCases.filter { $0.isConnectPhase && header.contains($0.rawValue + "_ns") }
            var connect = [builder("connect")] + phases.map { builder($0.rawValue) }
            try CSVFileRows.read(
                path(ConnectionsCSV.fileName), columns: ConnectionsCSV.header(phases: phases)
            ) { row in
                guard let value = try row.nanoseconds(1, named: "connect_ns") else {
                    throw LoadError(description: "\(row.path) line \(row.line): connect_ns is empty")
                }
                connect[0].record(value)
                for (index, metric) in phases.enumerated() {  // a client that reported no phases has none
                    if let value = try row.nanoseconds(2 + index, named: metric.rawValue + "_ns") { connect[1 + index].record(value) }
                }
            }
            builders += connect
        }
        // The reconnect metric, in runs that expected reconnects.
        if Posix.fileExists(path(ReconnectsCSV.fileName)) {
            var reconnect = builder("reconnect")
            try CSVFileRows.read(path(ReconnectsCSV.fileName), columns: ["client", "reconnect_ns"]) { row in
                if let value = try row.nanoseconds(1, named: "reconnect_ns") { reconnect.record(value) } else { reconnect.recordLost() }
            }
            builders.append(reconnect)
        }
        if let stack { builders.append(stack) }
        var thresholds: [ThresholdResult] = []
        if let text = try? FileText.read(path(ThresholdsCSV.fileName)) {
            thresholds = try ThresholdsCSV.read(text)
        }
        var roomSizes: [[String]] = []
        if Posix.fileExists(path(RoomSizesCSV.fileName)) {
            try CSVFileRows.read(path(RoomSizesCSV.fileName), columns: RoomSizesCSV.header) { roomSizes.append($0.values) }
        }
        // Behind a mix of links: summary.csv's rows of the link groups, as written (runs since it has a link column); a
        // damaged file loses them, not the report.
        var linkGroups: [[String]] = []
        if linked {
            var rows: [[String]] = []
            let read: ()? = try? CSVFileRows.read(path(SummaryCSV.fileName), columns: SummaryCSV.header) { row in
                if row.values.last?.isEmpty == false { rows.append(row.values) }
            }
            if read != nil { linkGroups = rows }
        }
        let requested = percentiles + Threshold.percentiles(in: thresholds.map(\.expression))
        let counted = limits + Threshold.countedLimits(in: thresholds.map(\.expression))
        results = RunResults(
            settings: self.settings, summaries: builders.map { $0.summary(percentiles: requested, limits: counted) },
            histograms: builders.map(\.histogram),
            broadcasts: broadcasts, thresholds: thresholds, roundTripsOverTime: roundTrips,
            timeline: timeline.rows(metrics: builders.map(\.metric)), roomSizes: roomSizes, linkGroups: linkGroups
        )
    }

    /// `fanout` or `roundtrip`.
    public var scenario: String { results.setting("scenario") ?? "" }
}
