import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Glibc

extension CapacityCommand {
    /// Runs `bench capacity SCENARIO`: checks everything, then the search's runs one after the other, each into its
    /// own folder under the search's, and writes the search's reports (also when interrupted, or when a run cannot
    /// run: what was measured).
    static func execute(_ parsed: ParsedOptions, scenario: Scenario, arguments: [String]) throws(UsageError) -> ExitCode {
        let command = "capacity \(scenario.rawValue)"
        var plan: CapacityPlan
        do {
            plan = try Self.plan(parsed, scenario: scenario, command: command)
        } catch {
            throw UsageError(
                message: error.message.split(separator: "'--threshold <expr>'", omittingEmptySubsequences: false)
                    .joined(separator: "'--slo <expr>'"),
                command: command)
        }
        let json = parsed.has("json")
        let quiet = parsed.has("quiet") || json
        let outputFolder = parsed.value("out") ?? "results"
        let commandLine = (["bench"] + arguments).map(BenchCommandLine.shellQuoted).joined(separator: " ")
        let metadata = RunMetadata(commandLine: commandLine, version: BenchCommandLine.version, cpus: CPUPlacement.onlineCount)
        let folder: String
        do {
            folder = try RunFolder.makeNamed("capacity", in: outputFolder, unixNanoseconds: WallClock.nowUnixNanoseconds())
        } catch {
            Console.error("Error: cannot write to --out \(outputFolder): \(error)\n")
            return .runFailed
        }
        var liveView: LiveView?
        if let address = try plan.options(at: plan.search.low).metricsListen {
            guard let view = LiveView.start(at: address) else {
                try? Posix.removeDirectory(folder)
                return .runFailed
            }
            liveView = view
        }
        defer { liveView?.finish() }
        let started = MonotonicClock.now()
        var runs: [CapacityReport.Run] = []
        var cutShort: String?
        var stopCode: ExitCode?
        search: while let value = plan.search.nextValue() {
            let step = Set(runs.map(\.step)).count + 1
            var verdicts: [CapacitySearch.Verdict] = []
            for repeatIndex in 1...plan.repeats {
                var options = try plan.options(at: value)  // per repeat: each draws its own seed without --seed
                options.live = liveView?.feed
                let name = "step\(step < 10 ? "0" : "")\(step)-\(plan.axis.rawValue)-\(plan.axis.optionText(value))"
                    + (plan.repeats > 1 ? "-r\(repeatIndex)" : "")
                let outcome = RunCommand.runStep(
                    options.steps[0].configuration, options: options, metadata: metadata, parent: folder, name: name)
                guard outcome.exitCode == .success || outcome.exitCode == .thresholdBreached, let path = outcome.folder else {
                    stopCode = outcome.exitCode
                    cutShort = outcome.exitCode == .interrupted || outcome.exitCode == .terminated
                        ? "interrupted at \(plan.axis.text(value))"
                        : "the run at \(plan.axis.text(value)) could not be done"
                    break search
                }
                let verdict: CapacitySearch.Verdict = outcome.thresholds.allSatisfy(\.held)
                    ? .pass : outcome.harnessSaturation == nil ? .fail : .harnessBound
                runs.append(CapacityReport.Run(
                    step: step, value: value, repeatIndex: repeatIndex, verdict: verdict, objectives: outcome.thresholds,
                    harnessSaturation: outcome.harnessSaturation, folder: String(path.split(separator: "/").last ?? "")))
                if !quiet {
                    let measured = outcome.thresholds.map { "\($0.metric).\($0.statistic) \($0.measuredText ?? "–")" }
                    Console.error("step \(step): \(plan.axis.text(value))"
                        + (plan.repeats > 1 ? ", run \(repeatIndex) of \(plan.repeats)" : "") + ": "
                        + measured.joined(separator: ", ") + " → \(verdict.rawValue)\n")
                }
                verdicts.append(verdict)
                if verdict == .fail { break }  // the step has failed whatever the other repeats show
            }
            plan.search.record(value, .combining(verdicts))
        }
        let capacity = plan.search.capacity
        let report = CapacityReport(
            scenario: scenario.rawValue, axis: plan.axis, objectives: plan.slos, search: plan.search, runs: runs,
            duration: MonotonicClock.now() - started, cutShort: cutShort,
            thresholds: plan.thresholds.map { ($0.expression, $0.holds(capacity)) })
        do {
            try report.write(into: folder)
        } catch {
            Console.error("Error: could not write the capacity reports into \(folder): \(error)\n")
            return .runFailed
        }
        StepSummary.append(report.markdown)
        if json {
            Console.out(report.json + "\n")
        } else if parsed.has("quiet") {
            Console.out(folder + "\n")
        } else {
            Console.out(report.line + "\ncapacity folder: \(folder)\n")
        }
        for threshold in report.thresholds where !threshold.held {
            Console.error("threshold breached: \(threshold.expression) (capacity \(capacity.map { plan.axis.text($0) } ?? "none"))\n")
        }
        if let stopCode { return stopCode }
        if plan.search.ending == .harnessBound && capacity == nil { return .runFailed }
        if plan.search.ending == .lowEndFails || report.thresholds.contains(where: { !$0.held }) { return .thresholdBreached }
        return .success
    }
}
