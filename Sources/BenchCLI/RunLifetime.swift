import BenchClients
import Glibc
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Synchronization
import BenchProtocols

/// One run's lifetime, owned in one place: its folder, its control and child processes, the hand-off to its writer
/// and the writer's thread, the live view's notice, the measuring role on a thread of its own (`bench-run`), the
/// progress shown while it goes, and the joins at the end, however it ended. It hands back what was measured and what
/// the writer collected; the analysis and the reports are the command's.
enum RunLifetime {
    /// A run that ended (complete, interrupted or failed) with its folder written as it went.
    struct Ended {
        let recording: RunRecording
        let collector: RunCollector
        let folder: RunFolder
    }

    /// A run that could not be run, or whose folder could not be written: said on standard error, the folder
    /// discarded; `status` is how the run ended when it did.
    struct Failure: Error {
        var status: RunStatus?
    }

    /// Runs `configuration` as `options` say, into a new folder in `parent`.
    static func run(
        _ configuration: RunConfiguration, options: RunOptions, metadata: RunMetadata, parent: String, name: String?
    ) -> Result<Ended, Failure> {
        var configuration = configuration
        var children: ChildProcessLauncher?
        // A capacity step's run (its objectives decided as it goes) and a sweep's (its processes would read the first
        // step's settings) keep their server in one process.
        let servers = options.serverProcesses
            ?? (options.isDecided == nil && !options.isSweep ? ServerShards.needed(for: configuration) : 1)
        // The built-in chat relay's members are a target's clients: children take them as they take a target's. Other
        // server processes bring their own clients' processes.
        let measuredAsTarget = configuration.target != nil || configuration.scenario == .chat
        let processes = servers > 1 && !measuredAsTarget
            ? 0 : min(configuration.clients, options.clientProcesses
                ?? ChildProcesses.needed(for: configuration, serverElsewhere: servers > 1))
        // A chat relay's rooms that its processes cannot hold whole: said before anything starts or is written.
        if servers > 1, let refusal = ServerShards.chatRelayRefusal(servers, configuration) {
            Console.error("Error: \(refusal)\n")
            return .failure(Failure())
        }
        if processes > 0 && configuration.agentToken == nil {
            Posix.setEnvironment("BENCH_IO", configuration.ioEngine.rawValue)  // the children's clients use the run's engine
        }
        if configuration.agentToken == nil && !measuredAsTarget {
            children = ChildProcessLauncher.forBuiltInServer(&configuration, processes: processes)
        }
        let folder: RunFolder
        let control: RunControl
        do {
            folder = try RunFolder.prepare(in: parent)
        } catch {
            Console.error("Error: cannot write to --out \(options.outputFolder): \(error)\n")
            return .failure(Failure())
        }
        do {
            control = try RunControl()
        } catch {
            folder.discard()
            Console.error("Error: \(error)\n")
            return .failure(Failure())
        }
        var shards: ServerShardLauncher?
        /// Ends the processes the run started: their channels closed, the processes reaped.
        func endProcesses() {
            for channel in configuration.clientGroupChannels + configuration.serverShards { channel.end.close() }
            children?.reap()
            shards?.reap()
        }
        if servers > 1 {
            if options.serverProcesses == nil && options.reportsEachRun && !options.quiet && !options.json {
                Console.error("Note: \(configuration.clients) clients need more descriptors than one process may open: "
                    + "the server runs in \(servers) processes (--server-procs)\n")
            }
            do {
                (configuration.serverShards, shards) = try ServerShardLauncher.start(
                    servers, seed: configuration.seed, log: folder.path(of: ServerShardLauncher.logName))
            } catch {
                folder.discard()
                Console.error("Error: the server processes could not start: \(error)\n")
                return .failure(Failure())
            }
        }
        if processes > 0 && measuredAsTarget {
            do {
                (configuration.clientGroupChannels, children) = try ChildProcessLauncher.startSubscribers(
                    processes, of: configuration, log: folder.path(of: ChildProcessLauncher.logName))
            } catch {
                endProcesses()  // a chat relay's processes
                folder.discard()
                Console.error("Error: the client processes could not start: \(error)\n")
                return .failure(Failure())
            }
        }
        // The streamed files start now: run.csv says `running` until the run's own replaces it, so a run killed
        // outright leaves a folder `bench report` can read.
        let queue: SettledQueue
        do {
            queue = try SettledQueue()
        } catch {
            endProcesses()
            folder.discard()
            Console.error("Error: the run's hand-off to its writer could not be made: \(error)\n")
            return .failure(Failure())
        }
        let writer: RunStream.Running
        do {
            try AtomicFile.writeCSV(folder.path(of: RunSettingsCSV.fileName)) { csv in
                try csv.row(["key", "value"])
                for (key, value) in RunSettingsCSV.startRows(configuration, metadata: metadata) { try csv.row([key, value]) }
            }
            writer = try RunStream.start(
                RunStream.Writer(configuration: configuration, folder: folder.temporaryPath, live: options.live != nil),
                queue: queue, mainMetric: RunAnalysis.Metric.main(of: configuration.scenario).rawValue, live: options.live,
                decision: options.isDecided.map { RunStream.Decision(control: control, isDecided: $0) })
        } catch {
            endProcesses()
            folder.discard()
            Console.error("Error: cannot write to --out \(options.outputFolder): \(error)\n")
            return .failure(Failure())
        }
        options.live?.begin(LiveView.run(configuration, name: name, metadata: metadata, folder: parent), control: control)
        let showProgress = Console.errorIsTerminal && !options.quiet && !options.json
        SignalWatcher.shared?.watch(control, folder: folder.temporaryPath)
        let server = configuration.target.map { target in
            TargetURL.isLoopback(target.url.host) ? ProcessTable.listening(on: target.url.port) : []
        } ?? []
        let machineBefore = MachineLoad.now(server: server)
        let result = ChildProcessLauncher.runWatched(
            configuration, control: control, queue: queue, children: children,
            log: folder.path(of: ChildProcessLauncher.logName), writer: writer, show: showProgress,
            showIntervals: !options.quiet && options.reportsEachRun
        ) { host, port in
            Console.error("serve: listening on \(host):\(port); waiting for \(configuration.clients) clients from "
                + "agents (bench clients --connect \(host):\(port) --token …)\n")
        }
        endProcesses()
        let machine = MachineLoad.now(server: server).flatMap { after in machineBefore.flatMap { after.share(since: $0) } }
        SignalWatcher.shared?.watch(nil)
        let collected = writer.join()
        if !options.quiet && options.reportsEachRun { for line in writer.takeIntervalLines() { Console.error(line + "\n") } }

        var recording: RunRecording
        switch result {
        case .success(let value):
            recording = value
            recording.machine = machine
        case .failure(let error):
            folder.discard()
            Console.error("Error: \(error)\n")
            return .failure(Failure())
        }
        switch collected {
        case .success(let collector):
            return .success(Ended(recording: recording, collector: collector, folder: folder))
        case .failure(let error):
            folder.discard()
            Console.error("Error: could not write the run folder: \(error)\n")
            return .failure(Failure(status: recording.status))
        }
    }
}
