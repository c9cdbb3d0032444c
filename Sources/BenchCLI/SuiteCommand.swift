import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// `bench suite FILE`: the named runs of a suite file, in order, each with its own run folder, and one summary.
enum SuiteCommand {
    static let spec = CommandSpec(
        name: "suite",
        abstract: "Run the named runs of a suite file in order; exit 1 if any threshold breaks.",
        overview: "Read a suite file (one run per line: a name, then fanout, roundtrip or chat and its options, quotes as "
            + "in a shell; # starts a comment), check every line, then run them in order into "
            + "<out>/suite-<UTC yyyyMMdd-HHmmss>/, one run folder each, and write suite.csv, suite.md and junit.xml "
            + "(every threshold of every run as a test case) there.",
        arguments: [("suite-file", "The suite, e.g. Benchmarks/ci.suite.")],
        options: [
            OptionSpec("out", value: "dir", help: "Folder the suite folder is created in.", default: "results"),
            OptionSpec("quiet", help: "Print no summary tables, only one line per run."),
            OptionSpec(
                "retries", value: "n", help: "Run a line whose verdict was inconclusive (its machine busy with other "
                    + "work, its harness saturated) again after a pause, up to this many times; every attempt is "
                    + "reported, the last one counts.", default: "1"),
        ],
        notes: [
            "Exit: 0 every threshold held · 1 one was breached · 3 a run could not be done · 4 a verdict was "
                + "inconclusive (a run interrupted or saturated, its machine busy with other work, a metric with no "
                + "values; a line's own --accept takes a reason), after --retries · 130/143 interrupted.",
            "With GITHUB_STEP_SUMMARY set, suite.md is appended there.",
        ]
    )

    /// How long a suite waits before it runs an inconclusive line again: a compile or a neighbour's burst may pass.
    static let pauseBeforeRetry: UInt64 = 5_000_000_000

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let path = parsed.positionals[0]
        let text: String
        do {
            text = try FileText.read(path)
        } catch {
            throw UsageError(message: "Cannot read suite file: \(error)", command: spec.name)
        }
        let suite = try SuiteFile(text: text, path: path)
        let parent = parsed.value("out") ?? "results"
        let quiet = parsed.has("quiet")
        let retries = try OptionReader(parsed: parsed, command: spec.name).integer("retries", placeholder: "n", in: 0...10, default: 1)
        let folder: String
        do {
            folder = try RunFolder.prepare(in: parent).publish(
                scenario: "suite", startUnixNanoseconds: WallClock.nowUnixNanoseconds())
        } catch {
            Console.error("Error: cannot write to --out \(parent): \(error)\n")
            return .runFailed
        }

        var results: [SuiteSummary.Entry] = []
        for (position, entry) in suite.entries.enumerated() {
            if SignalWatcher.shared?.signal != nil { break }
            let commandLine = BenchCommandLine.recorded(entry.arguments)
            Console.out("== \(position + 1)/\(suite.entries.count) \(entry.name): \(commandLine)\n")
            var options = entry.options
            options.outputFolder = folder
            options.quiet = quiet
            for attempt in 1...(retries + 1) {
                // suite-<UTC>/<entry>/ (a sweep: its steps inside), <entry>-try2/ for a second attempt.
                options.runFolderName = attempt == 1 ? entry.name : "\(entry.name)-try\(attempt)"
                let outcomes = RunCommand.run(options, commandLine: commandLine)
                // Only a verdict that another attempt may decide: inconclusive for reasons that pass by alone (a
                // machine busy with other work, a saturated harness), not a metric with no values nor a failed run.
                let passing: Set<InconclusiveReason> = [.disturbed, .saturated]
                let again = attempt <= retries && RunCommand.exitCode(of: outcomes) == .inconclusive
                    && outcomes.contains { outcome in
                        outcome.thresholds.contains { !$0.inconclusive.isEmpty && $0.inconclusive.allSatisfy(passing.contains) }
                    }
                    && SignalWatcher.shared?.signal == nil
                for (index, step) in options.steps.enumerated() {
                    // A step after one that could not go on did not run: it is listed, not left out.
                    let outcome = index < outcomes.count ? outcomes[index] : RunCommand.Outcome(exitCode: .runFailed)
                    let name = (options.isSweep ? "\(entry.name)@\(step.folderName)" : entry.name)
                        + (attempt > 1 || again ? " (try \(attempt))" : "")
                    results.append(SuiteSummary.Entry(
                        name: name, command: commandLine, folder: outcome.folder, status: outcome.status?.rawValue,
                        statusDetail: outcome.statusDetail, thresholds: outcome.thresholds,
                        exitCode: outcome.exitCode.rawValue, summaries: outcome.summaries, triedAgain: again))
                }
                guard again else { break }
                Console.out("== \(entry.name): inconclusive; trying again in \(DurationText.format(Self.pauseBeforeRetry)) "
                    + "(try \(attempt + 1) of \(retries + 1))\n")
                Posix.sleep(nanoseconds: Self.pauseBeforeRetry)
            }
        }
        let summary = SuiteSummary(entries: results)
        do {
            try AtomicFile.writeCSV(folder + "/" + SuiteSummary.csvFileName) { try summary.writeCSV(to: &$0) }
            try AtomicFile.writeText(folder + "/" + SuiteSummary.markdownFileName, summary.markdown)
            try AtomicFile.writeText(folder + "/" + JUnitXML.fileName, JUnitXML.render(results.filter { !$0.triedAgain }.map { entry in
                JUnitXML.Suite(
                    name: entry.name, status: entry.status ?? "not run", statusDetail: entry.statusDetail,
                    thresholds: entry.thresholds)
            }))
        } catch {
            Console.error("Error: could not write the suite summary: \(error)\n")
            return .runFailed
        }
        StepSummary.append(summary.markdown)
        Console.out("\n" + summary.text + "suite folder: \(folder)\n")
        let exitCodes = results.filter { !$0.triedAgain }.map { ExitCode(rawValue: $0.exitCode)! }
        if SignalWatcher.shared?.signal != nil && !exitCodes.contains(where: { $0 == .interrupted || $0 == .terminated }) {
            return .interrupted
        }
        if let stop = exitCodes.first(where: { $0 == .interrupted || $0 == .terminated }) { return stop }
        if exitCodes.contains(.runFailed) { return .runFailed }
        if exitCodes.contains(.thresholdBreached) { return .thresholdBreached }
        return exitCodes.contains(.inconclusive) ? .inconclusive : .success
    }
}
