import BenchCore

/// What a capacity search (`bench capacity`) found, and the runs it made: written as `capacity.csv`, `capacity.md`
/// and `capacity.html` in the search's folder, and as its line (or JSON object) on stdout.
public struct CapacityReport {
    /// The setting searched: its option's name, and how its values read.
    public enum Axis: String, Sendable {
        case clients, interval, payload
        /// Chat: each member's messages per hour (`--rate`).
        case rate

        /// `1,984 clients`, `37µs`, `64KiB`, `2.5/s`.
        public func text(_ value: UInt64) -> String {
            switch self {
            case .clients: return Self.grouped(value) + (value == 1 ? " client" : " clients")
            case .interval: return DurationText.display(value)
            case .payload: return ByteSizeText.format(Int(clamping: value))
            case .rate: return DecimalText.fixed(Double(value) / 3_600, fractionDigits: value % 3_600 == 0 ? 0 : 2) + "/s"
            }
        }

        /// The value as its option takes it, exact: `2000`, `2.5ms`, `1KiB`. Each step's command line and run folder name
        /// carry it.
        public func optionText(_ value: UInt64) -> String {
            switch self {
            case .clients: return "\(value)"
            case .interval: return DurationText.format(value)
            case .payload: return ByteSizeText.format(Int(clamping: value))
            case .rate: return "\(value)/h"
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
            case .rate: return "rate_per_hour"
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
        /// What other work took of the machine, when it disturbed the run (`other processes used 93% of a CPU`).
        public var disturbance: String?
        /// The run folder's name, in the search's folder.
        public var folder: String
        /// Time from the search's start to this run's end (ns): the last run's is the search's time.
        public var elapsed: UInt64

        public init(
            step: Int, value: UInt64, repeatIndex: Int, verdict: CapacitySearch.Verdict, objectives: [ThresholdResult],
            harnessSaturation: String?, folder: String, elapsed: UInt64 = 0, disturbance: String? = nil
        ) {
            self.disturbance = disturbance
            self.elapsed = elapsed
            self.step = step
            self.value = value
            self.repeatIndex = repeatIndex
            self.verdict = verdict
            self.objectives = objectives
            self.harnessSaturation = harnessSaturation
            self.folder = folder
        }

        /// `kept up`, `saturated`, with `; machine busy: other processes used 93% of a CPU` where other work
        /// disturbed it: what capacity.md and capacity.html say of the run's harness and machine.
        public var conditions: String {
            (harnessSaturation == nil ? "kept up" : "saturated") + (disturbance.map { "; machine busy: \($0)" } ?? "")
        }
    }

    /// One step of the search: a value, its runs pooled, and what they decided.
    public struct Step: Sendable {
        public var number: Int
        public var value: UInt64
        public var verdict: CapacitySearch.Verdict
        /// True when the value was run before: this step confirms (or not) the first.
        public var isConfirmation: Bool
        /// Each objective's evidence over the step's runs, in the order given.
        public var judgement: StepJudgement

        public init(number: Int, value: UInt64, verdict: CapacitySearch.Verdict, isConfirmation: Bool, judgement: StepJudgement) {
            self.number = number
            self.value = value
            self.verdict = verdict
            self.isConfirmation = isConfirmation
            self.judgement = judgement
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
    /// Every step, in order, with its pooled evidence.
    public var steps: [Step]
    /// The confidence each step was decided with (0.95).
    public var confidence: Double
    /// How long the search took (ns).
    public var duration: UInt64
    /// Why the search stopped before its end (interrupted, a run that could not run); nil when it ended.
    public var cutShort: String?
    /// `--threshold` on the capacity, checked: inconclusive where what was decided cannot say (the search was cut
    /// short, or its interval straddles the limit).
    public var thresholds: [(expression: String, verdict: Verdict)]

    public init(
        scenario: String, axis: Axis, objectives: [String], search: CapacitySearch, runs: [Run], steps: [Step],
        confidence: Double, duration: UInt64, cutShort: String?, thresholds: [(expression: String, verdict: Verdict)]
    ) {
        self.steps = steps
        self.confidence = confidence
        self.scenario = scenario
        self.axis = axis
        self.objectives = objectives
        self.search = search
        self.runs = runs
        self.duration = duration
        self.cutShort = cutShort
        self.thresholds = thresholds
    }

    /// The line on stdout: `capacity: 1,000 clients (95%: 1,000–1,019 clients; spread.p99<2ms held at 1,000 clients,
    /// broke at 1,020 clients, each confirmed; 11 steps, 3 min)`.
    public var line: String {
        let slo = objectives.joined(separator: " and ")
        let stepsText = "\(steps.count) step\(steps.count == 1 ? "" : "s"), \(DurationText.display(duration))"
        let held = search.capacity.map { axis.text($0) }
        let confidenceText = "\(DecimalText.trimmed(confidence * 100, fractionDigits: 2))%"
        var text: String
        switch cutShort == nil ? search.ending : nil {
        case .lowEndFails?:
            if search.verdicts[search.low] == .undecided {
                text = "capacity: not decided (\(slo): not decided at \(axis.text(search.low)), the low end, within "
                    + "the step budget; \(stepsText))"
            } else {
                text = "capacity: below \(axis.text(search.low)) (\(slo) broke at the low end; \(stepsText))"
            }
        case .highEndHolds?:
            text = "capacity: at least \(held ?? "") (\(slo) held up to the high end, confirmed; \(stepsText))"
        case .harnessBound?:
            let at = search.steps.last { $0.verdict == .harnessBound }.map { axis.text($0.value) } ?? ""
            text = held.map { "capacity: at least \($0)" } ?? "capacity: not measured"
            text += " (the harness was saturated at \(at): the harness, not the server, was the limit; \(stepsText))"
        case .found?, .stepLimit?:
            let range = search.capacityBound.map { "\(confidenceText): \(rangeText(search.capacity ?? 0, $0)); " }
                ?? "\(confidenceText): at least that; "
            let broke = search.firstDecidedFail.map { ", broke at \(axis.text($0))" } ?? ""
            text = "capacity: \(held ?? "") (\(range)\(slo) held at \(held ?? "")\(broke); \(stepsText))"
            if search.ending == .stepLimit { text += "; the search stopped after its step limit" }
        case nil:
            text = "capacity: at least \(held ?? "nothing yet") (\(cutShort ?? "cut short"); \(stepsText))"
        }
        // A value whose first step passed and whose confirmation did not is no budget's doing: it was not confirmed.
        let undecided = search.verdicts.filter { $0.value == .undecided }.map(\.key).sorted()
        let unconfirmed = undecided.filter { value in search.steps.contains { $0.value == value && $0.verdict == .pass } }
        let open = undecided.filter { !unconfirmed.contains($0) }
        if !open.isEmpty && (cutShort != nil || search.ending != .lowEndFails) {
            text += "; undecided within the step budget: " + open.map { axis.text($0) }.joined(separator: ", ")
        }
        if !unconfirmed.isEmpty {
            text += "; passed once, not confirmed: " + unconfirmed.map { axis.text($0) }.joined(separator: ", ")
        }
        // The runs that were no plain measurement, and why: the answer says what it stood on.
        let saturated = runs.filter { $0.harnessSaturation != nil }.count
        let disturbed = runs.filter { $0.disturbance != nil && $0.harnessSaturation == nil }.count
        if saturated + disturbed > 0 {
            text += "; of \(runs.count) runs, "
                + [saturated > 0 ? "\(saturated) saturated the harness" : nil,
                    disturbed > 0 ? "\(disturbed) ran while the machine was busy with other work" : nil]
                    .compactMap { $0 }.joined(separator: ", ")
                + " (a step that did not pass with one ran again after a pause, once)"
        }
        if search.isNonMonotonic {
            text += "; not monotonic: a harder step passed after an easier one broke, so the capacity is bounded by the "
                + "lowest failure"
        }
        return text
    }

    /// `980–1,019 clients`, or one value when the two are the same.
    private func rangeText(_ a: UInt64, _ b: UInt64) -> String {
        let (low, high) = (min(a, b), max(a, b))
        guard low != high else { return axis.text(low) }
        let lowText = axis == .clients ? Axis.grouped(low) : axis.text(low)
        return lowText + "–" + axis.text(high)
    }


    /// The search as one JSON object: the capacity and its interval, and each step's values judged and how many lay
    /// beyond each objective's limit.
    public var json: String {
        func number(_ value: UInt64?) -> String { value.map { "\($0)" } ?? "null" }
        let runs = runs.map { run in
            let objectives = run.objectives.map { result in
                "{\"expression\":\(JSONText.string(result.expression)),\"measured\":"
                    + (result.measuredText.map(JSONText.string) ?? "null") + ",\"held\":\(result.held),"
                    + "\"values\":\(result.evidence.map { "\($0.values)" } ?? "null"),"
                    + "\"beyond_limit\":\(result.evidence?.beyond.map { "\($0)" } ?? "null")}"
            }.joined(separator: ",")
            return "{\"step\":\(run.step),\"value\":\(run.value),\"repeat\":\(run.repeatIndex),"
                + "\"verdict\":\"\(run.verdict.rawValue)\",\"harness_saturated\":\(run.harnessSaturation != nil),"
                + "\"objectives\":[\(objectives)],\"folder\":\(JSONText.string(run.folder))}"
        }.joined(separator: ",")
        let steps = steps.map { step in
            let objectives = step.judgement.objectives.map { objective in
                "{\"expression\":\(JSONText.string(objective.expression)),\"values\":\(objective.values),"
                    + "\"beyond_limit\":\(objective.beyond.map { "\($0)" } ?? "null"),"
                    + "\"decision\":\"\(objective.decision.rawValue)\"}"
            }.joined(separator: ",")
            return "{\"step\":\(step.number),\"value\":\(step.value),\"verdict\":\"\(step.verdict.rawValue)\","
                + "\"confirmation\":\(step.isConfirmation),\"runs\":\(step.judgement.runs),\"objectives\":[\(objectives)]}"
        }.joined(separator: ",")
        let capacity = search.capacity
        return "{\"scenario\":\(JSONText.string(scenario)),\"axis\":\"\(axis.rawValue)\",\"unit\":\"\(axis.column)\","
            + "\"capacity\":\(number(capacity)),\"capacity_low\":\(number(capacity.map { min($0, search.capacityBound ?? $0) })),"
            + "\"capacity_high\":\(number(capacity == nil ? nil : search.capacityBound.map { max($0, capacity!) })),"
            + "\"confidence\":\(DecimalText.fixed(confidence, fractionDigits: 4)),"
            + "\"last_pass\":\(number(search.lastPass)),\"first_fail\":\(number(search.firstDecidedFail)),\"ending\":"
            + (cutShort == nil ? "\"\(search.ending?.rawValue ?? "found")\"" : "\"cut-short\"")
            + ",\"non_monotonic\":\(search.isNonMonotonic),\"duration_s\":\(DecimalText.fixed(Double(duration) / 1e9, fractionDigits: 3)),"
            + "\"line\":\(JSONText.string(line)),\"steps\":[\(steps)],\"runs\":[\(runs)],"
            + "\"thresholds\":[" + thresholds.map {
                "{\"expression\":\(JSONText.string($0.expression)),\"verdict\":\"\($0.verdict.rawValue)\"}"
            }.joined(separator: ",") + "]}"
    }
}
