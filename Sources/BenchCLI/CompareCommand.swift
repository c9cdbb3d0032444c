import BenchCore
import BenchNet
import BenchReports

/// `bench compare BASELINE CURRENT`: how a run moved against a baseline, and whether it regressed too far.
enum CompareCommand {
    static let spec = CommandSpec(
        name: "compare",
        abstract: "Compare a run against a baseline run; exit 1 on a regression beyond --max-regression.",
        overview: "Print, per metric and statistic, the baseline and current values and their absolute and relative "
            + "change. Runs of different scenarios, transports or targets measure different things and are refused; "
            + "runs that differ in clients, payload, interval, arrival, timestamps or placement are compared, and the "
            + "differences are said above the table. Two "
            + "sweep folders (or suite folders) with the same steps are compared step by step; with --repeat, by the "
            + "medians of the repeats, and a change within the baseline repeats' own range is not a regression.",
        arguments: [
            ("baseline-folder", "The run to compare against."),
            ("current-folder", "The run being judged."),
        ],
        options: [
            OptionSpec(
                "max-regression", value: "expr",
                help: "metric.stat=+N% or metric.stat=+DURATION, e.g. spread.p99=+25%; repeatable.",
                repeatable: true),
            OptionSpec(
                "noise-floor", value: "duration",
                help: "Changes smaller than this never count as a regression.", default: "0"),
        ],
        notes: ["stat: p50 p90 p95 p99 p99.9 (p999) min max mean. With GITHUB_STEP_SUMMARY set, the table is appended there."]
    )

    /// The settings two runs must share: another scenario, transport or server is another measurement, not a change.
    static let requiredSettings = ["scenario", "transport", "target"]
    /// The settings two runs may differ in and still be compared; each difference is said above the table.
    static let notedSettings = [
        "clients", "payload_bytes", "interval_ns", "arrival", "timestamps", "client_threads", "server_threads",
        "busy_poll",
    ]

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let (baselineFolder, currentFolder) = (parsed.positionals[0], parsed.positionals[1])
        let noiseFloor = try self.noiseFloor(parsed)
        let (oldIsRun, newIsRun) = (Posix.fileExists(baselineFolder + "/run.csv"), Posix.fileExists(currentFolder + "/run.csv"))
        let (oldSteps, newSteps) = (CompareGroups.steps(in: baselineFolder), CompareGroups.steps(in: currentFolder))
        if oldIsRun != newIsRun && (oldIsRun ? newSteps : oldSteps) != nil {
            let (group, run) = oldIsRun ? (currentFolder, baselineFolder) : (baselineFolder, currentFolder)
            throw UsageError(
                message: "'\(group)' is a sweep or suite folder and '\(run)' a single run: compare two sweeps (or two "
                    + "suites), or two run folders",
                command: spec.name)
        }
        if !oldIsRun, let old = oldSteps, let new = newSteps {
            return try CompareGroups.compare(
                baseline: old, current: new, baselineFolder: baselineFolder, currentFolder: currentFolder,
                limits: { metrics throws(UsageError) in try self.limits(parsed, metrics: metrics) },
                noiseFloor: noiseFloor)
        }
        let baseline = try SavedRun.argument(baselineFolder, of: spec.name)
        let current = try SavedRun.argument(currentFolder, of: spec.name)
        for key in requiredSettings where baseline.results.setting(key) != current.results.setting(key) {
            throw UsageError(
                message: "The runs are not comparable: \(key) is \(shown(key, baseline.results.setting(key))) in the "
                    + "baseline and \(shown(key, current.results.setting(key))) in the current run",
                command: spec.name)
        }
        let differences = notedSettings.filter { baseline.results.setting($0) != current.results.setting($0) }.map {
            "\($0) \(shown($0, baseline.results.setting($0))) → \(shown($0, current.results.setting($0)))"
        }
        let limits = try self.limits(parsed, metrics: baseline.results.summaries.map(\.metric))
        let comparison = RunComparison(
            baseline: baseline.results.summaries, current: current.results.summaries, limits: limits,
            noiseFloor: noiseFloor)
        let note = differences.isEmpty ? "" : "note: the runs differ in " + differences.joined(separator: ", ") + "\n"
        Console.out(note + ComparisonTable.render(comparison, baseline: baselineFolder, current: currentFolder))
        StepSummary.append(
            (note.isEmpty ? "" : "> " + note + "\n")
                + ComparisonTable.markdown(comparison, baseline: baselineFolder, current: currentFolder))
        return comparison.regressions.isEmpty ? .success : .thresholdBreached
    }

    /// A setting's value as a person reads it: durations and sizes in units, an empty target as the built-in server.
    static func shown(_ key: String, _ value: String?) -> String {
        guard let value else { return "missing" }
        if key.hasSuffix("_ns"), let nanoseconds = UInt64(value) { return DurationText.format(nanoseconds) }
        if key.hasSuffix("_bytes"), let bytes = Int(value) { return ByteSizeText.format(bytes) }
        if key == "target" && value.isEmpty { return "the built-in server" }
        return value.isEmpty ? "none" : value
    }

    private static func limits(_ parsed: ParsedOptions, metrics: [String]) throws(UsageError) -> [RegressionLimit] {
        var limits: [RegressionLimit] = []
        for text in parsed.values["max-regression"] ?? [] {
            do {
                limits.append(try RegressionLimit(parsing: text, metrics: metrics))
            } catch {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--max-regression <expr>': \(error.reason)",
                    command: spec.name)
            }
        }
        return limits
    }

    private static func noiseFloor(_ parsed: ParsedOptions) throws(UsageError) -> UInt64 {
        guard let text = parsed.value("noise-floor") else { return 0 }
        do {
            return try DurationText.parse(text)
        } catch {
            throw UsageError(
                message: "The value '\(text)' is invalid for '--noise-floor <duration>': \(error.reason)",
                command: spec.name)
        }
    }
}
