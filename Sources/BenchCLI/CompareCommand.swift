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
            OptionSpec(
                "no-uncertainty",
                help: "Judge the statistics' values alone: by default a change within the two runs' own 95% sampling "
                    + "interval (a p99 of 200 values lies between the 195th and the largest) is not a regression."),
        ],
        notes: ["stat: p50 p90 p95 p99 p99.9 (p999) min max mean. With GITHUB_STEP_SUMMARY set, the table is appended there."]
    )

    /// The settings two runs must share: another scenario, transport or server is another measurement, not a change.
    static let requiredSettings = ["scenario", "transport", "target"]
    /// The settings two runs may differ in and still be compared; each difference is said above the table: what
    /// is offered (clients, payload, timetable, length), how it is judged (the percent-under threshold, what counts as
    /// lost, the warmup left out) and how a target is spoken to (framing, MQTT QoS, the subscribe and publish texts,
    /// gRPC's subscribers per connection, HTTP/2 or not).
    static let notedSettings = [
        "clients", "payload_bytes", "interval_ns", "arrival", "messages", "count", "run_for_ns", "warmup", "under_ns",
        "timeout_ns", "timestamps", "client_threads", "server_threads", "busy_poll", "io_engine", "framing", "qos",
        "streams_per_connection", "http2", "subscribe",
        "publish_template", "publish_url", "target_ws_path", "ws_path", "protocol",
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
        for key in requiredSettings where setting(key, of: baseline.results) != setting(key, of: current.results) {
            throw UsageError(
                message: "The runs are not comparable: \(key) is \(shown(key, setting(key, of: baseline.results))) in "
                    + "the baseline and \(shown(key, setting(key, of: current.results))) in the current run",
                command: spec.name)
        }
        // A key a run written before it existed lacks reads as empty: not a difference.
        let differences = notedSettings.filter {
            (baseline.results.setting($0) ?? "") != (current.results.setting($0) ?? "")
        }.map {
            "\($0) \(shown($0, baseline.results.setting($0))) → \(shown($0, current.results.setting($0)))"
        }
        let limits = try self.limits(parsed, metrics: baseline.results.summaries.map(\.metric))
        var comparison = RunComparison(
            baseline: baseline.results.summaries, current: current.results.summaries, limits: limits,
            noiseFloor: noiseFloor)
        var notes: [String] = []
        if !comparison.regressions.isEmpty && !parsed.has("no-uncertainty") {
            comparison = withinUncertainty(comparison, baseline: baseline, current: current, notes: &notes)
        }
        if !comparison.regressions.isEmpty {
            notes.append("note: one run on each side says nothing of how much runs of the same code differ (p99 by "
                + "a third between runs is common); make both with --repeat 5 and compare the sweeps: their medians, "
                + "and no regression while the current median lies within the baseline's repeats")
        }
        let note = differences.isEmpty ? "" : "note: the runs differ in " + differences.joined(separator: ", ") + "\n"
        Console.out(note + ComparisonTable.render(comparison, baseline: baselineFolder, current: currentFolder)
            + notes.map { $0 + "\n" }.joined())
        StepSummary.append(
            (note.isEmpty ? "" : "> " + note + "\n")
                + ComparisonTable.markdown(comparison, baseline: baselineFolder, current: currentFolder)
                + notes.map { "- \($0)\n" }.joined())
        return comparison.regressions.isEmpty ? .success : .thresholdBreached
    }

    /// `comparison` without the regressions that lie within the two runs' sampling uncertainty: where the current
    /// run's 95% interval of the statistic reaches down into the baseline's (``SamplingUncertainty``), the change may
    /// be chance, and a note says so. Every statistic a limit can name has its interval in the summaries the runs
    /// were read into (``DistributionSummary/percentileIntervals``, the mean's from σ).
    private static func withinUncertainty(
        _ comparison: RunComparison, baseline: SavedRun, current: SavedRun, notes: inout [String]
    ) -> RunComparison {
        comparison.excluding { regression in
            let (metric, statistic) = (regression.limit.metric, regression.limit.statistic)
            guard let old = baseline.results.summaries.first(where: { $0.metric == metric }),
                let new = current.results.summaries.first(where: { $0.metric == metric }),
                let before = SamplingUncertainty.interval(of: statistic, in: old),
                let now = SamplingUncertainty.interval(of: statistic, in: new),
                now.lowerBound <= before.upperBound
            else { return false }
            func text(_ value: Double) -> String { DurationText.format(UInt64(roundingClamped: value)) }
            notes.append("not a regression: \(regression.limit.expression) moved to \(text(regression.row.current ?? 0)), "
                + "within the runs' own sampling uncertainty (95%: the baseline's \(statistic) up to "
                + "\(text(before.upperBound)), the current's from \(text(now.lowerBound)); --no-uncertainty to judge "
                + "the values alone)")
            return true
        }
    }

    /// A setting of a saved run, with what a folder written before run.csv had it means: tcp for the transport, the
    /// built-in server (empty) for the target.
    static func setting(_ key: String, of results: RunResults) -> String? {
        results.setting(key) ?? ["transport": "tcp", "target": ""][key]
    }

    /// A setting's value as a person reads it: durations and sizes in units, an empty target as the built-in server.
    static func shown(_ key: String, _ value: String?) -> String {
        if key == "http2" { return value == "yes" ? "yes" : "no" }
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
