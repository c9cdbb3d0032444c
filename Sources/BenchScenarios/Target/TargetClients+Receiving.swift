import BenchClients
import BenchCore
import BenchNet

/// What the measuring thread receives: what the clients' threads, children and agents report over their channels.
extension TargetClients {
    /// Events at epoll position `position`: 0 is the publisher, 1 the agents' listener, the rest the channels.
    func handle(_ events: EpollEvents, position: Int) -> RunError? {
        do throws(RunError) {
            switch position {
            case 0: try handlePublisher(events)
            case 1: acceptAgents()
            default:
                if events.contains(.writable) { flushOrders(on: position - 2) }
                try readChannel(position - 2)
            }
        } catch {
            return error
        }
        return nil
    }

    // MARK: The clients' channels

    /// Reads what channel `place` holds, frame by frame (the clients' reports and, in roundtrip, what became of
    /// each message ordered and its echo).
    func readChannel(_ place: Int) throws(RunError) {
        while channels[place].isOpen {
            let result: IOResult<Int>
            do {
                result = try Posix.read(channels[place].descriptor, into: readBuffer)
            } catch {
                return try channelEnded(place, reason: "its channel failed: \(error)")
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else { return try channelEnded(place, reason: "their thread, process or agent ended") }
            var failure: RunError?
            var refusal: String?
            do {
                try channelDecoders[place].decode(UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<count])) { frame in
                    do throws(RunError) {
                        refusal = try handleChannelFrame(frame, from: place)
                    } catch {
                        failure = error
                    }
                    return failure == nil && refusal == nil
                }
            } catch {
                refusal = "\(error)"
            }
            if let failure { throw failure }
            if let refusal { return try channelEnded(place, reason: "their channel sent what does not fit: \(refusal)") }
        }
    }

    /// One frame from channel `place`: nil when taken, the reason when it does not fit.
    func handleChannelFrame(_ frame: Frame, from place: Int) throws(RunError) -> String? {
        let channel = channels[place]
        // Once the run is over, only what a child's or an agent's link did is taken: the rest is after the run.
        if collectingLinkEvents && !(frame.kind == .clientReport && ClientReport.What(rawValue: frame.bytes[5])?.isLinksAccount == true) {
            return nil
        }
        if channel.isAgent && channel.agent == nil {
            guard frame.kind == .agentHello else { return "\(frame.kind.withArticle) frame before its hello" }
            welcomeAgent(frame, on: place)
            return nil
        }
        let clock = RemoteClock(model: channel.agent.map { recording.agents[$0].clock })
        switch frame.kind {
        case .read where frame.bytes.count == WireFormat.minimumMessageSize && channel.ids.contains(Int(frame.client)):
            if configuration.scenario == .chat {
                settleOwnCopy(
                    sequence: Int(frame.sequence), sender: Int(frame.client), at: frame.receivedNanoseconds,
                    kernel: frame.receivedKernelNanoseconds, clock: clock)
            } else if configuration.scenario == .roundtrip {
                settleEcho(
                    sequence: Int(frame.sequence), client: Int(frame.client), at: frame.receivedNanoseconds,
                    kernel: frame.receivedKernelNanoseconds, clock: clock)
            } else {
                settle(
                    sequence: Int(frame.sequence), subscriber: Int(frame.client), at: frame.receivedNanoseconds,
                    kernel: frame.receivedKernelNanoseconds, clock: clock)
            }
            return nil
        case .delivery where configuration.scenario == .chat && frame.bytes.count == WireFormat.minimumMessageSize
            && channel.ids.contains(Int(frame.client)):
            settleDelivery(
                sequence: Int(frame.sequence), sender: frame.deliverySender, member: Int(frame.client),
                at: frame.receivedNanoseconds, kernel: frame.receivedKernelNanoseconds, clock: clock)
            return nil
        case .sendReport where configuration.scenario != .fanout:
            guard let report = SendReport(frame), channel.ids.contains(Int(report.client)) else {
                return "a send report of a client not its own, or of no known kind"
            }
            if configuration.scenario == .chat { chatSendReported(report, clock: clock) } else { sendReported(report, clock: clock) }
            return nil
        case .clientReport:
            guard var report = ClientReport(frame), channel.ids.contains(Int(report.client)) else {
                return "a client report of a client not its own, or of no known kind"
            }
            var phases: ConnectPhases?
            if report.what == .subscribed {
                phases = ConnectPhases(text: report.text)
                guard let phases, phases.addUp(to: report.time) else {
                    return "a subscribed report whose connect phases do not read or do not add up to its connect time"
                }
            } else if report.what == .returned {
                phases = ConnectPhases(text: report.text)
                guard phases != nil else { return "a returned report whose connect phases do not read" }
            }
            if report.what != .subscribed && report.what != .load { report.time = clock.time(of: report.time) }
            try clientReported(report, phases: phases)
            return nil
        case .clockProbe where channel.agent != nil:
            answerClockProbe(frame, on: place)
            return nil
        case .clockReport where channel.agent != nil:
            recording.agent(channel.agent!, measured: ClockEstimate(frame), at: MonotonicClock.now())
            return nil
        default:
            return "\(frame.kind.withArticle) frame"
        }
    }

    /// A subscriber's report (its times on this clock; a subscribed one's connect `phases`): before the run began, a
    /// close or a server's error fails the setup.
    func clientReported(_ report: ClientReport, phases: ConnectPhases?) throws(RunError) {
        let client = Int(report.client)
        switch report.what {
        case .subscribed:
            guard !subscriberOpen[client], !isRunning, report.time > 0 else { return }
            subscriberOpen[client] = true
            subscribed += 1
            openSubscribers += 1
            recording.connected(client: client, after: report.time, phases: phases)
        case .closed:
            if !isRunning { throw .setupFailed("\(target) refused \(clientNoun) \(client): \(report.text)") }
            subscriberClosed(client, reason: report.text, at: report.time)
        case .serverError:
            if !isRunning { throw .setupFailed("\(target) refused \(clientNoun) \(client): \(report.text)") }
            recording.record(ConnectionEvent(
                side: .clients, client: client, time: report.time, reason: "the server said \(report.text)"))
        case .returned:
            subscriberReturned(client, at: report.time, phases: phases)
        case .gaveUp:
            subscriberGaveUp(client, reason: report.text, at: report.time)
        case .note:
            if report.text.hasPrefix(ClientReport.handshakeNotePrefix) { stuckHandshake = "\(clientNoun) \(client) \(report.text)" }
            recording.record(ConnectionEvent(side: .clients, client: client, time: report.time, reason: report.text))
        case .load:
            subscriberThreadLoad[client] = Double(min(report.time, 1_000_000)) / 10_000  // the latest counts
        case .linkEvent:  // the link of a child's or an agent's clients, once the run was over (``collectLinkEvents()``)
            guard report.time < recording.endNanoseconds || recording.endNanoseconds == 0 else { return }
            recording.record(ConnectionEvent(side: .link, client: nil, time: report.time, reason: report.text))
        case .linkLateness:  // after its events
            recording.linkWasLate(reported: report.text, by: "", client: client)
        case .link:  // an agent's own link: the built-in server's runs take it (bench's agents refuse it here first)
            recording.record(ConnectionEvent(
                side: .clients, client: client, time: MonotonicClock.now(),
                reason: "reported a link of its own, which a run against a --target does not take"))
        }
    }

    /// Channel `place` ended or broke: every subscriber it carried that is still open is closed; before the run began,
    /// the setup fails at once (an agent not yet welcomed is only turned away).
    func channelEnded(_ place: Int, reason: String) throws(RunError) {
        let channel = channels[place]
        guard channel.isOpen else { return }  // ended already (a frame decoded after its end): closed once
        if collectingLinkEvents {  // the end asked for: nothing it carried is the run's any more
            channels[place].isOpen = false
            try? epoll.remove(channel.descriptor)
            return
        }
        if channel.isAgent && channel.agent == nil { return closeAgentConnection(place, reason: reason) }
        channels[place].isOpen = false
        try? epoll.remove(channel.descriptor)
        if channel.isAgent { channel.end.close() }
        let who = channel.agent.map { "agent \(recording.agents[$0].host) (pid \(recording.agents[$0].pid)), " } ?? ""
        let text = "\(who)\(clientNoun)s \(channel.ids.lowerBound) to \(channel.ids.upperBound - 1): \(reason)"
        if !isRunning { throw .setupFailed(text) }
        for client in channel.ids where subscriberOpen[client] {
            subscriberClosed(client, reason: text, at: MonotonicClock.now())
        }
        for client in channel.ids { willNotReturn(client) }  // nothing carries it any more
    }

    /// Broadcast `sequence` read by `subscriber` at `stamp` (the kernel's stamp `kernel`, or 0), on an agent's `clock`
    /// (or this machine's): put on this clock within the broadcast's start and now, then the ledger decides.
    func settle(sequence: Int, subscriber: Int, at stamp: UInt64, kernel: UInt64, clock: RemoteClock) {
        let t0 = recording.ledger.broadcastStart[recording.ledger.broadcastIndex(sequence: sequence, sender: 0)]
        let stamps = readStamps(stamp, kernel: kernel, after: t0, clock: clock)
        act(on: echo(sequence: sequence, client: subscriber, stamps), from: subscriber)
    }

    /// A share's read at `stamp` (the kernel's stamp `kernel`, or 0) of a message written at `t0`, on `clock`, put on
    /// this clock between `t0` and now: what the ledger judges.
    @inline(__always)
    func readStamps(_ stamp: UInt64, kernel: UInt64, after t0: UInt64, clock: RemoteClock) -> MessageLedger.EchoStamps {
        let arrival = MonotonicClock.now()
        let (received, kernel) = clock.read(stamp, kernel: kernel, between: t0, and: arrival)
        return MessageLedger.EchoStamps(received: received, receivedKernel: kernel, arrival: arrival)
    }
}
