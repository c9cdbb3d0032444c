import BenchCore
import BenchNet
import BenchProtocols

/// `--reconnect` against a user's server: a subscriber (or a round trip's client) whose ready connection closed (the
/// server restarted, went away, or closed it) connects again after its backoff (the engine's one rule,
/// ``ClientEngine/scheduleReconnect(_:afterUse:)``), and redoes the whole handshake on a new session: TCP, TLS, the WebSocket upgrade, the protocol's login and
/// subscription. The measuring thread hears of the drop (``ClientReport/What/closed``), the return once the protocol
/// made it ready again, with that connect's phases (``ClientReport/What/returned``), and a subscriber that gave up.
extension ClientGroup {
    /// The subscriber at `place` used its `tries`: it stays away, and the measuring thread hears of it.
    @usableFromInline func gaveUp(_ place: Int, tries: Int) {
        report(.gaveUp, place, ReconnectSchedule.gaveUpText(tries: tries))
    }

    /// A connect of the client at `place` under way, from `now`: its first, or a return (`isReturn`) that redoes the
    /// whole handshake on a new session, silence counted from the start of the try.
    @usableFromInline func connect(_ place: Int, isReturn: Bool, at now: UInt64) throws -> Connection<T> {
        let client = clients(at: place).lowerBound  // a connection that carries several goes as its first
        let identities = configuration.target?.identities
        let connection = try loop.connect(
            client: client, routes: routes, from: source(ofPlace: place),
            token: UInt64(place + 1), transmitStamps: own != nil,
            settings: identities.map { loop.settings.personalized(by: $0, client: client) })
        connectsStarted[place] += 1
        guard isReturn else { return connection }
        lastHeard[place] = now
        // A round trip's writes wait for their stamps by their offset on the connection: a new one counts from 0.
        if let own, !own.transmitStamps.isEmpty { own.transmitStamps[place] = TransmitStampQueue() }
        sessions[place] = ProtocolSession(speeches[place], role: .subscriber, maximumMessageSize: maximumMessageSize)
        return connection
    }

    /// Where the connection at `place` leaves from (nil: the kernel's choice): the sources in turn, by the run's count of
    /// connections (with `--streams-per-connection`, a connection carries several clients, and every source is used).
    func source(ofPlace place: Int) -> SocketAddress? {
        sources.isEmpty ? nil : sources[(clients(at: place).lowerBound / perConnection) % sources.count]
    }

    /// `--drop-connections-at`: the measuring thread's order to close every connection now, as a network that drops
    /// them would. Each one's drop is reported, and with `--reconnect` it comes back by its schedule.
    func dropConnections() {
        for place in table.connections.indices {
            guard let connection = table[place], connection.isOpen else { continue }
            close(place, reason: "closed by --drop-connections-at", code: WebSocketCloseCode.goingAway)
        }
    }

    /// `--dead-after`: every connection of a subscriber that was ready once and has heard nothing from the server for
    /// that long (a hung server: the process stopped, its sockets still there, its kernel still taking connects) is
    /// taken for dead and closed, looked for every 100 ms (every quarter of the limit, when that is shorter) once the
    /// run's messages have begun to arrive; with `--reconnect` it tries again, and a try that hears nothing that long
    /// fails.
    func closeSilentConnections() {
        guard silenceLimit > 0, heardTheRun else { return }
        let now = MonotonicClock.now()
        guard now >= nextSilenceCheck else { return }
        nextSilenceCheck = now &+ min(silenceLimit / 4, 100_000_000)
        for place in table.connections.indices where wasEverReady[place] {
            guard let connection = table[place], connection.isOpen, now &- lastHeard[place] > silenceLimit else { continue }
            close(place, reason: "heard nothing from \(target) for \(DurationText.format(now &- lastHeard[place])) "
                + "(--dead-after \(DurationText.format(silenceLimit))): taken for dead")
        }
    }
}
