import BenchClients
import BenchCore
import BenchNet

extension ChatRelay {
    /// How often a relay process looks whether it was asked to stop, and tells the run's process how many members
    /// joined when that changed.
    static var servingPoll: UInt64 { 10_000_000 }
}

extension ServerShards {
    /// Relay process `place` of a chat run of `configuration` (`--server-procs`): the built-in relay for the rooms
    /// placed on it (``ChatRooms/relayOfRoom(relays:)``), on a port of its own at the run's host. It says on `channel`
    /// where it listens (``ShardFrame/Kind/ready``), then how many members joined as that changes, until the run's
    /// process ends its side of the channel (or `control` is asked to stop); it returns what it did, for the run's
    /// process to add.
    public static func serveChatRooms(
        _ configuration: RunConfiguration, place: ServerShards.Place, channel: ShardChannel, control: RunControl
    ) throws(RunError) -> ShardSummary {
        guard let plan = configuration.chatRooms, plan.refusal(clients: configuration.clients) == nil else {
            throw .setupFailed("a chat relay process of a run with no rooms")
        }
        let sizes = ChatRooms.sizes(clients: configuration.clients, plan: plan)
        let members = ChatRooms.members(sizes: sizes, relays: place.count)[place.index]
        // The run's process checked the rooms against its own limit (``chatRelayRefusal(_:_:)``); this one's decides.
        let limit = DescriptorLimit.raiseToHardLimit()
        guard members <= relayCapacity(limit: limit) else {
            throw .tooManyClients(requested: members, descriptorLimit: limit, perClient: 1)
        }
        let relay = try ChatRelay(
            host: configuration.host, port: 0, cpu: configuration.serverCPU, engine: configuration.ioEngine,
            clients: members, maximumMessageSize: max(64 << 10, 4 * configuration.payload),
            maximumQueuedBytes: configuration.maximumQueuedBytes)
        let started = MonotonicClock.now()
        try relay.start()
        var told = 0
        do throws(SystemError) {
            try channel.send(.ready, body: withUnsafeBytes(of: relay.address.port.littleEndian, Array.init))
            while !control.isStopRequested && !channel.isEndedByRunsProcess() {
                let joined = relay.joined.load(ordering: .acquiring)
                if joined != told {
                    try channel.send(.joined, body: withUnsafeBytes(of: UInt64(joined).littleEndian, Array.init))
                    told = joined
                }
                Posix.sleep(nanoseconds: ChatRelay.servingPoll)
            }
        } catch {
            _ = relay.finish()
            throw .system(error)
        }
        let counts = relay.finish()
        var summary = ShardSummary()
        if control.isStopRequested {  // a signal of its own, not the run's process's word: its members were cut off
            (summary.status, summary.statusReason) = (.failed, "was stopped by a signal")
        }
        (summary.startNanoseconds, summary.endNanoseconds) = (started, MonotonicClock.now())
        summary.server.peakQueuedBytes = counts.peakQueuedBytes
        summary.server.relayCPUTime = counts.cpuTime
        (summary.server.cpus, summary.server.allowedCPUs) = (counts.cpus, counts.allowedCPUs)
        summary.events = counts.events(at: summary.endNanoseconds)
        return summary
    }
}

extension ChatRelay.Counts {
    /// What the run's events say of them, at `time`: io_uring refused, messages dropped for a full queue.
    func events(at time: UInt64) -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        if let uringRefusal {
            events.append(ConnectionEvent(side: .server, client: nil, time: time, reason: uringRefusal))
        }
        if dropped > 0 {
            events.append(ConnectionEvent(
                side: .server, client: nil, time: time,
                reason: "the chat relay dropped \(dropped) of \(dropped + relayed) messages to members whose write queue "
                    + "was full (--max-queue): they are lost"))
        }
        return events
    }
}
