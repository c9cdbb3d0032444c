import BenchClients
import BenchCore
import BenchNet

/// Agents behind a link (the run's `--link`, or their own `bench clients --link`): what their link did (a NAT that
/// forgot connections, blackouts) is known where they ran, once their clients and the link ended. So at the run's end,
/// after the goodbyes, each agent is told the run is over by its control connection's sending side shut (its clients
/// end, as they did when it closed), and read until it closes, for what its link did: the run's `link` events, as a
/// link in this process reports them.
extension BenchServer {
    /// Takes the link events of every agent behind a link, once the run's measuring ended; nothing else is read meanwhile.
    func collectAgentLinkEvents() {
        let agents = peers.indices.filter { slot in  // those behind a link: the run's, or their own
            guard let agent = peers[slot].agent, peers[slot].connection.isOpen else { return false }
            return configuration.link != nil || recording.agents[agent].link != nil
        }
        guard !agents.isEmpty else { return }
        collectingLinkEvents = true
        for descriptor in [listener, sendTimer.descriptor, loop.housekeepingTimer.descriptor] { try? epoll.remove(descriptor) }
        for slot in peers.indices where peers[slot].agent == nil && peers[slot].connection.isOpen {
            try? epoll.remove(peers[slot].connection.descriptor)  // the clients' connections: the run is over for them
        }
        for slot in agents { Posix.shutdownWriting(peers[slot].connection.descriptor) }
        let start = MonotonicClock.now()
        while agents.contains(where: { peers[$0].connection.isOpen }) {
            let now = MonotonicClock.now()
            let deadline = LinkOutages.eventsDeadline(from: start, stopping: isStopping)
            guard now < deadline else { break }
            do { try waitForEvents(timeout: min(deadline - now, 20_000_000)) } catch { break }
        }
        for slot in agents where peers[slot].connection.isOpen {
            let record = recording.agents[peers[slot].agent!]
            recording.record(ConnectionEvent(  // the server's word, at the run's end: no event of the link's own
                side: .server, client: nil, time: recording.endNanoseconds,
                reason: "agent \(record.host) (pid \(record.pid)): what its link did did not come within "
                    + "\(DurationText.format(MonotonicClock.now() - start)) of the run's end"))
        }
    }

    /// An agent's link event (`report`), on its clock: recorded where it happened while the run went.
    func agentLinkEvent(_ report: ClientReport, agent: Int) {
        if report.what == .linkLateness { return recording.linkWasLate(reported: report.text, by: "agent \(agent)", client: nil) }
        let time = RemoteClock(model: recording.agents[agent].clock).time(of: report.time)
        guard recording.endNanoseconds == 0 || time < recording.endNanoseconds else { return }
        recording.record(ConnectionEvent(side: .link, client: nil, time: time, reason: report.text))
    }
}
