import BenchCore
import BenchNet
import BenchProtocols

/// The threads of a target run's clients in this process: the run's ids split over `--client-threads`
/// ``ClientGroup``s (``ClientThreadSet``), each on its own thread (`bench-subs`, on `--pin`'s client CPU) with a channel
/// to the measuring thread.
public final class ClientGroupThreads<T: Transport> {
    /// The measuring thread's ends of the channels, with the ids each carries.
    public private(set) var channels: [ClientGroupChannel] = []
    private var threads: ClientThreadSet<Void>?

    public init(
        _ configuration: RunConfiguration, target: TargetURL, routes: ClientRoutes, settings: TransportSettings,
        protocol kind: ServerProtocol, kernelClock: KernelClockMapping?
    ) throws(RunError) {
        let shares = ClientThreadSet<Void>.shares(
            of: 0..<configuration.clients, threads: configuration.clientThreads,
            perConnection: configuration.subscribersPerConnection)
        var groupEnds: [SharedDescriptor] = []
        do throws(SystemError) {
            for ids in shares {
                let (measuring, group) = try Posix.socketPair()
                let end = SharedDescriptor(owning: measuring, owner: "a subscribers' thread's channel")
                channels.append(ClientGroupChannel(end: end, ids: ids))
                groupEnds.append(SharedDescriptor(owning: group, owner: "a subscribers' thread's end of its channel"))
                try Posix.setNonBlocking(measuring)
            }
        } catch {
            for end in groupEnds { end.close() }
            self.end()
            throw .system(error)
        }
        threads = ClientThreadSet(shares, name: "bench-subs", cpu: configuration.clientCPU) { [groupEnds] index, ids, placement in
            let end = groupEnds[index]
            defer { end.close() }
            let channel = end.rawValue
            let writer = ReportWriter(descriptor: channel)
            do throws(SystemError) {
                if let placement { throw placement }
                try ClientGroup<T>(
                    configuration, ids: ids, target: target, routes: routes, transport: settings, protocol: kind,
                    writer: writer, endSignal: channel, kernelClock: kernelClock
                ).run()
            } catch {
                writer.report(ClientReport(
                    .closed, client: UInt32(ids.lowerBound), time: MonotonicClock.now(),
                    text: "the subscribers' thread could not start: \(error)"))
                writer.flush()
            }
        }
        if let failure = threads?.startFailure {
            for end in groupEnds.dropFirst(threads?.startedCount ?? 0) { end.close() }
            end()
            throw .system(failure)
        }
    }

    /// Closes the measuring thread's ends (each group sees its channel end and closes its connections) and waits for
    /// the threads.
    public func end() {
        for channel in channels { channel.end.close() }
        channels = []
        _ = threads?.join()
        threads = nil
    }
}
