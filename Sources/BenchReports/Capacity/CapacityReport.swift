import BenchCore

/// What a capacity search (`bench capacity`) found, and the runs it made: written as `capacity.csv`, `capacity.md`
/// and `capacity.html` in the search's folder, and as its line (or JSON object) on stdout.
public struct CapacityReport {
    /// The setting searched: its option's name, and how its values read.
    public enum Axis: String, Sendable {
        case clients, interval, payload

        /// `1,984 clients`, `37µs`, `64KiB`.
        public func text(_ value: UInt64) -> String {
            switch self {
            case .clients: return Self.grouped(value) + (value == 1 ? " client" : " clients")
            case .interval: return DurationText.display(value)
            case .payload: return ByteSizeText.format(Int(clamping: value))
            }
        }

        /// The value as its option takes it, exact: `2000`, `2.5ms`, `1KiB`. Each step's command line and run folder name
        /// carry it.
        public func optionText(_ value: UInt64) -> String {
            switch self {
            case .clients: return "\(value)"
            case .interval: return DurationText.format(value)
            case .payload: return ByteSizeText.format(Int(clamping: value))
            }
        }

        /// `19,984`: digits in groups of three.
        static func grouped(_ value: UInt64) -> String {
            let digits = Array(String(value))
            return stride(from: digits.count, to: 0, by: -3).reversed().map { end in
                String(digits[max(0, end - 3)..<end])
            }.joined(separator: ",")
        }

        /// The CSV column of the value, with its unit.
        public var column: String {
            switch self {
            case .clients: return "clients"
            case .interval: return "interval_ns"
            case .payload: return "payload_bytes"
            }
        }
    }

    /// One run of the search.
    public struct Run: Sendable {
        public var step: Int
        public var value: UInt64
        public var repeatIndex: Int
        public var verdict: CapacitySearch.Verdict
        /// Each objective's verdict, in the order given.
        public var objectives: [ThresholdResult]
        /// Why the harness was saturated, when it was.
        public var harnessSaturation: String?
        /// The run folder's name, in the search's folder.
        public var folder: String

        public init(
            step: Int, value: UInt64, repeatIndex: Int, verdict: CapacitySearch.Verdict, objectives: [ThresholdResult],
            harnessSaturation: String?, folder: String
        ) {
            self.step = step
            self.value = value
            self.repeatIndex = repeatIndex
            self.verdict = verdict
            self.objectives = objectives
            self.harnessSaturation = harnessSaturation
            self.folder = folder
        }
    }

    public static let csvName = "capacity.csv"
    public static let markdownName = "capacity.md"
    public static let htmlName = "capacity.html"

    public var scenario: String
    public var axis: Axis
    /// The objectives, as written (`spread.p99<200ms`).
    public var objectives: [String]
    public var search: CapacitySearch
    public var runs: [Run]
    /// How long the search took (ns).
    public var duration: UInt64
    /// Why the search stopped before its end (interrupted, a run that could not run); nil when it ended.
    public var cutShort: String?
    /// `--threshold` on the capacity, checked.
    public var thresholds: [(expression: String, held: Bool)]

    public init(
        scenario: String, axis: Axis, objectives: [String], search: CapacitySearch, runs: [Run], duration: UInt64,
        cutShort: String?, thresholds: [(expression: String, held: Bool)]
    ) {
        self.scenario = scenario
        self.axis = axis
        self.objectives = objectives
        self.search = search
        self.runs = runs
        self.duration = duration
        self.cutShort = cutShort
        self.thresholds = thresholds
    }

    /// The line on stdout: `capacity: 1,984 clients (spread.p99<100ms held at 1,984 clients, broke at 2,016 clients;
    /// 9 steps, 3 min)`.
    public var line: String {
        let slo = objectives.joined(separator: " and ")
        let steps = "\(Set(runs.map(\.step)).count) steps, \(DurationText.display(duration))"
        let held = search.capacity.map { axis.text($0) }
        let broke = search.firstFail.map { axis.text($0) }
        var text: String
        switch cutShort == nil ? search.ending : nil {
        case .lowEndFails?:
            text = "capacity: below \(axis.text(search.low)) (\(slo) broke at \(broke ?? "the low end"); \(steps))"
        case .highEndHolds?:
            text = "capacity: at least \(held ?? "") (\(slo) held up to the high end; \(steps))"
        case .harnessBound?:
            let at = search.steps.last { $0.verdict == .harnessBound }.map { axis.text($0.value) } ?? ""
            text = held.map { "capacity: at least \($0)" } ?? "capacity: not measured"
            text += " (the harness was saturated at \(at), where \(slo) broke: the harness, not the server, was the limit; "
                + "\(steps))"
        case .found?, .stepLimit?:
            text = "capacity: \(held ?? "") (\(slo) held at \(held ?? ""), broke at \(broke ?? ""); \(steps))"
            if search.ending == .stepLimit { text += "; the search stopped after its step limit" }
        case nil:
            text = "capacity: at least \(held ?? "nothing yet") (\(cutShort ?? "cut short"); \(steps))"
        }
        if search.isNonMonotonic {
            text += "; not monotonic: a harder step passed after an easier one broke, so the capacity is bounded by the "
                + "lowest failure"
        }
        return text
    }

    /// The search as one JSON object.
    public var json: String {
        func number(_ value: UInt64?) -> String { value.map { "\($0)" } ?? "null" }
        let runs = runs.map { run in
            let objectives = run.objectives.map { result in
                "{\"expression\":\(SummaryJSON.string(result.expression)),\"measured\":"
                    + (result.measuredText.map(SummaryJSON.string) ?? "null") + ",\"held\":\(result.held)}"
            }.joined(separator: ",")
            return "{\"step\":\(run.step),\"value\":\(run.value),\"repeat\":\(run.repeatIndex),"
                + "\"verdict\":\"\(run.verdict.rawValue)\",\"harness_saturated\":\(run.harnessSaturation != nil),"
                + "\"objectives\":[\(objectives)],\"folder\":\(SummaryJSON.string(run.folder))}"
        }.joined(separator: ",")
        return "{\"scenario\":\(SummaryJSON.string(scenario)),\"axis\":\"\(axis.rawValue)\",\"unit\":\"\(axis.column)\","
            + "\"capacity\":\(number(search.capacity)),\"last_pass\":\(number(search.lastPass)),"
            + "\"first_fail\":\(number(search.firstFail)),\"ending\":"
            + (cutShort == nil ? "\"\(search.ending?.rawValue ?? "found")\"" : "\"cut-short\"")
            + ",\"non_monotonic\":\(search.isNonMonotonic),\"duration_s\":\(DecimalText.fixed(Double(duration) / 1e9, fractionDigits: 3)),"
            + "\"line\":\(SummaryJSON.string(line)),\"steps\":[\(runs)]}"
    }

    /// Writes `capacity.csv`, `capacity.md` and `capacity.html` into `folder`.
    public func write(into folder: String) throws {
        try AtomicFile.writeCSV(folder + "/" + Self.csvName) { csv in
            // Each objective's measured figure as a number, its unit in the column's name (times in µs).
            let units = runs.first?.objectives.map { " (\(MeasuredUnit($0).rawValue))" }
                ?? Array(repeating: "", count: objectives.count)
            try csv.row(["step", axis.column, "repeat", "verdict"]
                + zip(objectives, units).map { "\($0) measured\($1)" } + ["harness_saturated", "run_folder"])
            for run in runs {
                try csv.row(["\(run.step)", "\(run.value)", "\(run.repeatIndex)", run.verdict.rawValue]
                    + run.objectives.map { result in
                        result.measuredNumber.map { DecimalText.fixed($0, fractionDigits: 3) } ?? ""
                    } + [run.harnessSaturation == nil ? "0" : "1", run.folder])
            }
        }
        try AtomicFile.writeText(folder + "/" + Self.markdownName, markdown)
        try AtomicFile.writeText(folder + "/" + Self.htmlName, CapacityHTML.render(self))
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

    /// `capacity.md`: the line, then a table of the runs.
    public var markdown: String {
        var text = "### bench capacity \(scenario): \(axis.rawValue)\n\n**\(line)**\n\n"
        for threshold in thresholds { text += "- \(threshold.held ? "✅" : "❌") `\(threshold.expression)`\n" }
        text += (thresholds.isEmpty ? "" : "\n") + "| step | \(axis.rawValue) | repeat | verdict | "
            + objectives.map { "`\($0)`" }.joined(separator: " | ") + " | harness |\n|---|---|---|---|"
            + String(repeating: "---|", count: objectives.count + 1) + "\n"
        for run in runs {
            text += "| \(run.step) | \(axis.text(run.value)) | \(run.repeatIndex) | \(run.verdict.rawValue) | "
                + run.objectives.map { $0.measuredText ?? "–" }.joined(separator: " | ")
                + " | \(run.harnessSaturation == nil ? "kept up" : "saturated") |\n"
        }
        return text
    }
}
