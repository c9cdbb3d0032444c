import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// `bench check RUN_FOLDER --threshold …`: thresholds on a saved run, without running anything.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Check thresholds on a saved run folder (or each run in a folder of runs); exit 1 on a breach.",
        overview: "Evaluate thresholds on a run folder written by 'bench fanout' or 'bench roundtrip', from its CSV "
            + "files alone; nothing is run. With --threshold, the verdicts are added to the folder's thresholds.csv "
            + "(source 'check', replacing an earlier check's) next to the run's own, which stay, and junit.xml, "
            + "summary.md and report.html show both. Without --threshold, the thresholds the run was started with "
            + "are judged again. The exit code follows the thresholds judged now. In a folder of runs (a sweep, a "
            + "suite, results/) every run is read and judged before anything is written; a run the thresholds do not "
            + "apply to (a roundtrip has no spread) is skipped and named on stderr. A run that is no measurement of "
            + "the server (interrupted, cut off and incomplete, its harness saturated) or a metric with no values "
            + "gets no verdict but inconclusive (exit 4) unless --accept names the reason.",
        arguments: [
            ("run-folder", "A run folder, e.g. results/fanout-20261122-153000, or a sweep, suite or results folder.")
        ],
        options: [
            OptionSpec(
                "threshold", value: "expr",
                help: "[metric.]stat OP value, e.g. spread.p99<200ms, rtt.p50<=2ms, pct_under>=99%, lost==0; "
                    + "repeatable; none: the run's own thresholds.",
                repeatable: true),
            OptionReader.acceptOption,
            OptionSpec("json", help: "Print the verdicts as JSON on stdout."),
        ],
        notes: [
            "metric: rtt, delivery, spread, completion, lag, connect, reconnect; a --target run's connect_tcp, "
                + "connect_tls, connect_ws, subscribe (default: spread for fanout, rtt for roundtrip).",
            "stat: p50 p90 p95 p99 p99.9 (p999) min max mean lost pct_under, or any pNN.NNN (p99.99) · OP: < <= > >= ==",
            "Exit: 0 every threshold held · 1 one was breached · 2 usage error · 4 inconclusive (see --accept).",
        ]
    )

    /// Loads every run, judges the thresholds, and only then writes them next to each run's own and prints the
    /// verdicts: a usage error (a folder that does not read, a threshold no run can take) leaves every folder as is.
    /// A sweep, suite or any folder of runs (`results/`) is checked run by run; a run whose scenario lacks a
    /// threshold's metric (a roundtrip's spread), or that has no thresholds of its own to judge again, is skipped and
    /// named on stderr. The exit code is 1 if any run judged breaches.
    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let folder = parsed.positionals[0]
        let expressions = parsed.values["threshold"] ?? []
        let accepted = try OptionReader(parsed: parsed, command: spec.name).acceptedReasons(judges: true)
        // The expressions' syntax is the same for every run: a typo is a usage error, not a reason to skip one.
        _ = try ThresholdParsing.parse(
            expressions, for: .fanout, metrics: RunAnalysis.Metric.allCases.map(\.rawValue), command: spec.name)
        guard !Posix.fileExists(folder + "/run.csv"), let steps = CompareGroups.steps(in: folder) else {
            let verdict = try judge(try load(folder, expressions), expressions, accepting: accepted)
            guard verdict.write() else { return .runFailed }
            print(verdict.judged, json: parsed.has("json"))
            return verdict.exitCode
        }
        var verdicts: [Verdict] = []
        var skipped: [String] = []
        for path in steps.keys.sorted().flatMap({ steps[$0]! }) {
            let run = try load(path, expressions)  // a folder that does not read refuses the whole check
            do {
                verdicts.append(try judge(run, expressions, accepting: accepted))
            } catch {
                skipped.append("\(path): \(error.message)")
            }
        }
        guard !verdicts.isEmpty else {
            throw UsageError(
                message: "no run in '\(folder)' can be judged: " + skipped.joined(separator: "; "), command: spec.name)
        }
        for verdict in verdicts where !verdict.write() { return .runFailed }
        for note in skipped { Console.error("skipped \(note)\n") }
        if parsed.has("json") {
            let objects = verdicts.map {
                "{\"run_folder\":\(JSONText.string($0.folder)),\"thresholds\":\(ThresholdsJSON.render($0.judged))}"
            }
            Console.out("[" + objects.joined(separator: ",\n") + "]\n")
        } else {
            for verdict in verdicts {
                Console.out("== \(verdict.folder)\n")
                print(verdict.judged, json: false)
            }
        }
        return .of(verdicts.flatMap(\.judged))
    }

    private static func print(_ judged: [ThresholdResult], json: Bool) {
        if json {
            Console.out(ThresholdsJSON.render(judged) + "\n")
        } else {
            for result in judged { Console.out(ThresholdText.line(result) + "\n") }
        }
    }

    /// One run judged, not yet written: the verdicts of now and every verdict its thresholds.csv will hold.
    private struct Verdict {
        let folder: String
        let run: SavedRun
        let judged: [ThresholdResult]
        let all: [ThresholdResult]

        var exitCode: ExitCode { .of(judged) }

        /// Writes thresholds.csv and the reports that show the verdicts; false (said on stderr) when it could not.
        func write() -> Bool {
            do {
                try AtomicFile.writeCSV(folder + "/" + ThresholdsCSV.fileName) { try ThresholdsCSV.write(all, to: &$0) }
                try DerivedReports.write(run.results.with(thresholds: all), into: folder)
                return true
            } catch {
                Console.error("Error: could not write the verdicts into \(folder): \(error)\n")
                return false
            }
        }
    }

    /// Reads a run folder, with the extra percentiles the thresholds ask for and the counts over their limits.
    private static func load(_ folder: String, _ expressions: [String]) throws(UsageError) -> SavedRun {
        try SavedRun.argument(
            folder, of: spec.name, percentiles: Threshold.percentiles(in: expressions),
            limits: Threshold.countedLimits(in: expressions))
    }

    /// Judges `expressions` (none: the run's own thresholds again) on a run, writing nothing: inconclusive where the
    /// run is no measurement of the server, but for the reasons `accepted`.
    private static func judge(
        _ run: SavedRun, _ expressions: [String], accepting accepted: Set<InconclusiveReason>
    ) throws(UsageError) -> Verdict {
        let folder = run.folder
        guard let scenario = Scenario(rawValue: run.scenario) else {
            throw UsageError(message: "'\(folder)' holds an unknown scenario '\(run.scenario)'", command: spec.name)
        }
        let saved = run.results.thresholds
        let own = saved.filter { $0.source == .run }
        let source: ThresholdResult.Source = expressions.isEmpty ? .run : .check
        if expressions.isEmpty && own.isEmpty {
            throw UsageError(
                message: "'\(folder)' was run without thresholds: give one or more '--threshold <expr>'",
                command: spec.name)
        }
        func judged(_ expressions: [String], as source: ThresholdResult.Source) throws(UsageError) -> [ThresholdResult] {
            let thresholds = try ThresholdParsing.parse(
                expressions, for: scenario, metrics: run.results.summaries.map(\.metric), command: spec.name)
            var results: [ThresholdResult] = []
            for threshold in thresholds {
                // A link group's values are not in the folder (summary.csv has its rows alone): the run's own verdict
                // stands, and a new one is refused.
                if threshold.link != nil {
                    if source == .run, let verdict = own.first(where: { $0.expression == threshold.expression }) {
                        results.append(verdict)
                        continue
                    }
                    throw UsageError(
                        message: "'\(threshold.expression)': a link group's threshold is judged as the run runs; bench "
                            + "check reads no group's values", command: spec.name)
                }
                results.append(
                    threshold.evaluate(run.results.summaries.first { $0.metric == threshold.metric }!).from(source)
                        .judged(in: run.results.inconclusiveReasons, accepting: accepted))
            }
            return results
        }
        let now = try judged(expressions.isEmpty ? own.map(\.expression) : expressions, as: source)
        // The run's own verdicts stay (or are replaced by their re-judging); a check replaces an earlier check's.
        let kept = source == .run ? saved.filter { $0.source == .check } : own
        return Verdict(folder: folder, run: run, judged: now, all: source == .run ? now + kept : kept + now)
    }
}
