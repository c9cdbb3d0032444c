import BenchClients
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
                : scenario == .chat
                ? "Clients in rooms, each sending to its room; measure delivery, spread and completion per message."
                : "Send each client its own messages; measure the echo round trip.",
            overview: scenario == .chat
                ? "Start a chat relay (or measure yours with --target) and N clients on this machine, dealt into rooms "
                    + "by the seed; every member sends COUNT marked messages on its own timetable (--rate), which the "
                    + "server relays to the other members of its room. Reports delivery (a member's receive − the "
                    + "sender's write), spread (last − first member's receive of a message), completion (last member's "
                    + "receive − write) and lag (write − schedule), with losses: a member that did not have a message "
                    + "within --timeout lost it. Receives and sends are the kernel's stamps (--timestamps)."
                : scenario == .fanout
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
                    + "histogram.csv\(BroadcastsCSV.file(for: scenario).map { ", " + $0.name } ?? ""), events.csv, "
                    + "thresholds.csv (with --threshold),",
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
        /// Its summaries, for a sweep's own reports.
        var summaries: [DistributionSummary] = []
        /// Its `--json` object, when a sweep prints them together at the end.
        var json: String?
        /// Why the harness was saturated, when it was.
        var harnessSaturation: String?
        /// Why the server held the timetable back, when it did (the harness had time to spare).
        var serverBackpressure: String?
        /// Why other work on the machine held the timetable back, when it did.
        var disturbance: String?
        /// What the machine's CPUs did over the run, where `/proc` said.
        var machine: MachineShare?
        /// Sending ended once its objectives were decided (a capacity step's run), before its timetable did.
        var endedWhenDecided = false
        /// It failed because every message it sent was lost (nothing measured, though messages were sent).
        var lostEverything = false
        /// The exit code this run alone calls for.
        var exitCode: ExitCode
    }

    /// Runs what `options` describe and returns the process's exit code.
    static func execute(_ options: RunOptions, commandLine: String) -> ExitCode {
        if let place = ShardLifetime.place() { return ShardLifetime.run(options, place: place) }  // a server process's
        return exitCode(of: run(options, commandLine: commandLine))
    }

    /// The exit code for a series of runs: the first that could not go on decides; otherwise 1 if any threshold
    /// was breached, else 4 if a verdict was inconclusive, else 0.
    static func exitCode(of outcomes: [Outcome]) -> ExitCode {
        if let stopped = outcomes.first(where: { !$0.exitCode.ranToItsEnd }) { return stopped.exitCode }
        if outcomes.contains(where: { $0.exitCode == .thresholdBreached }) { return .thresholdBreached }
        return outcomes.contains { $0.exitCode == .inconclusive } ? .inconclusive : .success
    }

    /// Runs each step in turn, writing and showing each; stops after a step that cannot go on. A sweep's runs go in a
    /// sweep folder, named by their settings, with the sweep's own reports (`sweep.csv`, `sweep.md`, `sweep.html`).
    static func run(_ options: RunOptions, commandLine: String) -> [Outcome] {
        var options = options
        var liveView: LiveView?
        if let address = options.metricsListen {
            guard let view = LiveView.start(at: address) else { return [Outcome(exitCode: .runFailed)] }
            liveView = view
            options.live = view.feed
        }
        defer { liveView?.finish() }
        let metadata = RunMetadata(commandLine: commandLine, version: BenchCommandLine.version, cpus: CPUPlacement.onlineCount)
        for path in RunFolder.cutOffRuns(in: options.outputFolder) {
            Console.error("Note: \(path) holds a run that was cut off; 'bench report \(path)' rebuilds its reports.\n")
        }
        if let note = options.ioNote { Console.error("Note: \(note).\n") }
        var parent = options.outputFolder
        var sweepFolder: String?
        if options.isSweep {
            do {
                let folder = try options.runFolderName.map { name throws(SystemError) in
                    try RunFolder.makeExact(name, in: options.outputFolder)
                } ?? RunFolder.makeNamed("sweep", in: options.outputFolder, unixNanoseconds: WallClock.nowUnixNanoseconds())
                sweepFolder = folder
                parent = folder
            } catch {
                Console.error("Error: cannot write to --out \(options.outputFolder): \(error)\n")
                return [Outcome(exitCode: .runFailed)]
            }
        }
        if options.steps.first?.configuration.tlsTrust == .insecure {
            Console.error("Warning: --tls-insecure: the server's certificate is not checked; the connections are "
                + "encrypted, not authenticated\n")
        }
        var outcomes: [Outcome] = []
        for step in options.steps {
            if SignalWatcher.shared?.signal != nil { break }
            let name = options.isSweep ? step.folderName : options.runFolderName
            let outcome = runStep(step.configuration, options: options, metadata: metadata, parent: parent, name: name)
            outcomes.append(outcome)
            if !outcome.exitCode.ranToItsEnd { break }
        }
        if options.json && !options.jsonLines && options.isSweep {
            Console.out("[" + outcomes.compactMap(\.json).joined(separator: ",\n") + "]\n")
        }
        if let sweepFolder { writeSweep(options, outcomes: outcomes, into: sweepFolder) }
        return outcomes
    }

    /// Runs one configuration into a run folder under `parent` (named `name`, or by its scenario and time), shows
    /// it as `options` say, and returns what became of it.
    static func runStep(
        _ configuration: RunConfiguration, options: RunOptions, metadata: RunMetadata, parent: String, name: String?
    ) -> Outcome {
        let outcome = measure(configuration, options: options, metadata: metadata, parent: parent, name: name)
        options.live?.end(status: outcome.status?.rawValue ?? "failed", folder: outcome.folder ?? "")
        return outcome
    }

    /// ``runStep(_:options:metadata:parent:name:)`` but for telling its live view how it ended.
    private static func measure(
        _ configuration: RunConfiguration, options: RunOptions, metadata: RunMetadata, parent: String, name: String?
    ) -> Outcome {
        let ended: RunLifetime.Ended
        switch RunLifetime.run(configuration, options: options, metadata: metadata, parent: parent, name: name) {
        case .success(let value): ended = value
        case .failure(let failure): return Outcome(status: failure.status, exitCode: .runFailed)
        }
        var (recording, collector, folder) = (ended.recording, ended.collector, ended.folder)
        let percentiles = options.thresholds.compactMap(\.statistic.percentile)
        let limits = options.thresholds.compactMap(\.countedLimit)
        var analysis = collector.analysis(of: recording, percentiles: percentiles, limits: limits)
        let yield = MeasurementYield(analysis)
        if recording.status == .complete, let nothing = yield.nothingMeasured {  // no result: the run failed
            recording.failUnmeasured(nothing)
            analysis = collector.analysis(of: recording, percentiles: percentiles, limits: limits)
        }
        // A verdict on a run that was no measurement of the server (interrupted, a saturated harness, a machine busy
        // with other work) is inconclusive:
        // the rule a saved run's is judged by (RunResults.inconclusiveReasons), from what run.csv will say.
        let load = analysis.harnessLoad
        let reasons = InconclusiveReason.of(
            status: recording.status.rawValue, saturated: load.saturation != nil, disturbed: load.disturbance != nil)
        let thresholds = options.thresholds.map { threshold in
            threshold.evaluate(analysis.summary(judgedBy: threshold)).judged(in: reasons, accepting: options.accepted)
        }
        let path: String
        do {
            path = try RunReport.write(
                analysis, metadata: metadata, thresholds: thresholds, into: folder, name: name, streamed: true)
        } catch {
            folder.discard()
            Console.error("Error: could not write the run folder: \(error)\n")
            return Outcome(status: recording.status, exitCode: .runFailed)
        }
        var json: String?
        if options.reportsEachRun {  // a capacity search shows its runs together
            if let markdown = try? FileText.read(path + "/" + MarkdownSummary.fileName) { StepSummary.append(markdown) }
            if options.json {
                let text = SummaryJSON.render(analysis, thresholds: thresholds, runFolder: path)
                if options.isSweep && !options.jsonLines { json = text } else { Console.out(text + "\n") }
            } else if options.quiet {
                Console.out(path + "\n")
            } else {
                Console.out(SummaryTable.render(analysis, thresholds: thresholds, runFolder: path))
            }
            if options.json || options.quiet {
                for result in thresholds where result.verdict != .held { Console.error(ThresholdText.line(result) + "\n") }
            }
        }
        // On stderr whatever else is printed (the table says it too): a CI log must show it.
        if let warning = yield.lossWarning { Console.error("Warning: \(warning)\n") }
        let backpressure = load.serverBackpressure
        if let backpressure { Console.error("Warning: \(backpressure)\n") }
        let saturation = load.saturation
        if let saturation {
            Console.error("Warning: the harness was saturated: \(saturation); \(load.advice)\n")
        }
        if let disturbance = load.disturbance {
            Console.error("Warning: \(disturbance); \(HarnessLoad.disturbanceAdvice)\n")
        } else if let machine = recording.machine, machine.isDisturbed, saturation == nil, options.reportsEachRun,
            thresholds.contains(where: { $0.verdict != .held })
        {
            // Where a verdict did not hold, what else took the machine meanwhile (summary.md and run.csv say it always;
            // a capacity search's progress line says it of its runs).
            Console.error("Note: \(machine.othersText) during this run\n")
        }
        let statusDetail = RunResults(analysis, metadata: metadata, thresholds: thresholds).statusDetail
        var outcome = Outcome(
            folder: path, status: recording.status, statusDetail: statusDetail, thresholds: thresholds,
            summaries: analysis.summaries, json: json, harnessSaturation: saturation, serverBackpressure: backpressure,
            disturbance: load.disturbance, machine: recording.machine,
            endedWhenDecided: recording.endedWhenDecided, lostEverything: yield.lostEverything && recording.status == .failed,
            exitCode: .success)
        switch recording.status {
        case .complete:
            outcome.exitCode = .of(thresholds)
        case .interrupted:
            outcome.exitCode = SignalWatcher.shared?.signal == SIGTERM ? .terminated : .interrupted
        case .failed:
            Console.error("Error: the run failed: \(recording.statusReason ?? "unknown reason")\n")
            outcome.exitCode = .runFailed
        }
        return outcome
    }
}
