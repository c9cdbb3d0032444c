import BenchClients
import BenchCore
import BenchReports
import BenchScenarios

/// `bench capacity fanout|roundtrip|chat`: the most clients, the shortest interval or the largest payload at which the
/// server meets its objectives, found by a search of runs (``CapacitySearch``).
enum CapacityCommand {
    /// The command line of `bench capacity SCENARIO`: the scenario's run options (one of clients, interval, payload
    /// given as a range) and the search's own.
    static func spec(for scenario: Scenario) -> CommandSpec {
        let run = RunCommand.spec(for: scenario)
        let ranged = ["clients": "A range LO..HI searches the most clients held (100..20000).",
            "interval": "A range LO..HI searches the shortest interval held, from the longer end (10ms..10us).",
            "payload": "A range LO..HI searches the largest message held (64B..1MiB).",
            "rate": "A range LO..HI searches the highest rate per member held (1/s..100/s)."]
        let options = run.options.filter { !["repeat", "threshold", "json-lines", "server-procs"].contains($0.name) }.map { option in
            ranged[option.name].map { OptionSpec(option.name, value: option.valueName, help: $0, default: option.defaultText) }
                ?? option
        }
        let wayFinding = Int(CapacityPlan.wayFindingConfidence * 100)
        let wayFindingValues =
            ProportionDecision.valuesToPass(allowedShare: 0.01, confidence: CapacityPlan.wayFindingConfidence) ?? 0
        let margin = Int(CapacitySearch.disputeMargin * 100)
        return CommandSpec(
            name: "capacity \(scenario.rawValue)",
            abstract: "Find the most clients (or the shortest interval, the largest payload) the server holds within an objective.",
            overview: "Search one setting given as a range LO..HI (--clients, \(scenario == .chat ? "--rate" : "--interval") or --payload) for the hardest "
                + "value at which every --slo holds: runs from the easy end, twice as hard each step until one does not "
                + "pass, then bisects to --resolution. Each step is decided with --confidence from its values: its run "
                + "sends at least what --messages/--count or --duration say, then goes on, on the same connections, "
                + "until every objective is decided or --step-budget is spent (a closed loop repeats whole runs): an objective on "
                + "a percentile or a share passes when so few values lie beyond its limit that chance would rarely give "
                + "as few were it broken (a p99 needs 299 values with none over at 95%), fails when so many do that "
                + "chance would rarely give as many were it held. "
                + "A value's first step only finds the way: its pass needs \(wayFinding)% or --confidence if lower (a "
                + "p99: \(wayFindingValues) values with none over). "
                + "The last pass and the first failure are run once more, at another moment and at --confidence, to "
                + "confirm them; a last pass that does not hold then is followed by a pass at least \(margin)% "
                + "easier. A "
                + "run whose harness was saturated is no measurement of the server: it is run again after a pause, "
                + "and a step saturated twice is harness-bound and ends the search; a timetable the server held back "
                + "(the harness idle) fails the step. Writes <out>/capacity-<UTC>/ (each run's folder, capacity.csv, capacity.md, capacity.html) "
                + "and prints the capacity with its interval. Exit 0 when found (or the high end holds: at least HI), "
                + "1 when the low end already breaks an objective or a --threshold on the capacity breaks, 3 when a run "
                + "cannot run, 4 when nothing was decided at the low end or a --threshold on the capacity cannot be decided from "
                + "what the search decided.",
            options: options + [
                OptionSpec(
                    "slo", value: "expr", help: "An objective every step must meet, as --threshold writes it "
                        + "(spread.p99<200ms, pct_under>=99%); repeatable, at least one.", repeatable: true),
                OptionSpec("resolution", value: "percent", help: "Stop bisecting when the last pass and the first fail "
                    + "are this close, relative to the value.", default: "2%"),
                OptionSpec(
                    "confidence", value: "percent", help: "How sure each step's verdict must be, from 50% to 99.9%.",
                    default: "95%"),
                OptionSpec(
                    "step-budget", value: "runs|duration", help: "How long a step may sample to be decided: a time "
                        + "(90s), or a number of its runs' lengths (20), and at least the timetable that can decide its "
                        + "pass (a p99 at 95%: 299 rows); a step still undecided then is reported undecided, and the "
                        + "search stays below it.",
                    default: DurationText.format(CapacityPlan.defaultStepBudget)),
                OptionSpec("repeat", value: "k", help: "The fewest runs per step, pooled, however soon it is decided.", default: "1"),
                OptionSpec(
                    "threshold", value: "expr", help: "A condition on the capacity found (capacity>=5000, "
                        + "capacity<=1ms for an interval): exit 1 when it breaks; repeatable.", repeatable: true),
            ],
            notes: ["Durations take ns, us, ms or s; sizes B, KiB or MiB. One range at a time; lists sweep (bench "
                + "\(scenario.rawValue))."])
    }

    /// The one-screen help of `bench capacity` without its scenario.
    static var overview: String {
        "OVERVIEW: Find a server's capacity: the most clients (or the shortest interval, the largest payload) at which "
            + "its objectives hold.\n\nUSAGE: bench capacity <scenario> [<options>]\n\nSCENARIOS:\n"
            + "  fanout      bench capacity fanout --clients 100..20000 --slo 'spread.p99<200ms'\n"
            + "  roundtrip   bench capacity roundtrip --interval 10ms..10us --slo 'rtt.p99<1ms'\n"
            + "  chat        bench capacity chat --clients 100..10000 --room-size 10 --slo 'delivery.p99<200ms'\n\n"
            + "  See 'bench capacity fanout --help', 'bench capacity roundtrip --help' or 'bench capacity chat --help' for "
            + "the options.\n"
    }

    /// Reads the command line into a plan, every value checked (nothing is written before), or a usage error.
    static func plan(_ parsed: ParsedOptions, scenario: Scenario, command: String) throws(UsageError) -> CapacityPlan {
        let reader = OptionReader(parsed: parsed, command: command)
        let axes = [CapacityReport.Axis.clients, scenario == .chat ? .rate : .interval, .payload]
        let ranged = axes.filter { parsed.value($0.rawValue)?.contains("..") == true }
        guard ranged.count == 1, let axis = ranged.first else {
            throw UsageError(
                message: ranged.isEmpty
                    ? "bench capacity searches a range: give one of "
                        + axes.map { "--\($0.rawValue) LO..HI" }.joined(separator: ", ")
                    : "one range at a time: \(ranged.map { "--\($0.rawValue)" }.joined(separator: " and ")) are ranges",
                command: command)
        }
        for name in axes.map(\.rawValue) + ["transport"] where parsed.value(name)?.contains(",") == true {
            throw UsageError(
                message: "--\(name) \(parsed.value(name)!): lists sweep (bench \(scenario.rawValue)); bench capacity "
                    + "takes single values besides its one range",
                command: command)
        }
        let text = parsed.value(axis.rawValue)!
        let ends = text.split(separator: "..", omittingEmptySubsequences: false).map(String.init)
        guard ends.count == 2, !ends[0].isEmpty, !ends[1].isEmpty else {
            throw reader.invalid(axis.rawValue, "range", text, "expected LO..HI, e.g. 100..20000")
        }
        let slos = parsed.values["slo"] ?? []
        guard !slos.isEmpty else {
            throw UsageError(message: "--slo is required: the objective each step must meet, e.g. --slo 'spread.p99<200ms'",
                command: command)
        }
        let confidenceText = parsed.value("confidence") ?? "95%"
        guard confidenceText.hasSuffix("%"), let confidence = Double(confidenceText.dropLast()), confidence >= 50,
            confidence <= 99.9
        else {
            throw reader.invalid("confidence", "percent", confidenceText, "expected a percentage from 50% to 99.9%, e.g. 95%")
        }
        let minimumRuns = try reader.integer("repeat", placeholder: "k", in: 1...100, default: 1)
        let budget: CapacityPlan.StepBudget
        switch parsed.value("step-budget") {
        case nil:
            budget = .time(CapacityPlan.defaultStepBudget)
        case let text? where text.allSatisfy({ $0.isASCII && $0.isNumber }):
            budget = .runs(try reader.integer("step-budget", placeholder: "runs|duration", in: 1...10_000, default: 1))
            guard case .runs(let runs) = budget, runs >= minimumRuns else {
                throw reader.invalid(
                    "step-budget", "runs|duration", text, "less than --repeat \(minimumRuns): a step runs at least that often")
            }
        case let text?:
            guard let time = try? DurationText.parse(text), time > 0 else {
                throw reader.invalid("step-budget", "runs|duration", text, "expected a number of runs (20) or a duration (90s)")
            }
            budget = .time(time)
        }
        var base = parsed.replacing("slo", with: nil).replacing("resolution", with: nil).replacing("repeat", with: nil)
            .replacing("confidence", with: nil).replacing("step-budget", with: nil).replacing("threshold", with: slos)
        base = base.replacing(axis.rawValue, with: [ends[0]])
        let lowOptions = try RunOptions(base, scenario: scenario)
        if let grouped = lowOptions.thresholds.first(where: { $0.link != nil }) {
            throw UsageError(
                message: "'\(grouped.expression)': a capacity search judges the run's own metrics, not a link group's "
                    + "(not built)", command: "capacity \(scenario.rawValue)")
        }
        let low = value(of: axis, in: lowOptions)
        let high = try value(of: axis, in: RunOptions(base.replacing(axis.rawValue, with: [ends[1]]), scenario: scenario))
        guard low != high else { throw reader.invalid(axis.rawValue, "range", text, "the two ends are the same") }
        guard axis != .interval || min(low, high) > 0 else {
            throw reader.invalid(axis.rawValue, "range", text, "a closed loop (0) has no rate to search")
        }
        let resolutionText = parsed.value("resolution") ?? "2%"
        guard resolutionText.hasSuffix("%"), let percent = Double(resolutionText.dropLast()), percent > 0, percent <= 50 else {
            throw reader.invalid("resolution", "percent", resolutionText, "expected a percentage above 0 and at most 50, e.g. 2%")
        }
        let direction: CapacitySearch.Direction = axis == .interval ? .decreasing : .increasing
        // The easy end first, whichever way the range was written.
        let (easy, hard) = (direction == .increasing) == (low < high) ? (low, high) : (high, low)
        return CapacityPlan(
            scenario: scenario, axis: axis, base: base, slos: slos,
            search: CapacitySearch(low: easy, high: hard, direction: direction, resolution: percent / 100),
            confidence: confidence / 100, minimumRuns: minimumRuns, stepBudget: budget,
            thresholds: try (parsed.values["threshold"] ?? []).map { expression throws(UsageError) in
                try CapacityThreshold(expression, axis: axis, reader: reader)
            })
    }

    /// The searched setting's value in the one run `options` describe.
    private static func value(of axis: CapacityReport.Axis, in options: RunOptions) -> UInt64 {
        let configuration = options.steps[0].configuration
        switch axis {
        case .clients: return UInt64(configuration.clients)
        case .interval: return configuration.interval
        case .payload: return UInt64(configuration.payload)
        case .rate: return 3_600_000_000_000 / max(1, configuration.interval)
        }
    }
}

/// What a capacity search will do: checked, not yet started.
struct CapacityPlan {
    let scenario: Scenario
    let axis: CapacityReport.Axis
    /// The command line of every step, but for the searched setting.
    let base: ParsedOptions
    let slos: [String]
    var search: CapacitySearch
    /// How sure each step's verdict must be (0.95).
    let confidence: Double
    /// How sure a pass must be on a step that only finds the search's way (its value's first): the steps that give
    /// the answer, its last pass and its first failure, are run again at ``confidence``, and every failure is decided
    /// at it.
    var wayFindingPassConfidence: Double { min(confidence, Self.wayFindingConfidence) }
    /// The most confidence a way-finding step's pass needs: 75% (a p99 with none over: 138 values, not 299).
    static let wayFindingConfidence = 0.75

    /// The confidence a pass of a step is decided with: a confirmation's at ``confidence``, a first try's at
    /// ``wayFindingPassConfidence``.
    func passConfidence(confirming: Bool) -> Double { confirming ? confidence : wayFindingPassConfidence }
    /// How long a step may run to be decided.
    enum StepBudget {
        /// At most this many runs.
        case runs(Int)
        /// No run starts once this long (ns) has passed since the step's first.
        case time(UInt64)

        /// True when a step that started at `start` and has made `runs` runs may make another.
        func allowsAnother(after runs: Int, startedAt start: UInt64, now: UInt64) -> Bool {
            switch self {
            case .runs(let most): return runs < most
            case .time(let most): return now - start < most
            }
        }
    }

    /// The fewest runs of a step, and how long it may run.
    let minimumRuns: Int
    let stepBudget: StepBudget
    let thresholds: [CapacityThreshold]

    /// How long a step may run unless `--step-budget` says otherwise: a minute, enough for a p99 of a fan-out of 30
    /// broadcasts every 50 ms (2 s a run: 900 values) to be decided with 3 over.
    static let defaultStepBudget: UInt64 = 60_000_000_000

    /// The options of the step at `value`.
    func options(at value: UInt64) throws(UsageError) -> RunOptions {
        var options = try RunOptions(base.replacing(axis.rawValue, with: [axis.optionText(value)]), scenario: scenario)
        options.reportsEachRun = false
        return options
    }
}

/// `--threshold` on a capacity: `capacity>=5000`, `capacity<=1ms`, in the searched setting's unit.
struct CapacityThreshold {
    let expression: String
    let comparison: String
    let limit: UInt64

    init(_ expression: String, axis: CapacityReport.Axis, reader: OptionReader) throws(UsageError) {
        let comparisons = [">=", "<=", ">", "<"]
        guard expression.hasPrefix("capacity"),
            let comparison = comparisons.first(where: { expression.dropFirst("capacity".count).hasPrefix($0) })
        else {
            throw reader.invalid("threshold", "expr", expression, "expected capacity>=N, capacity>N, capacity<=N or capacity<N")
        }
        let text = String(expression.dropFirst("capacity".count + comparison.count))
        var limit: UInt64?
        switch axis {
        case .clients: limit = UInt64(text)
        case .interval: limit = try? DurationText.parse(text)
        case .payload: limit = (try? ByteSizeText.parse(text)).map { UInt64($0) }
        case .rate: limit = RunOptions.interval(ofRate: text).map { 3_600_000_000_000 / $0 }
        }
        guard let limit else {
            throw reader.invalid("threshold", "expr", expression, "the limit is not a value of --\(axis.rawValue)")
        }
        self.expression = expression
        self.comparison = comparison
        self.limit = limit
    }

    /// The verdict on what `search` decided: held when both ends of what the capacity may be meet it (from the last
    /// pass to just before the first decided failure, or on without end when none was decided; below the low end when
    /// that was decided broken), breached when neither does, else inconclusive (as when nothing was decided).
    func verdict(on search: CapacitySearch) -> Verdict {
        let increasing = search.direction == .increasing
        let ends: (UInt64, UInt64)
        if let capacity = search.capacity {
            ends = (capacity, search.capacityBound ?? (increasing ? .max : 0))
        } else if search.verdicts[search.low] == .fail {
            ends = increasing ? (0, search.low - min(search.low, 1)) : (search.low + 1, .max)
        } else {
            return .inconclusive
        }
        let (first, last) = (holds(ends.0), holds(ends.1))
        return first && last ? .held : !first && !last ? .breached : .inconclusive
    }

    private func holds(_ capacity: UInt64) -> Bool {
        switch comparison {
        case ">=": return capacity >= limit
        case "<=": return capacity <= limit
        case ">": return capacity > limit
        default: return capacity < limit
        }
    }
}
