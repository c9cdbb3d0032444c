import BenchCore
import BenchNet

/// The threads that run one process's clients of a run on the built-in server: `configuration.localClients` split over
/// `configuration.clientThreads` threads (``ClientThreadSet``), each an ``EchoClients`` loop over transport `T`. The
/// in-process run and an agent start theirs here alike.
public final class ClientThreads<T: Transport> {
    private let threads: ClientThreadSet<EchoClients<T>.Report>

    /// Starts the threads, each pinned to `configuration.clientCPU` when given. A thread that cannot start or be placed
    /// fails the run's setup through `control` (those started see it and end); `connectTimes` (an agent's) receives each
    /// thread's connect times once its clients are connected, and `loads` (an agent's) each thread's busy share every
    /// second.
    public init(
        _ configuration: RunConfiguration, routes: ClientRoutes, settings: TransportSettings, control: RunControl,
        kernelClock: KernelClockMapping?, connectTimes: ConnectTimesMailbox? = nil, loads: ThreadLoadBoard? = nil
    ) {
        let shares = ClientThreadSet<EchoClients<T>.Report>.shares(
            of: configuration.localClients, threads: configuration.clientThreads)
        threads = ClientThreadSet(shares, name: "bench-clients", cpu: configuration.clientCPU) { _, ids, placement in
            do throws(SystemError) {
                if let placement { throw placement }
                let clients = try EchoClients<T>(
                    configuration, ids: ids, routes: routes, transport: settings, control: control, kernelClock: kernelClock)
                clients.connectTimesOut = connectTimes
                clients.loadOut = loads
                return clients.run()
            } catch {
                control.failSetup("the clients' thread could not start: \(error)")
                return EchoClients<T>.Report()
            }
        }
        if let failure = threads.startFailure { control.failSetup("the clients' thread could not start: \(failure)") }
    }

    /// True once every thread's clients are done.
    public var allFinished: Bool { threads.allFinished }

    /// Waits for every thread and returns their reports.
    public func join() -> [EchoClients<T>.Report] { threads.join() }
}
