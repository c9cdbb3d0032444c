import BenchCore

/// A sweep's own reports, written into its folder beside one run folder per step: `sweep.csv` (one row per step ×
/// metric), `sweep.md` (the same as a Markdown table) and `sweep.html` (the curves against the swept setting).
///
/// With `--repeat`, a step's row holds the median of its repeats, and each statistic's smallest and largest value and
/// relative range (`(max − min) / median`) beside it.
public struct SweepReport {
    /// One run of the sweep.
    public struct Step {
        /// The swept settings' `sweep.csv` columns and values (`clients` 1000…).
        public var settings: [(column: String, value: String)]
        public var repeatIndex: Int
        /// The run folder's name in the sweep folder.
        public var folder: String
        public var summaries: [DistributionSummary]
        /// The run was no measurement of the server (its numbers stay in the medians, marked): its harness saturated,
        /// or other work on the machine held its timetable back.
        public var saturated: Bool
        public var disturbed: Bool

        public init(
            settings: [(column: String, value: String)], repeatIndex: Int, folder: String, summaries: [DistributionSummary],
            saturated: Bool = false, disturbed: Bool = false
        ) {
            (self.saturated, self.disturbed) = (saturated, disturbed)
            self.settings = settings
            self.repeatIndex = repeatIndex
            self.folder = folder
            self.summaries = summaries
        }

        /// The step's swept values: what its repeats share.
        public var key: [String] { settings.map(\.value) }
    }

    /// A statistic of `sweep.csv`: its column and how to read it from a summary (µs for times, as in summary.csv).
    struct Statistic: Sendable {
        let column: String
        let value: @Sendable (DistributionSummary) -> Double?
        let isTime: Bool
    }

    static let statistics: [Statistic] = [
        Statistic(column: "count", value: { Double($0.count) }, isTime: false),
        Statistic(column: "lost", value: { Double($0.lost) }, isTime: false),
        Statistic(column: "p50_us", value: { $0.p50.map { Double($0) / 1000 } }, isTime: true),
        Statistic(column: "p90_us", value: { $0.p90.map { Double($0) / 1000 } }, isTime: true),
        Statistic(column: "p99_us", value: { $0.p99.map { Double($0) / 1000 } }, isTime: true),
        Statistic(column: "p999_us", value: { $0.p999.map { Double($0) / 1000 } }, isTime: true),
        Statistic(column: "max_us", value: { $0.max.map { Double($0) / 1000 } }, isTime: true),
        Statistic(column: "pct_under", value: { $0.percentUnder }, isTime: false),
    ]

    public static let csvFileName = "sweep.csv"
    public static let markdownFileName = "sweep.md"
    public static let htmlFileName = "sweep.html"

    public let scenario: String
    public let under: UInt64
    public let repeats: Int
    public let steps: [Step]

    public init(scenario: String, under: UInt64, repeats: Int, steps: [Step]) {
        self.scenario = scenario
        self.under = under
        self.repeats = repeats
        self.steps = steps
    }

    /// One row of the sweep: a step (its repeats together) and a metric, each statistic's median and its range.
    struct Row {
        let settings: [(column: String, value: String)]
        let metric: String
        let repeats: Int
        /// Of the repeats, those whose harness was saturated, and those other work on the machine disturbed.
        let saturated: Int
        let disturbed: Int
        /// Per statistic: the median of the repeats, and their smallest and largest value (nil: never measured).
        let values: [(median: Double, low: Double, high: Double)?]
    }

    /// The rows, in step order, then metric order.
    var rows: [Row] {
        var order: [[String]] = []
        var groups: [[String]: [Step]] = [:]
        for step in steps {
            if groups[step.key] == nil { order.append(step.key) }
            groups[step.key, default: []].append(step)
        }
        var rows: [Row] = []
        for key in order {
            let group = groups[key]!
            for metric in group[0].summaries.map(\.metric) {
                let summaries = group.compactMap { $0.summaries.first { $0.metric == metric } }
                let values = Self.statistics.map { statistic -> (median: Double, low: Double, high: Double)? in
                    let measured = summaries.compactMap(statistic.value).sorted()
                    guard !measured.isEmpty else { return nil }
                    let middle = measured.count / 2
                    let median = measured.count % 2 == 1 ? measured[middle] : (measured[middle - 1] + measured[middle]) / 2
                    return (median, measured.first!, measured.last!)
                }
                rows.append(Row(
                    settings: group[0].settings, metric: metric, repeats: group.count,
                    saturated: group.filter(\.saturated).count, disturbed: group.filter(\.disturbed).count, values: values))
            }
        }
        return rows
    }

    /// `sweep.csv`'s columns: the swept settings, `metric`, `repeats`, then each statistic (with `--repeat`, followed
    /// by its `_min`, `_max` and `_range_pct`), then how many of the repeats were saturated or disturbed.
    var header: [String] {
        let settings = steps.first?.settings.map(\.column) ?? []
        let statistics = Self.statistics.flatMap { statistic in
            repeats > 1
                ? [statistic.column, statistic.column + "_min", statistic.column + "_max", statistic.column + "_range_pct"]
                : [statistic.column]
        }
        return settings + ["metric", "repeats"] + statistics + ["saturated_runs", "disturbed_runs"]
    }

    /// Writes `sweep.csv`, `sweep.md` and `sweep.html` into `folder`, each atomically.
    public func write(into folder: String) throws {
        try AtomicFile.writeCSV(folder + "/" + Self.csvFileName) { writer in
            try writer.row(header)
            for row in rows {
                for setting in row.settings { writer.field(setting.value) }
                writer.field(row.metric)
                writer.field(row.repeats)
                for (statistic, value) in zip(Self.statistics, row.values) {
                    let digits = statistic.isTime || statistic.column == "pct_under" ? 3 : 1
                    let columns = repeats > 1 ? 4 : 1
                    guard let value else {
                        for _ in 0..<columns { writer.emptyField() }
                        continue
                    }
                    writer.field(value.median, fractionDigits: statistic.isTime || digits == 3 ? 3 : 0)
                    if repeats > 1 {
                        writer.field(value.low, fractionDigits: digits == 3 ? 3 : 0)
                        writer.field(value.high, fractionDigits: digits == 3 ? 3 : 0)
                        let range = value.median > 0 ? (value.high - value.low) / value.median * 100 : 0
                        writer.field(range, fractionDigits: 1)
                    }
                }
                writer.field(row.saturated)
                writer.field(row.disturbed)
                try writer.endRow()
            }
        }
        try AtomicFile.writeText(folder + "/" + Self.markdownFileName, markdown)
        try AtomicFile.writeText(folder + "/" + Self.htmlFileName, SweepHTML.render(self))
    }

    /// `sweep.md`: the sweep as a Markdown table, times as the summary table shows them.
    public var markdown: String {
        var text = "### bench \(scenario) sweep: \(Set(steps.map(\.key)).count) steps"
            + (repeats > 1 ? " × \(repeats) repeats (medians)" : "") + "\n\n"
        text += "| " + columns.joined(separator: " | ") + " |\n"
        text += "|" + columns.map { _ in "---" }.joined(separator: "|") + "|\n"
        for row in rows { text += "| " + cells(row).joined(separator: " | ") + " |\n" }
        let notes = conditionNotes
        if !notes.isEmpty { text += "\n" + notes.map { "- ⚠️ " + $0 }.joined(separator: "\n") + "\n" }
        return text
    }

    /// `clients 1000: 1 of 3 runs saturated, partly the harness's (in the medians)`: each step with runs that were no
    /// measurement of the server, for sweep.md, sweep.html and the terminal.
    var conditionNotes: [String] {
        var seen: Set<[String]> = []
        return rows.compactMap { row in
            guard row.saturated + row.disturbed > 0, seen.insert(row.settings.map(\.value)).inserted else { return nil }
            let step = row.settings.map { "\($0.column) \($0.value)" }.joined(separator: ", ")
            var parts: [String] = []
            if row.saturated > 0 { parts.append("\(row.saturated) saturated (the harness's numbers)") }
            if row.disturbed > 0 { parts.append("\(row.disturbed) disturbed (other work on the machine)") }
            return "\(step): of \(row.repeats) run\(row.repeats == 1 ? "" : "s"), " + parts.joined(separator: ", ")
                + "; in the medians all the same"
        }
    }

    /// The same table for the terminal, at the sweep's end: every step's every metric, columns aligned.
    public var text: String {
        let settings = steps.first?.settings.count ?? 0  // settings and metric to the left
        return TextColumns.align([columns] + rows.map(cells), leftAligned: settings + 1).joined(separator: "\n") + "\n"
            + conditionNotes.map { "warning: " + $0 + "\n" }.joined()
    }

    /// The tables' columns: the swept settings, then the summary table's.
    private var columns: [String] {
        (steps.first?.settings.map(\.column) ?? []) + SummaryRow.header(under: under)
    }

    /// A row's cells: its settings, the metric, then each statistic's median as the summary table shows it.
    private func cells(_ row: Row) -> [String] {
        var cells = row.settings.map(\.value) + [row.metric]
        for (statistic, value) in zip(Self.statistics, row.values) {
            guard let value else {
                cells.append("-")
                continue
            }
            if statistic.isTime {
                cells.append(DisplayDuration.text(nanoseconds: UInt64(roundingClamped: value.median * 1000)))
            } else if statistic.column == "pct_under" {
                cells.append(DecimalText.fixed(value.median, fractionDigits: 2) + "%")
            } else {
                cells.append(DecimalText.fixed(value.median, fractionDigits: 0))
            }
        }
        return cells
    }
}
