import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Glibc

/// `bench fanout` and `bench roundtrip`: run each sweep step, write its run folder, show its summary.
enum RunCommand {
    /// The command line of `scenario`.
    static func spec(for scenario: Scenario) -> CommandSpec {
        CommandSpec(
            name: scenario.rawValue,
            abstract: scenario == .fanout
                ? "Broadcast to N clients; measure delivery, spread per broadcast, completion and echo round trip."
                : "Send each client its own messages; measure the echo round trip.",
            overview: scenario == .fanout
                ? "Start a broadcast server and N clients on this machine; broadcast M timestamped messages to all "
                    + "clients in a new random order each time; every client stamps arrival and echoes. Reports "
                    + "delivery (client receive − start of the broadcast), spread (last − first client receive of a "
                    + "broadcast), completion (last client receive − start), rtt (echo receive − write) and lag "
                    + "(send − schedule), with losses. Receives and sends are the kernel's stamps (--timestamps)."
                : "Start a server and N clients on this machine; the server sends each client COUNT timestamped "
                    + "messages, the client echoes each at once. Reports rtt (echo receive at the server − send) and "
                    + "lag (send − schedule), with losses. Receives and sends are the kernel's stamps (--timestamps).",
            options: RunOptions.options(for: scenario),
            notes: [
                "Durations take ns, us, ms or s (10ms); sizes take B, KiB or MiB (64, 1KiB).",
                "Results go to <out>/\(scenario.rawValue)-<UTC yyyyMMdd-HHmmss>/: run.csv, samples.csv, summary.csv, "
                    + "histogram.csv\(scenario == .fanout ? ", broadcasts.csv" : ""), thresholds.csv (with --threshold),",
                "summary.md, junit.xml, report.html and one <metric>.hgrm per metric.",
            ]
        )
    }

    /// Runs what `options` describe and returns the process's exit code.
    /// What became of one run (one sweep step).
    struct Outcome {
        /// The published run folder, if the run got that far.
        var folder: String?
        /// How the run ended, if it ran.
        var status: RunStatus?
        /// For a run that did not complete: why, and how much of it was measured.
        var statusDetail: String?
        /// Its thresholds, checked.
        var thresholds: [ThresholdResult] = []
        /// The exit code this run alone calls for.
        var exitCode: ExitCode
    }

    /// Runs what `options` describe and returns the process's exit code.
    static func execute(_ options: RunOptions, commandLine: String) -> ExitCode {
        exitCode(of: run(options, commandLine: commandLine))
    }

    /// The exit code for a series of runs: the first that could not go on decides; otherwise 1 if any threshold
    /// was breached, else 0.
    static func exitCode(of outcomes: [Outcome]) -> ExitCode {
        if let stopped = outcomes.first(where: { $0.exitCode != .success && $0.exitCode != .thresholdBreached }) {
            return stopped.exitCode
        }
        return outcomes.contains { $0.exitCode == .thresholdBreached } ? .thresholdBreached : .success
    }

    /// Runs each sweep step in turn, writing and showing each; stops after a step that cannot go on.
    static func run(_ options: RunOptions, commandLine: String) -> [Outcome] {
        let metadata = RunMetadata(commandLine: commandLine, version: BenchCommandLine.version, cpus: CPUPlacement.onlineCount)
        var outcomes: [Outcome] = []
        for configuration in options.configurations {
            if SignalWatcher.shared?.signal != nil { break }
            let outcome = runStep(configuration, options: options, metadata: metadata)
            outcomes.append(outcome)
            if outcome.exitCode != .success && outcome.exitCode != .thresholdBreached { break }
        }
        return outcomes
    }

    private static func runStep(_ configuration: RunConfiguration, options: RunOptions, metadata: RunMetadata) -> Outcome {
        let folder: RunFolder
        let control: RunControl
        do {
            folder = try RunFolder.prepare(in: options.outputFolder)
        } catch {
            Console.error("Error: cannot write to --out \(options.outputFolder): \(error)\n")
            return Outcome(exitCode: .runFailed)
        }
        do {
            control = try RunControl()
        } catch {
            folder.discard()
            Console.error("Error: \(error)\n")
            return Outcome(exitCode: .runFailed)
        }
        let showProgress = Console.errorIsTerminal && !options.quiet && !options.json
        SignalWatcher.shared?.watch(control)
        let result = ProgressLine.run(configuration, control: control, show: showProgress)
        SignalWatcher.shared?.watch(nil)

        let recording: RunRecording
        switch result {
        case .success(let value):
            recording = value
        case .failure(let error):
            folder.discard()
            Console.error("Error: \(error)\n")
            return Outcome(exitCode: .runFailed)
        }
        let analysis = RunAnalysis(recording: recording)
        let thresholds = options.thresholds.map { threshold in
            threshold.evaluate(analysis.summary(of: RunAnalysis.Metric(rawValue: threshold.metric)!)!)
        }
        let path: String
        do {
            path = try RunReport.write(analysis, metadata: metadata, thresholds: thresholds, into: folder)
        } catch {
            folder.discard()
            Console.error("Error: could not write the run folder: \(error)\n")
            return Outcome(status: recording.status, exitCode: .runFailed)
        }
        if let markdown = try? FileText.read(path + "/" + MarkdownSummary.fileName) { StepSummary.append(markdown) }
        if options.json {
            Console.out(SummaryJSON.render(analysis, thresholds: thresholds, runFolder: path) + "\n")
        } else if options.quiet {
            Console.out(path + "\n")
        } else {
            Console.out(SummaryTable.render(analysis, thresholds: thresholds, runFolder: path))
        }
        if options.json || options.quiet {
            for result in thresholds where !result.held { Console.error(result.breachLine + "\n") }
        }
        let statusDetail = RunResults(analysis, metadata: metadata, thresholds: thresholds).statusDetail
        var outcome = Outcome(
            folder: path, status: recording.status, statusDetail: statusDetail, thresholds: thresholds,
            exitCode: .success)
        switch recording.status {
        case .complete:
            outcome.exitCode = thresholds.allSatisfy(\.held) ? .success : .thresholdBreached
        case .interrupted:
            outcome.exitCode = SignalWatcher.shared?.signal == SIGTERM ? .terminated : .interrupted
        case .failed:
            Console.error("Error: the run failed: \(recording.statusReason ?? "unknown reason")\n")
            outcome.exitCode = .runFailed
        }
        return outcome
    }
}
