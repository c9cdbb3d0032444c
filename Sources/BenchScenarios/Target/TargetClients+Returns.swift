import BenchClients
import BenchCore
import BenchNet

/// `--reconnect` against a user's server (the deploy: a broker restarted mid-run): each subscriber's drop is an outage
/// (reconnects.csv, the `reconnect` metric: close → ready again) that ends when its group reports it ready again, with
/// the phases of the connect that brought it back; the broadcasts meanwhile are lost to it (it was not connected when
/// they went: settled so at its return, ``receivesNow(_:)``). The publisher reconnects on this thread, by the same rule; broadcasts due while it is away are lost to
/// everyone. While nobody is connected the run waits for returns, as the built-in server's does.
extension TargetClients {
    /// Subscriber `client`'s connection closed at `time` during a run that expects it (`--reconnect`,
    /// `--drop-connections-at`): its outage begins.
    func outageBegan(_ client: Int, at time: UInt64) {
        guard configuration.expectsReconnects, isRunning, !isStopping else { return }
        if openSubscribers == 0 { emptySince = MonotonicClock.now() }
        guard outageOfClient[client] < 0, recording.outages.count < RunRecording.maximumOutages else { return }
        outageOfClient[client] = recording.outages.count
        recording.outages.append(ClientOutage(client: client, closed: time))
    }

    /// Subscriber `client` is ready again at `time` (on this clock), after a connect of `phases`: its outage ends, and
    /// the broadcasts from now on are its again.
    func subscriberReturned(_ client: Int, at time: UInt64, phases: ConnectPhases?) {
        guard isRunning, !subscriberOpen[client], configuration.reconnect != nil else { return }
        subscriberOpen[client] = true
        openSubscribers += 1
        emptySince = 0
        everyoneLeftEarly = false
        recording.clientThreads.reconnects += 1
        // What went before its subscription went out cannot reach it; what went after may (a tcp:// return is stamped
        // at the server's first word, often the broadcast that came after it).
        clientWasAway(client, until: time &- min(time, phases?.subscribe ?? 0))
        _ = driver.unpark(client)  // closed-loop roundtrip: its next message goes now (those due meanwhile were never)
        let outage = outageOfClient[client]
        guard outage >= 0 else { return }
        outageOfClient[client] = -1
        recording.outages[outage].back = max(time, recording.outages[outage].closed &+ 1)
        recording.outages[outage].returnPhases = phases
    }

    /// Whether a message sent now is `client`'s to receive: its connection is open, or, in open loop with `--reconnect`,
    /// it is away and may come back. Its group stamps a return when the server confirmed it, and this thread hears of it a
    /// pass later: a broadcast sent in between was counted lost to a subscriber that was back and got it. What went while
    /// it was away is dropped with its connection once its return says when its subscription went out
    /// (``MeasuringRole/clientWasAway(_:until:)``), once it gives up, or a moment after sending is over; what waits longer
    /// than its timeout is lost as any message is. Closed loop, which waits for each broadcast's messages to settle, drops
    /// an away client's at once.
    func receivesNow(_ client: Int) -> Bool {
        subscriberOpen[client] || (configuration.reconnect != nil && !configuration.isClosedLoop && mayReturn(client))
    }

    /// A second (at most the timeout) after sending is over (the timetable spent, or a stop): what went to the clients
    /// still away is dropped with their connections, so that the run does not wait out its timeout for them. The second
    /// is for a return on its way over its channel: what went to it after its subscription is its own. Once.
    func settleAwayOnceSendingIsOver(at now: UInt64) {
        guard configuration.reconnect != nil, !awaySettledAtEnd, isRunning, isStopping || isTimetableDone(at: now) else { return }
        if sendingOverAt == 0 { sendingOverAt = now }
        guard now &- sendingOverAt >= min(configuration.timeout, 1_000_000_000) else { return }
        awaySettledAtEnd = true
        for client in 0..<configuration.clients where !subscriberOpen[client] { clientWasAway(client, until: .max) }
    }

    /// Subscriber `client` used its tries: it stays away (`clients_gave_up`), an event in its group's words.
    func subscriberGaveUp(_ client: Int, reason: String, at time: UInt64) {
        recording.clientThreads.gaveUp += 1
        recording.record(ConnectionEvent(side: .clients, client: client, time: time, reason: reason))
        willNotReturn(client)
    }

    /// `client` will not come back: in closed loop its turn comes again (``mayReturn(_:)`` false: the rest of its
    /// series is lost at once, not parked for ever), and the run no longer waits for it.
    func willNotReturn(_ client: Int) {
        guard !gaveUp.isEmpty, !gaveUp[client], !subscriberOpen[client] else { return }
        gaveUp[client] = true
        gaveUpCount += 1
        clientWasAway(client, until: .max)
        _ = driver.unpark(client)
    }

    func mayReturn(_ client: Int) -> Bool { gaveUp.isEmpty || !gaveUp[client] }

    /// Returns heard during the run.
    var returnedClients: Int { recording.clientThreads.reconnects }

    /// With `--reconnect`, while nobody is connected: true until the run's grace for returns has passed since the last
    /// one left (``RunConfiguration/returnGrace``).
    func isWaitingForReturns(at now: UInt64) -> Bool {
        guard configuration.reconnect != nil, isRunning, !isStopping, openSubscribers == 0, emptySince > 0,
            gaveUpCount < configuration.clients
        else { return false }
        return now < emptySince &+ configuration.returnGrace
    }

    /// `--drop-connections-at`: once that long after sending began, orders every share of the clients (threads, child
    /// processes, agents) to close all its connections, as a network that drops them would; the harness cannot close
    /// the server's side. Each drop is reported as the server closing one would be; with `--reconnect` each comes back.
    /// The publisher is the harness's, and stays.
    func dropConnectionsIfDue(at now: UInt64) {
        guard let drop = configuration.dropConnectionsAt, isRunning, !isStopping, recording.server.connectionsDroppedAt == 0,
            now >= recording.startNanoseconds &+ drop
        else { return }
        recording.server.connectionsDroppedAt = now
        for place in channels.indices where channels[place].isOpen && !channels[place].ids.isEmpty {
            guard let order = outboxes[place].reserve(WireFormat.heartbeatFrameSize) else {
                recordEvent(channels[place].ids.lowerBound, "its share's channel was full: --drop-connections-at not sent")
                continue
            }
            Frame.encodeDropConnections(into: order)
            flushOrders(on: place)
        }
    }

    // MARK: The publisher

    /// The publisher's connection closed during the run: after one it used (`afterUse`) its tries start again, and it
    /// is away from now; past its tries it gives up, and the run's end is near (``isEveryoneGone(at:)``).
    func schedulePublisherReconnect(afterUse: Bool) {
        guard let publisher, publisher.reconnects != nil, isRunning, !isStopping else { return }
        let now = MonotonicClock.now()
        if afterUse { publisher.awaySince = now }
        if case .gaveUp(let tries) = publisher.reconnects!.lost(0, afterUse: afterUse, at: now) {
            publisher.gaveUp = true
            recording.record(ConnectionEvent(
                side: .clients, client: nil, time: now, reason: "publisher: " + ReconnectSchedule.gaveUpText(tries: tries)))
        }
    }

    /// Housekeeping: the publisher's next try, when it is due.
    func reopenPublisherIfDue(at now: UInt64) {
        guard let publisher, !publisher.isOpen, publisher.reconnects?.isEmpty == false, isRunning, !isStopping else { return }
        var due: [Int] = []  // once per try, not per message
        publisher.reconnects!.takeDue(at: now, limit: 1, into: &due)
        guard !due.isEmpty else { return }
        publisher.startOver()
        do {
            try openPublisher()
        } catch {
            schedulePublisherReconnect(afterUse: false)  // a connect that fails at once: this try failed
        }
    }

    /// The publisher is ready again: its time away is an event (broadcasts due meanwhile were lost to everyone).
    func publisherReturned(_ publisher: TargetPublisher<T>) {
        let now = MonotonicClock.now()
        recording.record(ConnectionEvent(
            side: .clients, client: nil, time: now,
            reason: "publisher: back after \(DurationText.format(now &- publisher.awaySince)) away"))
        publisher.awaySince = 0
    }
}
