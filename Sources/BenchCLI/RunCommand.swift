import BenchNet
import BenchReports
import BenchScenarios
import Glibc

/// `bench fanout` and `bench roundtrip`: run each sweep step, write its run folder, show its summary.
enum RunCommand {
    /// Runs what `options` describe and returns the process's exit code.
    static func execute(_ options: RunOptions, commandLine: String) -> ExitCode {
        let watcher: SignalWatcher
        do {
            watcher = try SignalWatcher()
        } catch {
            Console.error("Error: \(error)\n")
            return .runFailed
        }
        let metadata = RunMetadata(commandLine: commandLine, version: BenchCommandLine.version, cpus: CPUPlacement.onlineCount)
        let showProgress = Console.errorIsTerminal && !options.quiet && !options.json
        for configuration in options.configurations {
            if watcher.signal != nil { break }
            let folder: RunFolder
            let control: RunControl
            do {
                folder = try RunFolder.prepare(in: options.outputFolder)
            } catch {
                Console.error("Error: cannot write to --out \(options.outputFolder): \(error)\n")
                return .runFailed
            }
            do {
                control = try RunControl()
            } catch {
                folder.discard()
                Console.error("Error: \(error)\n")
                return .runFailed
            }
            watcher.watch(control)
            let result = ProgressLine.run(configuration, control: control, show: showProgress)
            watcher.watch(nil)

            let recording: RunRecording
            switch result {
            case .success(let value):
                recording = value
            case .failure(let error):
                folder.discard()
                Console.error("Error: \(error)\n")
                return .runFailed
            }
            let analysis = RunAnalysis(recording: recording)
            let path: String
            do {
                path = try RunReport.write(analysis, metadata: metadata, into: folder)
            } catch {
                folder.discard()
                Console.error("Error: could not write the run folder: \(error)\n")
                return .runFailed
            }
            if options.json {
                Console.out(SummaryJSON.render(analysis, runFolder: path) + "\n")
            } else if options.quiet {
                Console.out(path + "\n")
            } else {
                Console.out(SummaryTable.render(analysis, runFolder: path))
            }
            switch recording.status {
            case .complete:
                continue
            case .interrupted:
                return watcher.signal == SIGTERM ? .terminated : .interrupted
            case .failed:
                Console.error("Error: the run failed: \(recording.statusReason ?? "unknown reason")\n")
                return .runFailed
            }
        }
        return .success
    }
}
