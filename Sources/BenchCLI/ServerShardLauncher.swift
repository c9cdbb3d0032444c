import BenchClients
import BenchNet
import BenchScenarios
import Glibc

/// `--server-procs`: the server's processes of a run, this same executable with the same command line, each told
/// its place and the run's seed (``ServerShards/environmentName``) and given its end of a channel as descriptor 3.
/// Each leads a process group of its own: a Ctrl-C reaches this process alone, which tells each shard once
/// (``ShardedRun``). Their output, and their client processes', goes to the run folder's `servers.log`.
final class ServerShardLauncher {
    static let logName = "servers.log"

    private(set) var pids: [pid_t] = []

    /// Starts `count` shards of a run with `seed`; returns this process's ends of their channels.
    static func start(_ count: Int, seed: UInt64, log: String) throws(SystemError) -> ([ChildChannel], ServerShardLauncher) {
        let launcher = ServerShardLauncher()
        var channels: [ChildChannel] = []
        do throws(SystemError) {
            for index in 0..<count {
                let (mine, child) = try Posix.socketPair()
                let ours = SharedDescriptor(owning: mine, owner: "a server process's channel")
                let theirs = SharedDescriptor(owning: child, owner: "a server process's end of its channel")
                defer { theirs.close() }  // the child has its copy
                let place = ServerShards.Place(index: index, count: count, seed: seed, parent: Posix.processID)
                Posix.setEnvironment(ServerShards.environmentName, place.text)
                Posix.setEnvironment(ShardLifetime.logEnvironmentName, log)
                defer {
                    Posix.removeEnvironment(ServerShards.environmentName)
                    Posix.removeEnvironment(ShardLifetime.logEnvironmentName)
                }
                let pid: pid_t
                do {
                    pid = try Posix.spawn(
                        Posix.ownExecutable, arguments: ["bench"] + CommandLine.arguments.dropFirst(), logPath: log,
                        inherited: theirs.rawValue, ownGroup: true)
                } catch {
                    ours.close()
                    throw error
                }
                launcher.pids.append(pid)
                channels.append(ChildChannel(end: ours, processID: Int(pid)))
            }
        } catch {
            for channel in channels { channel.end.close() }
            launcher.reap()
            throw error
        }
        return (channels, launcher)
    }

    /// Waits for every shard to end (at most ``ChildProcessLauncher/grace``), then kills those left.
    func reap() {
        var running = Set(pids)
        let deadline = MonotonicClock.now() + ChildProcessLauncher.grace
        while !running.isEmpty {
            for pid in running where Posix.exitStatus(of: pid) != nil { running.remove(pid) }
            guard !running.isEmpty else { break }
            if MonotonicClock.now() >= deadline {
                for pid in running { Posix.signal(pid, SIGKILL) }
            }
            Posix.sleep(nanoseconds: 20_000_000)
        }
    }
}
