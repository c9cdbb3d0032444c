import BenchCore
import BenchNet
import BenchReports

/// `bench compare` of two sweep folders or two suite folders: step by step (entry by entry), and with `--repeat`, the
/// medians of the repeats, never calling a change a regression while the current median lies within the baseline
/// repeats' own range.
enum CompareGroups {
    /// The settings every run of a step shares, on both sides and across repeats.
    static let stepSettings = CompareCommand.requiredSettings
        + ["clients", "payload_bytes", "interval_ns", "arrival", "count", "messages"]

    /// The run folders in `folder` by step name (a repeat's `-repeat-N` taken off), or nil when it holds none. A
    /// suite's entry that is itself a sweep is a folder of steps: its steps are `entry/step`.
    static func steps(in folder: String) -> [String: [String]]? {
        guard let names = try? Posix.directoryEntries(folder) else { return nil }
        var steps: [String: [String]] = [:]
        for name in names.sorted() {
            let path = folder + "/" + name
            if Posix.fileExists(path + "/run.csv") {
                var step = name
                if let range = name.firstRange(of: "-repeat-") { step = String(name[..<range.lowerBound]) }
                steps[step, default: []].append(path)
            } else if Posix.fileExists(path + "/" + SweepReport.csvFileName), let inner = self.steps(in: path) {
                for (step, folders) in inner { steps[name + "/" + step, default: []] += folders }
            }
        }
        return steps.isEmpty ? nil : steps
    }

    /// Compares two groups of runs; prints each step's table. Returns the exit code.
    static func compare(
        baseline: [String: [String]], current: [String: [String]], baselineFolder: String, currentFolder: String,
        limits: (_ metrics: [String]) throws(UsageError) -> [RegressionLimit], noiseFloor: UInt64
    ) throws(UsageError) -> ExitCode {
        guard Set(baseline.keys) == Set(current.keys) else {
            let missing = Set(baseline.keys).symmetricDifference(current.keys).sorted().joined(separator: ", ")
            throw UsageError(
                message: "The folders do not hold the same steps (only in one of them: \(missing))",
                command: CompareCommand.spec.name)
        }
        // Every step is read and checked before any table is printed: a usage error comes alone.
        var loaded: [LoadedStep] = []
        for step in baseline.keys.sorted() {
            let oldRuns = try load(baseline[step]!)
            let newRuns = try load(current[step]!)
            for run in oldRuns.dropFirst() + newRuns {
                for key in Self.stepSettings {
                    let (first, this) = (
                        CompareCommand.setting(key, of: oldRuns[0].results), CompareCommand.setting(key, of: run.results))
                    guard this != first else { continue }
                    throw UsageError(
                        message: "The folders are not comparable: in step \(step), \(key) is "
                            + "\(first ?? "missing") in \(oldRuns[0].folder) and \(this ?? "missing") in \(run.folder)",
                        command: CompareCommand.spec.name)
                }
            }
            let old = oldRuns.map(\.results.summaries)
            loaded.append(LoadedStep(
                step: step, old: old, new: newRuns.map(\.results.summaries), limits: try limits(old[0].map(\.metric))))
        }
        var regressed = false
        var markdown = ""
        for loadedStep in loaded {
            let (step, old, new, limits) = (loadedStep.step, loadedStep.old, loadedStep.new, loadedStep.limits)
            let repeats = old.count > 1 || new.count > 1
            var notes: [String] = []
            let comparison = RunComparison(
                baseline: median(old), current: median(new), limits: limits, noiseFloor: noiseFloor
            ).excluding { regression in
                guard repeats, let range = range(of: regression.limit, in: old), let now = regression.row.current,
                    range.contains(now)
                else { return false }
                notes.append("not a regression: \(regression.limit.expression) moved to "
                    + "\(DurationText.format(UInt64(roundingClamped: now))), within the baseline repeats' own range "
                    + "(\(DurationText.format(UInt64(roundingClamped: range.lowerBound)))–"
                    + "\(DurationText.format(UInt64(roundingClamped: range.upperBound))))")
                return true
            }
            let title = "\(step)" + (repeats ? " (medians of \(old.count) and \(new.count) repeats)" : "")
            Console.out("== \(title)\n")
            Console.out(ComparisonTable.render(comparison, baseline: baselineFolder, current: currentFolder))
            for note in notes { Console.out(note + "\n") }
            markdown += "#### \(title)\n\n" + ComparisonTable.markdown(comparison, baseline: baselineFolder, current: currentFolder)
                + notes.map { "- \($0)\n" }.joined()
            if !comparison.regressions.isEmpty { regressed = true }
        }
        StepSummary.append(markdown)
        return regressed ? .thresholdBreached : .success
    }

    /// A step's summaries on both sides, read and checked, with the limits that judge it.
    private struct LoadedStep {
        let step: String
        let old: [[DistributionSummary]]
        let new: [[DistributionSummary]]
        let limits: [RegressionLimit]
    }

    private static func load(_ folders: [String]) throws(UsageError) -> [SavedRun] {
        var runs: [SavedRun] = []
        for folder in folders { runs.append(try SavedRun.argument(folder, of: CompareCommand.spec.name)) }
        return runs
    }

    /// The smallest and largest value of the limit's statistic across the repeats.
    private static func range(of limit: RegressionLimit, in runs: [[DistributionSummary]]) -> ClosedRange<Double>? {
        let values = runs.compactMap { $0.first { $0.metric == limit.metric }?.time(of: limit.statistic) }
        guard let low = values.min(), let high = values.max() else { return nil }
        return low...high
    }

    /// Each metric's statistics, the median across `runs` (the first run's alone when there is one).
    static func median(_ runs: [[DistributionSummary]]) -> [DistributionSummary] {
        guard runs.count > 1 else { return runs[0] }
        return runs[0].map { first in
            let all = runs.compactMap { run in run.first { $0.metric == first.metric } }
            func middle<T>(_ value: (DistributionSummary) -> T?, _ average: (T, T) -> T) -> T? where T: Comparable {
                let values = all.compactMap(value).sorted()
                guard !values.isEmpty else { return nil }
                let index = values.count / 2
                return values.count % 2 == 1 ? values[index] : average(values[index - 1], values[index])
            }
            let time = { (value: (DistributionSummary) -> UInt64?) in middle(value) { $0 / 2 + $1 / 2 } }
            let real = { (value: (DistributionSummary) -> Double?) in middle(value) { ($0 + $1) / 2 } }
            return DistributionSummary(
                metric: first.metric, count: middle({ $0.count }) { ($0 + $1) / 2 } ?? 0,
                lost: middle({ $0.lost }) { ($0 + $1) / 2 } ?? 0, min: time(\.min), max: time(\.max),
                mean: real(\.mean), standardDeviation: real(\.standardDeviation), p50: time(\.p50), p90: time(\.p90),
                p95: time(\.p95), p99: time(\.p99), p999: time(\.p999), under: first.under,
                percentUnder: real(\.percentUnder))
        }
    }
}
