import BenchClients
import BenchCore
import BenchNet

/// The links of children's and agents' clients (`--link` with `--client-procs`, or agents of a run with one): what they
/// did (a NAT that forgot connections, blackouts) is known where they ran, once their clients and the link ended. So
/// at the run's end each is told the run is over by its channel's sending side shut (which ends its clients, as
/// closing the channel did), and read until it closes, for what its link did: the run's `link` events, as its own
/// link's are.
extension TargetClients {
    /// Takes the link events of every child and agent, once the run's measuring ended.
    func collectLinkEvents() {
        guard configuration.link != nil, configuration.agentToken != nil || !configuration.clientGroupChannels.isEmpty else {
            return
        }
        collectingLinkEvents = true
        for place in channels.indices where channels[place].isOpen && channels[place].isAgent && channels[place].agent == nil {
            closeAgentConnection(place, reason: "it said no hello before the run's end")  // a connection that never joined
        }
        for channel in channels where channel.isOpen { Posix.shutdownWriting(channel.descriptor) }
        let start = MonotonicClock.now()
        while channels.contains(where: \.isOpen)
            && MonotonicClock.now() < LinkOutages.eventsDeadline(from: start, stopping: isStopping)
        {
            for place in channels.indices where channels[place].isOpen { try? readChannel(place) }
            Posix.sleep(nanoseconds: 10_000_000)
        }
        for channel in channels where channel.isOpen {
            recording.record(ConnectionEvent(  // the clients' side, at the run's end: no event of the link's own
                side: .clients, client: nil, time: recording.endNanoseconds,
                reason: "\(clientNoun)s \(channel.ids.lowerBound) to \(channel.ids.upperBound - 1): what their link did "
                    + "did not come within \(DurationText.format(MonotonicClock.now() - start)) of the run's end"))
        }
    }
}
