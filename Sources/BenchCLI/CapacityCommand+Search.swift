import BenchClients
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
        let commandLine = BenchCommandLine.recorded(arguments)
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
        if !quiet { Console.error("capacity: \(plan.sizing(try plan.options(at: plan.search.low).thresholds))\n") }
        var runs: [CapacityReport.Run] = []
        var steps: [CapacityReport.Step] = []
        var cutShort: String?
        var stopCode: ExitCode?
        var harnessNote: String?
        // Runs made again because other work took the machine that found it busy again, in a row: at
        // ``disturbanceIsLasting`` the disturbance is no passing one, and steps are judged as measured from then on.
        var disturbedAgainInARow = 0
        search: while let value = plan.search.nextValue() {
            let step = plan.search.steps.count + 1
            let isConfirmation = plan.search.steps.contains { $0.value == value }
            let passConfidence = plan.passConfidence(confirming: isConfirmation)
            var judgement = StepJudgement(
                objectives: plan.slos, confidence: plan.confidence, passConfidence: passConfidence)
            var verdict = CapacitySearch.Verdict.undecided
            let stepStart = MonotonicClock.now()
            var runIndex = 0
            var attempts = 0  // runs made, a saturated one tried again included: each its own folder
            var saturatedRuns = 0
            var disturbedRuns = 0  // runs measured while other work took the machine
            var madeAgainForDisturbance = false  // the next run is one made again because the last was disturbed
            // Its run sends until decided, up to the budget: no further run for more values, unless the values that
            // came in after the decision (those in flight, those sent meanwhile) undid it.
            var samplesInPlace = false
            var judgedRuns: [[ThresholdResult]] = []
            while runIndex < max(1, plan.minimumRuns)
                || (!samplesInPlace
                    && plan.stepBudget.allowsAnother(after: runIndex, startedAt: stepStart, now: MonotonicClock.now()))
            {
                runIndex += 1
                attempts += 1
                // Per run: each draws its own seed without --seed.
                var (options, samples) = plan.sampling(
                    try plan.options(at: value), stepStart: stepStart, pooledWith: judgedRuns,
                    passConfidence: passConfidence, mayGiveUp: plan.search.capacity != nil)
                samplesInPlace = samples != nil
                options.live = liveView?.feed
                let name = "step\(step < 10 ? "0" : "")\(step)-\(plan.axis.rawValue)-\(plan.axis.optionText(value).replacing("/", with: "-per-"))"
                    + (attempts > 1 ? "-r\(attempts)" : "")
                let outcome = RunCommand.runStep(
                    options.steps[0].configuration, options: options, metadata: metadata, parent: folder, name: name)
                let gaveUp = samples?.gaveUp.load(ordering: .relaxed) == true  // stopped as futile
                // A server that lost every message of a step harder than one it held failed that step; at the low end
                // it is more likely a run that cannot measure (a wrong --subscribe): the search stops, saying why.
                let lostEverything = outcome.lostEverything && plan.search.capacity != nil
                guard outcome.exitCode.ranToItsEnd || lostEverything, let path = outcome.folder else {
                    stopCode = outcome.exitCode
                    cutShort = outcome.exitCode == .interrupted || outcome.exitCode == .terminated
                        ? "interrupted at \(plan.axis.text(value))"
                        : "the run at \(plan.axis.text(value)) could not be done"
                    break search
                }
                var retrying = false
                if lostEverything {
                    verdict = .fail
                } else if let saturation = outcome.harnessSaturation, !options.accepted.contains(.saturated) {
                    // No measurement of the server, whatever its objectives say. Once may be a passing load on the
                    // machine: tried again after a pause; harness-bound only when it repeats at this size.
                    saturatedRuns += 1
                    retrying = saturatedRuns < Self.saturatedRunsToStop
                    verdict = retrying ? judgement.verdict : .harnessBound
                    harnessNote = "the harness was saturated at \(plan.axis.text(value)) in \(saturatedRuns) "
                        + "run\(saturatedRuns == 1 ? "" : "s") (\(saturation))"
                        + (outcome.machine.map { $0.isDisturbed ? "; \($0.othersText) meanwhile" : "" } ?? "")
                } else if outcome.serverBackpressure != nil {
                    verdict = .fail  // the server could not take the offered load: its limit, not the harness's
                } else if Self.isDisturbed(outcome, judgedWith: judgement) && disturbedRuns == 0
                    && !options.accepted.contains(.disturbed) && disturbedAgainInARow < Self.disturbanceIsLasting
                {
                    // Other work took the machine while the step did not pass: no verdict on the server. Run again
                    // after a pause, once; a second disturbed run is judged as measured (the machine is busy, not
                    // passing by), and the step says so.
                    disturbedRuns += 1
                    retrying = true
                    madeAgainForDisturbance = true
                    verdict = judgement.verdict
                } else {
                    let busy = outcome.machine?.isDisturbed == true || outcome.disturbance != nil
                    if madeAgainForDisturbance {
                        madeAgainForDisturbance = false
                        disturbedAgainInARow = busy ? disturbedAgainInARow + 1 : 0
                        if disturbedAgainInARow == Self.disturbanceIsLasting && !quiet {
                            Console.error("Note: the machine stayed busy with other work through \(Self.disturbanceIsLasting) "
                                + "runs made again after a pause: from now on steps are judged as measured, and run once\n")
                        }
                    }
                    if busy { disturbedRuns += 1 }
                    judgement.add(outcome.thresholds)
                    judgedRuns.append(outcome.thresholds)
                    verdict = judgement.verdict
                    if outcome.endedWhenDecided && verdict == .undecided && !gaveUp { samplesInPlace = false }
                }
                runs.append(CapacityReport.Run(
                    step: step, value: value, repeatIndex: attempts, verdict: verdict, objectives: outcome.thresholds,
                    harnessSaturation: outcome.harnessSaturation, folder: String(path.split(separator: "/").last ?? ""),
                    elapsed: MonotonicClock.now() - started,
                    disturbance: outcome.disturbance ?? outcome.machine.flatMap { $0.isDisturbed ? $0.othersText : nil }))
                if !quiet {
                    Console.error(progressLine(
                        plan, step: step, value: value, run: runIndex, confirming: isConfirmation, outcome, judgement,
                        verdict, retrying: retrying, gaveUp: verdict == .undecided && gaveUp))
                }
                if retrying {
                    runIndex -= 1  // judged runs only
                    samplesInPlace = false  // the retry is made whatever the budget says
                    Posix.sleep(nanoseconds: Self.pauseAfterSaturation)
                    continue
                }
                if verdict == .harnessBound || outcome.serverBackpressure != nil || lostEverything
                    || (verdict != .undecided && runIndex >= plan.minimumRuns)
                {
                    break
                }
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
        if plan.search.ending == .harnessBound, let harnessNote { Console.error("Note: \(harnessNote)\n") }
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

    /// True when the run was measured while other work took the machine (its timetable held back, or other
    /// processes using ``MachineShare/disturbingCPU`` of a CPU) and its step, with it, would not pass: the step is
    /// sampled again after a pause rather than judged on it.
    static func isDisturbed(_ outcome: RunCommand.Outcome, judgedWith judgement: StepJudgement) -> Bool {
        guard outcome.disturbance != nil || outcome.machine?.isDisturbed == true else { return false }
        var with = judgement
        with.add(outcome.thresholds)
        return with.verdict != .pass
    }

    /// Runs made again after a disturbance that found the machine busy again, in a row, after which the search stops
    /// making them: the machine's other work is lasting, not passing (a `yes` throughout doubled a search's time).
    static let disturbanceIsLasting = 2

    /// A saturated step is run again once, after this pause, before the search calls itself harness-bound.
    static let saturatedRunsToStop = 2
    static let pauseAfterSaturation: UInt64 = 2_000_000_000

    /// `step 3: 16 clients (confirming), run 2: spread.p99 1.31ms (0 of 60 beyond the limit so far) → undecided`.
    private static func progressLine(
        _ plan: CapacityPlan, step: Int, value: UInt64, run: Int, confirming: Bool, _ outcome: RunCommand.Outcome,
        _ judgement: StepJudgement, _ verdict: CapacitySearch.Verdict, retrying: Bool, gaveUp: Bool
    ) -> String {
        let objectives = zip(outcome.thresholds, judgement.objectives).map { result, objective in
            "\(result.metric).\(result.statistic) \(result.measuredText ?? "–")"
                + (objective.beyond.map { " (\($0) of \(objective.values) beyond the limit so far)" } ?? "")
        }
        let busy = outcome.disturbance
            ?? outcome.machine.flatMap { $0.isDisturbed ? "the machine was busy with other work: \($0.othersText)" : nil }
        let why = retrying
            ? (outcome.harnessSaturation != nil
                ? " (the harness was saturated: run again after a pause)" : " (\(busy ?? ""): run again after a pause)")
            : verdict != .pass && busy != nil ? " (\(busy!); judged as measured)"
            : gaveUp ? " (at this rate its budget would not decide it either: stopped early)"
            : outcome.harnessSaturation != nil && verdict == .harnessBound
            ? " (the harness was saturated again)" : outcome.serverBackpressure.map { " (\($0))" } ?? ""
        return "step \(step): \(plan.axis.text(value))\(confirming ? " (confirming)" : ""), run \(run): "
            + objectives.joined(separator: ", ") + " → \(retrying ? "run again" : verdict.rawValue)\(why)\n"
    }
}
