import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// `bench check RUN_FOLDER --threshold …`: thresholds on a saved run, without running anything.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Check thresholds on a saved run folder (or each run of a sweep); exit 1 if one is breached.",
        overview: "Evaluate thresholds on a run folder written by 'bench fanout' or 'bench roundtrip', from its CSV "
            + "files alone; nothing is run. With --threshold, the verdicts are added to the folder's thresholds.csv "
            + "(source 'check', replacing an earlier check's) next to the run's own, which stay, and junit.xml, "
            + "summary.md and report.html show both. Without --threshold, the thresholds the run was started with "
            + "are judged again. The exit code follows the thresholds judged now.",
        arguments: [("run-folder", "A run folder, e.g. results/fanout-20261122-153000, or a sweep or suite folder.")],
        options: [
            OptionSpec(
                "threshold", value: "expr",
                help: "[metric.]stat OP value, e.g. spread.p99<200ms, rtt.p50<=2ms, pct_under>=99%, lost==0; "
                    + "repeatable; none: the run's own thresholds.",
                repeatable: true),
            OptionSpec("json", help: "Print the verdicts as JSON on stdout."),
        ],
        notes: [
            "metric: rtt, delivery, spread, completion, lag (default: spread for fanout, rtt for roundtrip).",
            "stat: p50 p90 p95 p99 p99.9 (p999) min max mean lost pct_under, or any pNN.NNN (p99.99) · OP: < <= > >= ==",
        ]
    )

    /// Loads the run, judges the thresholds, writes them next to the run's own, prints the verdicts. A sweep (or suite)
    /// folder is checked step by step; the exit code is 1 if any step breaches.
    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let folder = parsed.positionals[0]
        guard !Posix.fileExists(folder + "/run.csv"), let steps = CompareGroups.steps(in: folder) else {
            let (exitCode, judged) = try check(folder, parsed)
            if exitCode == .runFailed { return exitCode }
            print(judged, json: parsed.has("json"))
            return exitCode
        }
        var exitCodes: [ExitCode] = []
        var objects: [String] = []
        for path in steps.keys.sorted().flatMap({ steps[$0]! }) {
            let (exitCode, judged) = try check(path, parsed)
            exitCodes.append(exitCode)
            if exitCode == .runFailed { return exitCode }
            if parsed.has("json") {
                objects.append("{\"run_folder\":\(SummaryJSON.string(path)),\"thresholds\":\(ThresholdsJSON.render(judged))}")
            } else {
                Console.out("== \(path)\n")
                print(judged, json: false)
            }
        }
        if parsed.has("json") { Console.out("[" + objects.joined(separator: ",\n") + "]\n") }
        return exitCodes.contains(.thresholdBreached) ? .thresholdBreached : .success
    }

    private static func print(_ judged: [ThresholdResult], json: Bool) {
        if json {
            Console.out(ThresholdsJSON.render(judged) + "\n")
        } else {
            for result in judged { Console.out(ThresholdText.line(result) + "\n") }
        }
    }

    /// Checks one run folder: its exit code and the verdicts judged now.
    private static func check(
        _ folder: String, _ parsed: ParsedOptions
    ) throws(UsageError) -> (ExitCode, [ThresholdResult]) {
        let run = try SavedRun.argument(
            folder, of: spec.name, percentiles: Threshold.percentiles(in: parsed.values["threshold"] ?? []))
        guard let scenario = Scenario(rawValue: run.scenario) else {
            throw UsageError(message: "'\(folder)' holds an unknown scenario '\(run.scenario)'", command: spec.name)
        }
        let saved = run.results.thresholds
        let own = saved.filter { $0.source == .run }
        let expressions = parsed.values["threshold"] ?? []
        let source: ThresholdResult.Source = expressions.isEmpty ? .run : .check
        if expressions.isEmpty && own.isEmpty {
            throw UsageError(
                message: "'\(folder)' was run without thresholds: give one or more '--threshold <expr>'",
                command: spec.name)
        }
        let thresholds = try ThresholdParsing.parse(
            expressions.isEmpty ? own.map(\.expression) : expressions, for: scenario,
            metrics: run.results.summaries.map(\.metric), command: spec.name)
        let judged = thresholds.map { threshold in
            threshold.evaluate(run.results.summaries.first { $0.metric == threshold.metric }!).from(source)
        }
        // The run's own verdicts stay (or are replaced by their re-judging); a check replaces an earlier check's.
        let kept = source == .run ? saved.filter { $0.source == .check } : own
        let all = source == .run ? judged + kept : kept + judged
        do {
            try AtomicFile.writeCSV(folder + "/" + ThresholdsCSV.fileName) { try ThresholdsCSV.write(all, to: &$0) }
            try DerivedReports.write(run.results.with(thresholds: all), into: folder)
        } catch {
            Console.error("Error: could not write the verdicts into \(folder): \(error)\n")
            return (.runFailed, [])
        }
        return (judged.allSatisfy(\.held) ? .success : .thresholdBreached, judged)
    }
}
