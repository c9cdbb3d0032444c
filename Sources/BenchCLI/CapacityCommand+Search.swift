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
        var steps: [CapacityReport.Step] = []
        var cutShort: String?
        var stopCode: ExitCode?
        search: while let value = plan.search.nextValue() {
            let step = plan.search.steps.count + 1
            var judgement = StepJudgement(objectives: plan.slos, confidence: plan.confidence)
            var verdict = CapacitySearch.Verdict.undecided
            let stepStart = MonotonicClock.now()
            var runIndex = 0
            while runIndex < max(1, plan.minimumRuns)
                || plan.stepBudget.allowsAnother(after: runIndex, startedAt: stepStart, now: MonotonicClock.now())
            {
                runIndex += 1
                var options = try plan.options(at: value)  // per run: each draws its own seed without --seed
                options.live = liveView?.feed
                let name = "step\(step < 10 ? "0" : "")\(step)-\(plan.axis.rawValue)-\(plan.axis.optionText(value).replacing("/", with: "-per-"))"
                    + (runIndex > 1 ? "-r\(runIndex)" : "")
                let outcome = RunCommand.runStep(
                    options.steps[0].configuration, options: options, metadata: metadata, parent: folder, name: name)
                guard outcome.exitCode.ranToItsEnd, let path = outcome.folder else {
                    stopCode = outcome.exitCode
                    cutShort = outcome.exitCode == .interrupted || outcome.exitCode == .terminated
                        ? "interrupted at \(plan.axis.text(value))"
                        : "the run at \(plan.axis.text(value)) could not be done"
                    break search
                }
                if outcome.harnessSaturation != nil && !options.accepted.contains(.saturated) {
                    verdict = .harnessBound  // no measurement of the server, whatever its objectives say
                } else {
                    judgement.add(outcome.thresholds)
                    verdict = judgement.verdict
                }
                runs.append(CapacityReport.Run(
                    step: step, value: value, repeatIndex: runIndex, verdict: verdict, objectives: outcome.thresholds,
                    harnessSaturation: outcome.harnessSaturation, folder: String(path.split(separator: "/").last ?? "")))
                if !quiet {
                    Console.error(progressLine(plan, step: step, value: value, run: runIndex, outcome.thresholds, judgement, verdict))
                }
                if verdict == .harnessBound || (verdict != .undecided && runIndex >= plan.minimumRuns) { break }
            }
            plan.search.record(value, verdict)
            steps.append(CapacityReport.Step(
                number: step, value: value, verdict: verdict,
                isConfirmation: plan.search.isConfirmation(at: plan.search.steps.count - 1), judgement: judgement))
            for index in runs.indices where runs[index].step == step { runs[index].verdict = verdict }
        }
        let capacity = plan.search.capacity
        let report = CapacityReport(
            scenario: scenario.rawValue, axis: plan.axis, objectives: plan.slos, search: plan.search, runs: runs,
            steps: steps, confidence: plan.confidence, duration: MonotonicClock.now() - started, cutShort: cutShort,
            thresholds: plan.thresholds.map { ($0.expression, cutShort == nil ? $0.verdict(on: plan.search) : .inconclusive) })
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
        for threshold in report.thresholds where threshold.verdict != .held {
            let found = capacity.map { "capacity \(plan.axis.text($0))" } ?? "no capacity found"
            Console.error("threshold \(threshold.verdict.rawValue): \(threshold.expression) (\(found)"
                + (threshold.verdict == .inconclusive ? "; what the search decided cannot say" : "") + ")\n")
        }
        if let stopCode { return stopCode }
        if plan.search.ending == .harnessBound && capacity == nil { return .runFailed }
        if plan.search.ending == .lowEndFails {  // broken, or nothing decided even there
            return plan.search.verdicts[plan.search.low] == .fail ? .thresholdBreached : .inconclusive
        }
        if report.thresholds.contains(where: { $0.verdict == .breached }) { return .thresholdBreached }
        if report.thresholds.contains(where: { $0.verdict == .inconclusive }) { return .inconclusive }
        return .success
    }

    /// `step 3: 16 clients, run 2: spread.p99 1.31ms (0 of 60 beyond the limit so far) → undecided`.
    private static func progressLine(
        _ plan: CapacityPlan, step: Int, value: UInt64, run: Int, _ results: [ThresholdResult], _ judgement: StepJudgement,
        _ verdict: CapacitySearch.Verdict
    ) -> String {
        let objectives = zip(results, judgement.objectives).map { result, objective in
            "\(result.metric).\(result.statistic) \(result.measuredText ?? "–")"
                + (objective.beyond.map { " (\($0) of \(objective.values) beyond the limit so far)" } ?? "")
        }
        return "step \(step): \(plan.axis.text(value)), run \(run): " + objectives.joined(separator: ", ")
            + " → \(verdict.rawValue)\n"
    }
}
