import BenchCore
import BenchNet

/// The threads that run one process's clients of a run on the built-in server: `configuration.localClients` split over
/// `configuration.clientThreads` threads (``ClientThreadSet``), each an ``EchoClients`` loop over transport `T`. The
/// in-process run and an agent start theirs here alike; each thread's reports (``ClientReport``) go to memory, read
/// once the threads ended (``join()``), or with `controlSocket` (an agent's) to the server as they come, under
/// `writeLock`, the thread's load among them.
public final class ClientThreads<T: Transport> {
    private let threads: ClientThreadSet<[UInt8]>

    /// Starts the threads, each pinned to `configuration.clientCPU` when given. A thread that cannot start or be placed
    /// fails the run's setup through `control` (those started see it and end).
    public init(
        _ configuration: RunConfiguration, routes: ClientRoutes, settings: TransportSettings, control: RunControl,
        kernelClock: KernelClockMapping?, controlSocket: Int32? = nil, writeLock: SocketWriteLock? = nil
    ) {
        let shares = ClientThreadSet<[UInt8]>.shares(of: configuration.localClients, threads: configuration.clientThreads)
        threads = ClientThreadSet(shares, name: "bench-clients", cpu: configuration.clientCPU) { _, ids, placement in
            let reports = controlSocket.map { ReportWriter(descriptor: $0, lock: writeLock) } ?? ReportWriter()
            do throws(SystemError) {
                if let placement { throw placement }
                try EchoClients<T>(
                    configuration, ids: ids, routes: routes, transport: settings, control: control, kernelClock: kernelClock,
                    reports: reports, reportsLoad: controlSocket != nil
                ).run()
            } catch {
                control.failSetup("the clients' thread could not start: \(error)")
            }
            return reports.collected
        }
        if let failure = threads.startFailure { control.failSetup("the clients' thread could not start: \(failure)") }
    }

    /// True once every thread's clients are done.
    public var allFinished: Bool { threads.allFinished }

    /// Waits for every thread and returns what each reported (nothing for an agent's, whose reports went out).
    public func join() -> [ClientReport] { threads.join().flatMap { ClientReport.all(in: $0) } }
}
