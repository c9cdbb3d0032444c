import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

extension RunCommand {
    /// The sweep's own reports, from the steps that ran.
    static func writeSweep(_ options: RunOptions, outcomes: [Outcome], into folder: String) {
        let steps = zip(options.steps, outcomes).compactMap { step, outcome -> SweepReport.Step? in
            guard let path = outcome.folder else { return nil }
            return SweepReport.Step(
                settings: step.settings.map { ($0.column, $0.value) }, repeatIndex: step.repeatIndex,
                folder: String(path.split(separator: "/").last ?? ""), summaries: outcome.summaries,
                saturated: outcome.harnessSaturation != nil, disturbed: outcome.disturbance != nil)
        }
        guard !steps.isEmpty else {
            // No step wrote a run folder (the first failed before it could): no sweep to report on, and no folder left.
            try? Posix.removeDirectory(folder)
            return
        }
        let configuration = options.steps[0].configuration
        let report = SweepReport(
            scenario: configuration.scenario.rawValue, under: configuration.under, repeats: options.steps[0].repeats,
            steps: steps)
        do {
            try report.write(into: folder)
        } catch {
            Console.error("Error: could not write the sweep's reports into \(folder): \(error)\n")
            return
        }
        StepSummary.append(report.markdown)
        if options.json {
            return  // stdout holds JSON only
        } else if options.quiet {
            Console.out(folder + "\n")
        } else {
            // Every step together, as each run printed its own table above.
            Console.out("\n" + report.text + "sweep folder: \(folder)\n")
        }
    }
}
