import BenchClients
import BenchCore
import BenchNet

/// `bench serve fanout|roundtrip --target`: agents (`bench clients`) on this host or others bring the clients. Each is
/// admitted as the built-in server admits one (``AgentAdmission``), welcomed with its ids and the run's target, and its
/// control connection is then a channel like a subscriber thread's, with the agent's clock probes answered and its
/// clock reports kept, so that its stamps are put on this clock (``ClockModel``).
extension TargetClients {
    /// Takes every pending connection on the listener as an agent's control connection, awaiting its hello.
    func acceptAgents() {
        guard let listener else { return }
        while let socket = try? TCPSocket.accept(from: listener.rawValue) {
            let end = SharedDescriptor(socket)  // closed by closeAgentConnection or channelEnded, or at the run's end
            let place = channels.count
            channels.append(ClientGroupChannel(agentConnection: end))
            channelDecoders.append(Self.channelDecoder())
            outboxes.append(ChannelOutbox())
            do {
                try epoll.add(end.rawValue, interest: .readable, token: Self.token(ofChannel: place))
            } catch {
                closeAgentConnection(place, reason: "cannot watch an agent's connection: \(error)")
            }
        }
    }

    /// An agent's hello on channel `place`: welcomed with the next ids and the run's target, or turned away with the
    /// reason (in events.csv) while the run goes on waiting for others.
    func welcomeAgent(_ frame: Frame, on place: Int) {
        let refusal = AgentAdmission.refusal(
            of: frame, saidHelloBefore: false, expected: configuration.agentToken, running: isRunning,
            left: configuration.clients - agentSubscribers, total: configuration.clients)
        if let refusal { return closeAgentConnection(place, reason: refusal) }
        let record = AgentAdmission.record(of: frame, firstClient: agentSubscribers)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { buffer.deallocate() }
        AgentWelcome(configuration, firstClient: record.firstClient, clients: record.clients, runToken: configuration.token)
            .encode(into: buffer)
        do throws(SystemError) {
            try Posix.sendAll(channels[place].descriptor, UnsafeRawBufferPointer(buffer))
            try Posix.sendAll(channels[place].descriptor, agentSpec)
        } catch {
            return closeAgentConnection(place, reason: "agent \(record.host) (pid \(record.pid)): its welcome could not be sent: \(error)")
        }
        channels[place].ids = record.firstClient..<record.firstClient + record.clients
        channels[place].agent = recording.agents.count
        carry(channels[place].ids, on: place)
        recording.admit(record)
        agentSubscribers += record.clients
    }

    /// A clock probe from the agent on channel `place`, answered at once, behind the orders waiting on it (a reply that
    /// cannot be written is a round the agent gives up on).
    func answerClockProbe(_ frame: Frame, on place: Int) {
        guard let reply = outboxes[place].reserve(WireFormat.clockFrameSize) else { return }
        AgentAdmission.clockReply(to: frame, readAt: MonotonicClock.now(), into: reply)
        flushOrders(on: place)
    }

    /// Turns away the agent on channel `place` before its welcome, with the reason in events.csv.
    func closeAgentConnection(_ place: Int, reason: String) {
        guard channels[place].isOpen else { return }
        channels[place].isOpen = false
        try? epoll.remove(channels[place].descriptor)
        channels[place].end.close()
        recording.record(ConnectionEvent(side: .listener, client: nil, time: MonotonicClock.now(), reason: reason))
    }

    /// What a setup that timed out waiting for agents says about them.
    var agentsSummary: String {
        guard configuration.agentToken != nil else { return "" }
        return AgentAdmission.summary(
            of: recording.agents, missing: configuration.clients - agentSubscribers,
            ids: configuration.scenario == .fanout ? "subscriber" : "client")
    }
}
