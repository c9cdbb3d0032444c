import BenchCore
import BenchNet
import BenchProtocols

/// The threads of a fan-out target run's subscribers: the run's ids split over `--client-threads`
/// ``ClientGroup``s, each on its own thread (`bench-subs`, on `--pin`'s client CPU) with a channel to the
/// measuring thread.
final class ClientGroupThreads<T: Transport> {
    /// The measuring thread's ends of the channels, with the ids each carries.
    private(set) var channels: [ClientGroupChannel] = []
    private var threads: [NativeThread<Void>] = []

    init(
        _ configuration: RunConfiguration, target: TargetURL, routes: ClientRoutes, settings: TransportSettings,
        protocol kind: ServerProtocol, kernelClock: KernelClockMapping?
    ) throws(RunError) {
        do throws(SystemError) {
            for ids in ScenarioRunner.split(0..<configuration.clients, into: configuration.clientThreads) where !ids.isEmpty {
                let (measuring, subscribers) = try Posix.socketPair()
                channels.append(ClientGroupChannel(descriptor: measuring, ids: ids))
                try Posix.setNonBlocking(measuring)
                threads.append(try NativeThread.spawn(name: "bench-subs") {
                    defer { Posix.close(subscribers) }
                    CPUPlacement.minimizeTimerSlack()
                    do throws(SystemError) {
                        if let cpu = configuration.clientCPU { try CPUPlacement.pinCurrentThread(to: cpu) }
                        try ClientGroup<T>(
                            configuration, ids: ids, target: target, routes: routes, transport: settings,
                            protocol: kind, writer: ReportWriter(descriptor: subscribers), endSignal: subscribers,
                            kernelClock: kernelClock
                        ).run()
                    } catch {
                        let writer = ReportWriter(descriptor: subscribers)
                        writer.report(ClientReport(
                            .closed, client: UInt32(ids.lowerBound), time: MonotonicClock.now(),
                            text: "the subscribers' thread could not start: \(error)"))
                        writer.flush()
                    }
                })
            }
        } catch {
            end()
            throw .system(error)
        }
    }

    /// Closes the measuring thread's ends (each group sees its channel end and closes its connections) and waits for
    /// the threads.
    func end() {
        for channel in channels { Posix.close(channel.descriptor) }
        channels = []
        for thread in threads { thread.join() }
        threads = []
    }
}
