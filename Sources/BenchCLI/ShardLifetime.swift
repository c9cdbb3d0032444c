import BenchClients
import BenchCore
import BenchNet
import BenchScenarios
import Glibc

/// A server shard's process (`--server-procs`): the run's command line again, with its place in the environment
/// (``ServerShards/environmentName``). It runs its share of the clients as a run of its own (its client processes
/// too, when its descriptors need them), begins sending when the run's process says, and streams what settles on its
/// channel (descriptor 3) instead of writing a folder; at the end it sends its summary, or why it could not run.
enum ShardLifetime {
    /// Where the shard's client processes write their output: the run folder's `servers.log`.
    static let logEnvironmentName = "BENCH_SERVER_SHARD_LOG"
    static let channelDescriptor: Int32 = 3

    /// The place this process was started in, if it is a shard (read once, and taken out of the environment, so that
    /// its own children are no shards).
    static func place() -> ServerShards.Place? {
        guard let text = Posix.environment(ServerShards.environmentName) else { return nil }
        Posix.removeEnvironment(ServerShards.environmentName)
        return ServerShards.place(from: text)
    }

    /// Runs shard `place` of the run `options` describe; the exit code says only whether it could tell the run's
    /// process how it went.
    static func run(_ options: RunOptions, place: ServerShards.Place) -> ExitCode {
        // A shard ends with the run's process: its SIGTERM stops the run (then nothing more can be told, and the
        // shard exits). The channel is its own, not its client processes'.
        guard Posix.followParent(place.parent, signal: SIGTERM) else { return .runFailed }  // gone already
        Posix.setCloseOnExec(channelDescriptor)
        guard Posix.isSocket(channelDescriptor), let step = options.steps.first else {
            Console.error("Error: a server process needs its channel as descriptor 3\n")
            return .usage
        }
        // The signals blocked before any thread starts, so that the run's process's SIGINT stops the run, never the process.
        let signals = SignalWatcher.shared
        let log = Posix.environment(logEnvironmentName) ?? "/dev/null"
        Posix.removeEnvironment(logEnvironmentName)
        let channel = ShardChannel(descriptor: channelDescriptor)
        func fail(_ reason: String) -> ExitCode {
            try? channel.send(.failure, body: Array(reason.utf8))
            return .runFailed
        }
        if step.configuration.scenario == .chat { return relay(step.configuration, place: place, channel: channel, signals: signals) }
        var configuration = ServerShards.shard(place.index, of: place.count, seed: place.seed, step.configuration)
        let children = ChildProcessLauncher.forBuiltInServer(
            &configuration, processes: min(configuration.clients, ChildProcesses.needed(for: configuration)))
        let control: RunControl
        let queue: SettledQueue
        let forwarder: NativeThread<Result<Void, SystemError>>
        do {
            control = try RunControl(startGate: channel)
            queue = try SettledQueue(capacity: 1 << 13)  // emptied onto the channel as it fills: 0.8 MiB, not 6.8
            forwarder = try NativeThread.spawn(name: "bench-forward") {
                Result { () throws(SystemError) in try channel.forward(queue, failed: control.requestStop) }
            }
        } catch {
            return fail("\(error)")
        }
        signals?.watch(control)
        let result = ChildProcessLauncher.runWatched(
            configuration, control: control, queue: queue, children: children, log: log, writer: nil, show: false,
            showIntervals: false)
        children?.reap()
        let forwarded = forwarder.join()
        switch (result, forwarded) {
        case (.failure(let error), _):
            return fail("\(error)")
        case (_, .failure(let error)):
            Console.error("Error: the run's process could not be told what was measured: \(error)\n")
            return .runFailed
        case (.success(let recording), .success):
            do {
                try channel.send(.summary, body: recording.shardSummary.encoded())
            } catch {
                Console.error("Error: the run's process could not be told how the run ended: \(error)\n")
                return .runFailed
            }
            return .success
        }
    }

    /// A chat relay process (``ServerShards/serveChatRooms(_:place:channel:control:)``): its rooms' relay until the
    /// run's process says stop, then what it did, or why it could not run.
    private static func relay(
        _ configuration: RunConfiguration, place: ServerShards.Place, channel: ShardChannel, signals: SignalWatcher?
    ) -> ExitCode {
        let summary: ShardSummary
        do throws(RunError) {
            let control: RunControl
            do { control = try RunControl() } catch { throw .system(error) }
            signals?.watch(control)
            summary = try ServerShards.serveChatRooms(configuration, place: place, channel: channel, control: control)
        } catch {
            try? channel.send(.failure, body: Array("\(error)".utf8))
            return .runFailed
        }
        do {
            try channel.send(.summary, body: summary.encoded())
        } catch {
            Console.error("Error: the run's process could not be told how the relay ended: \(error)\n")
            return .runFailed
        }
        return .success
    }
}
