import BenchClients
import BenchNet
import BenchReports
import BenchScenarios
import Glibc

/// `--client-procs`: the child processes (`bench clients`, this same executable) that bring a run's clients. Started
/// once the run's server listens, each with its share of the clients; they end when the server ends the run, and are
/// reaped then (a child still there after a grace period is killed). Their output goes to the run folder's
/// `agents.log`.
final class ChildProcessLauncher {
    static let logName = "agents.log"
    /// How long the children may take to go once the run ended.
    static var grace: UInt64 { 10_000_000_000 }

    let shares: [Int]
    let token: String
    /// Options every child gets besides its share: `--reconnect` and its backoff.
    let extraArguments: [String]
    private(set) var pids: [pid_t] = []
    /// The children that ended, and how (an exit code, 128 + a signal).
    private var ended: [pid_t: Int32] = [:]

    init(shares: [Int], token: String, extraArguments: [String] = []) {
        self.shares = shares
        self.token = token
        self.extraArguments = extraArguments
    }

    /// Starts one child per share, connecting to `host:port`.
    func start(port: Int, host: String, log: String) throws(SystemError) {
        let executable = Posix.ownExecutable
        for clients in shares {
            pids.append(try Posix.spawn(
                executable,
                arguments: [
                    "bench", "clients", "--connect", "\(host):\(port)", "--clients", "\(clients)", "--token", token,
                ] + extraArguments,
                logPath: log))
        }
    }

    /// A fan-out target run: starts one child per share, each with its end of a channel (`channels`, closed here once
    /// the child has it) as its descriptor 3.
    func start(channels: [SharedDescriptor], log: String) throws(SystemError) {
        defer { for channel in channels { channel.close() } }
        for channel in channels {
            pids.append(try Posix.spawn(
                Posix.ownExecutable, arguments: ["bench", "clients", "--channel", "3"], logPath: log,
                inherited: channel.rawValue))
        }
    }

    /// The first child that ended, as a reason for people; nil while all run.
    func endedChild() -> String? {
        for pid in pids where ended[pid] == nil {
            if let status = Posix.exitStatus(of: pid) { ended[pid] = status }
        }
        guard let (index, pid) = pids.enumerated().first(where: { ended[$0.element] != nil }) else { return nil }
        let status = ended[pid]!
        let how = status > 128 ? "was killed by signal \(status - 128)" : "exited with code \(status)"
        return "client process \(index) (pid \(pid)) \(how) before the run began (its output: \(Self.logName) in the "
            + "run folder)"
    }

    /// Waits for every child to end (at most ``grace``), then kills those left.
    func reap() {
        var running = Set(pids).subtracting(ended.keys)
        let deadline = MonotonicClock.now() + Self.grace
        while !running.isEmpty && MonotonicClock.now() < deadline {
            for pid in running where Posix.exitStatus(of: pid) != nil { running.remove(pid) }
            if !running.isEmpty { Posix.sleep(nanoseconds: 20_000_000) }
        }
        for pid in running {
            Posix.signal(pid, SIGKILL)
            while Posix.exitStatus(of: pid) == nil { Posix.sleep(nanoseconds: 1_000_000) }
        }
    }
}

extension ChildProcessLauncher {
    /// The built-in server's clients in `processes` children (none: nil): `configuration` becomes the server's side of
    /// them, their token drawn, their engine the run's (`BENCH_IO`, which they inherit).
    static func forBuiltInServer(_ configuration: inout RunConfiguration, processes: Int) -> ChildProcessLauncher? {
        guard processes > 0 else { return nil }
        Posix.setEnvironment("BENCH_IO", configuration.ioEngine.rawValue)
        let token = String(UInt64.random(in: 1...UInt64.max), radix: 36)
        configuration = ChildProcesses.serverSide(of: configuration, token: token)
        return ChildProcessLauncher(
            shares: ChildProcesses.shares(of: configuration.clients, among: processes), token: token,
            extraArguments: RunOptions.childArguments(of: configuration))
    }

    /// Runs `configuration` on a thread of its own (`bench-run`) into `queue` and watches it from this one until it
    /// ends (``ProgressLine/watch(_:control:writer:show:showIntervals:until:onListening:onTick:)``): `children`
    /// started once the server listens (their output to `log`; without children, `listening` is told the port), the
    /// setup failed when one of them ends before the run began.
    static func runWatched(
        _ configuration: RunConfiguration, control: RunControl, queue: SettledQueue, children: ChildProcessLauncher?,
        log: String, writer: RunStream.Running?, show: Bool, showIntervals: Bool, listening: (_ host: String, _ port: Int) -> Void = { _, _ in }
    ) -> Result<RunRecording, RunError> {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        do {
            let ended = try EventNotifier()
            let runner = try NativeThread.spawn(name: "bench-run") { () -> Result<RunRecording, RunError> in
                defer { ended.notify() }
                return Result { () throws(RunError) in try ScenarioRunner.run(configuration, control: control, stream: queue) }
            }
            ProgressLine.watch(
                configuration, control: control, writer: writer, show: show, showIntervals: showIntervals, until: ended
            ) { port in
                guard let children else { return listening(host, port) }
                do {
                    try children.start(port: port, host: host, log: log)
                } catch {
                    control.failSetup("the client processes could not start: \(error)")
                }
            } onTick: {
                if let children, !control.isRunning.load(ordering: .relaxed), let reason = children.endedChild() {
                    control.failSetup(reason)
                }
            }
            return runner.join()
        } catch {
            queue.push(SettledMessage(kind: .end))  // the run never began: its writer must not wait for it
            queue.publish()
            return .failure(.system(error))
        }
    }

    /// A fan-out target's subscribers in `count` child processes: a channel to each (this process's ends are
    /// returned, for the run), the children started with theirs.
    static func startSubscribers(
        _ count: Int, of configuration: RunConfiguration, log: String
    ) throws(SystemError) -> ([ChildChannel], ChildProcessLauncher) {
        var ours: [SharedDescriptor] = []
        var theirs: [SharedDescriptor] = []
        do throws(SystemError) {
            for _ in 0..<count {
                let (mine, child) = try Posix.socketPair()
                ours.append(SharedDescriptor(owning: mine, owner: "a client process's channel"))
                theirs.append(SharedDescriptor(owning: child, owner: "a client process's end of its channel"))
            }
            let children = ChildProcessLauncher(
                shares: ChildProcesses.shares(
                    of: configuration.clients, among: count, perConnection: configuration.subscribersPerConnection),
                token: "")
            do throws(SystemError) {
                try children.start(channels: theirs, log: log)  // closes them, whatever happens
            } catch {
                for end in ours { end.close() }
                children.reap()  // those started see their channel end
                throw error
            }
            return (zip(ours, children.pids).map { ChildChannel(end: $0, processID: Int($1)) }, children)
        } catch {
            for end in ours + theirs { end.close() }
            throw error
        }
    }
}
