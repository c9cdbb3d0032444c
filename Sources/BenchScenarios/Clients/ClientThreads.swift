import BenchCore
import BenchNet
import Synchronization

/// The threads that run one process's clients of a run: `configuration.localClients` split over
/// `configuration.clientThreads` threads, each an ``EchoClients`` loop over transport `T`. The in-process run and an
/// agent start theirs here alike.
final class ClientThreads<T: Transport> {
    private var threads: [NativeThread<EchoClients<T>.Report>] = []
    private let finished = FinishedThreads()

    /// Starts the threads, each pinned to `configuration.clientCPU` when given. A thread that cannot start fails the
    /// run's setup through `control` (those started see it and end); `connectTimes` (an agent's) receives each
    /// thread's connect times once its clients are connected, and `loads` (an agent's) each thread's busy share every
    /// second.
    init(
        _ configuration: RunConfiguration, routes: ClientRoutes, settings: TransportSettings, control: RunControl,
        kernelClock: KernelClockMapping?, connectTimes: ConnectTimesMailbox? = nil, loads: ThreadLoadBoard? = nil
    ) {
        for ids in ScenarioRunner.split(configuration.localClients, into: configuration.clientThreads) where !ids.isEmpty {
            do {
                threads.append(try NativeThread.spawn(name: "bench-clients") { [finished] in
                    defer { finished.count.add(1, ordering: .releasing) }
                    do {
                        CPUPlacement.minimizeTimerSlack()
                        if let cpu = configuration.clientCPU { try CPUPlacement.pinCurrentThread(to: cpu) }
                        let clients = try EchoClients<T>(
                            configuration, ids: ids, routes: routes, transport: settings, control: control,
                            kernelClock: kernelClock)
                        clients.connectTimesOut = connectTimes
                        clients.loadOut = loads
                        return clients.run()
                    } catch {
                        control.failSetup("the clients' thread could not start: \(error)")
                        return EchoClients<T>.Report()
                    }
                })
            } catch {
                control.failSetup("the clients' thread could not start: \(error)")
                return
            }
        }
    }

    /// True once every thread's clients are done.
    var allFinished: Bool { finished.count.load(ordering: .acquiring) == threads.count }

    /// Waits for every thread and returns their reports.
    func join() -> [EchoClients<T>.Report] { threads.map { $0.join() } }
}

/// How many of a process's client threads have ended.
final class FinishedThreads: Sendable {
    let count = Atomic<Int>(0)
}
