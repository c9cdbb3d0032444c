import BenchCore
import BenchNet

/// The threads that run one process's clients of a run on the built-in server: `configuration.localClients` split over
/// `configuration.clientThreads` threads (``ClientThreadSet``), each an ``EchoClients`` loop over transport `T`. The
/// in-process run and an agent start theirs here alike; each thread's reports (``ClientReport``) go to memory, read
/// once the threads ended (``join()``), or with `controlSocket` (an agent's) to the server as they come, under
/// `writeLock`, the thread's load among them.
public final class ClientThreads<T: Transport> {
    /// What one thread left: its reports kept in memory (none when they went out), its tally and busy share.
    public typealias Ending = (reports: [UInt8], tally: ClientThreadsTally, busyPercent: Double?)
    private let threads: ClientThreadSet<Ending>

    /// Starts the threads, each pinned to `configuration.clientCPU` when given. A thread that cannot start or be placed
    /// fails the run's setup through `control` (those started see it and end).
    public init(
        _ configuration: RunConfiguration, routes: ClientRoutes, settings: TransportSettings, control: RunControl,
        kernelClock: KernelClockMapping?, controlSocket: Int32? = nil, writeLock: SocketWriteLock? = nil
    ) {
        let shares = ClientThreadSet<Ending>.shares(of: configuration.localClients, threads: configuration.clientThreads)
        threads = ClientThreadSet(shares, name: "bench-clients", cpu: configuration.clientCPU) { _, ids, placement in
            let reports = controlSocket.map { ReportWriter(descriptor: $0, lock: writeLock) } ?? ReportWriter()
            do throws(SystemError) {
                if let placement { throw placement }
                let (tally, busy) = try EchoClients<T>(
                    configuration, ids: ids, routes: routes, transport: settings, control: control, kernelClock: kernelClock,
                    reports: reports, reportsLoad: controlSocket != nil
                ).run()
                return (reports.collected, tally, busy)
            } catch {
                control.failSetup("the clients' thread could not start: \(error)")
                return (reports.collected, ClientThreadsTally(), nil)
            }
        }
        if let failure = threads.startFailure { control.failSetup("the clients' thread could not start: \(failure)") }
    }

    /// True once every thread's clients are done.
    public var allFinished: Bool { threads.allFinished }

    /// Waits for every thread and returns what each left, in order.
    public func join() -> [Ending] { threads.join() }
}
