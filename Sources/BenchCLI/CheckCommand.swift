import BenchCore
import BenchReports
import BenchScenarios

/// `bench check RUN_FOLDER --threshold …`: thresholds on a saved run, without running anything.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Check thresholds on a saved run folder; exit 1 if one is breached.",
        overview: "Evaluate thresholds on a run folder written by 'bench fanout' or 'bench roundtrip', from its CSV "
            + "files alone, and write the verdicts to its thresholds.csv (and junit.xml, summary.md, report.html). "
            + "Nothing is run.",
        arguments: [("run-folder", "A run folder, e.g. results/fanout-20261122-153000.")],
        options: [
            OptionSpec(
                "threshold", value: "expr",
                help: "[metric.]stat OP value, e.g. spread.p99<200ms, rtt.p50<=2ms, pct_under>=99%, lost==0; "
                    + "repeatable, at least one.",
                repeatable: true),
            OptionSpec("json", help: "Print the verdicts as JSON on stdout."),
        ],
        notes: [
            "metric: rtt, delivery, spread, completion, lag (default: spread for fanout, rtt for roundtrip).",
            "stat: p50 p90 p95 p99 p99.9 min max mean lost pct_under · OP: < <= > >= ==",
        ]
    )

    /// Loads the run, checks the thresholds, writes `thresholds.csv`, prints the verdicts.
    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let folder = parsed.positionals[0]
        let expressions = parsed.values["threshold"] ?? []
        guard !expressions.isEmpty else {
            throw UsageError(message: "Missing '--threshold <expr>': nothing to check", command: spec.name)
        }
        let run = try SavedRun.argument(folder, of: spec.name)
        guard let scenario = Scenario(rawValue: run.scenario) else {
            throw UsageError(message: "'\(folder)' holds an unknown scenario '\(run.scenario)'", command: spec.name)
        }
        let thresholds = try ThresholdParsing.parse(expressions, for: scenario, command: spec.name)
        let results = thresholds.map { threshold in
            threshold.evaluate(run.results.summaries.first { $0.metric == threshold.metric }!)
        }
        do {
            try AtomicFile.writeCSV(folder + "/" + ThresholdsCSV.fileName) { try ThresholdsCSV.write(results, to: &$0) }
            try DerivedReports.write(run.results.with(thresholds: results), into: folder)
        } catch {
            Console.error("Error: could not write the verdicts into \(folder): \(error)\n")
            return .runFailed
        }
        if parsed.has("json") {
            Console.out(ThresholdsJSON.render(results) + "\n")
        } else {
            for result in results { Console.out(ThresholdText.line(result) + "\n") }
        }
        return results.allSatisfy(\.held) ? .success : .thresholdBreached
    }
}
