import BenchCore
import BenchNet
import BenchProtocols

/// What a group tells the measuring thread besides its messages, and what keeps its connections heard: each client
/// ready (its connect's phases; a return after a drop), a stuck handshake's step, the thread's load every second, and
/// the keepalives.
extension ClientGroup {
    /// Every keepalive interval: the protocol's ping to every subscriber whose connection is open and subscribed (a
    /// subscriber that only receives would otherwise be taken for gone). For `--dead-after` on a protocol without a
    /// keepalive of its own, a ping the server answers (NATS `PING`, Redis `PING`, and a WebSocket ping frame where the
    /// transport is WebSocket), so that a quiet server still sounds alive and a hung one is found.
    func sendKeepAlives() {
        guard let keepAliveInterval, MonotonicClock.now() >= nextKeepAlive else { return }
        nextKeepAlive = MonotonicClock.now() + keepAliveInterval
        for (place, connection) in table.connections.enumerated() {
            guard let connection, connection.isOpen, sessions[place].isReady else { continue }
            do {
                try sessions[place].sendHeartbeat(on: connection)
                if pingsForLiveness { _ = try connection.sendPing() }
            } catch {
                close(place, reason: "its keepalive could not be sent: \(error)")
            }
        }
    }

    /// Once, half the setup's budget in, while a subscriber is not yet ready: the first one's place in its handshake
    /// (``SessionStateMachine/handshakeState``: the step it waits at and the last message), as a note.
    func reportStuckHandshake() {
        guard handshakeCheckDue != .max else { return }
        guard subscribedCount < ids.count else {
            handshakeCheckDue = .max  // every one subscribed: nothing to look for, and no clock read per pass
            return
        }
        guard MonotonicClock.now() >= handshakeCheckDue else { return }
        handshakeCheckDue = .max
        for place in sessions.indices where !sessions[place].machine.isReady {
            guard let state = sessions[place].machine.handshakeState else { continue }
            return report(.note, place, ClientReport.handshakeNotePrefix + state)
        }
    }

    /// The client at `place` is ready, its protocol's handshake done at `ready`: its connect's phases go to the
    /// measuring thread, with its connect time (to the end of its transport's handshakes) the first time, and as a
    /// return after a drop later.
    func reportReady(_ place: Int, ready: UInt64) {
        guard let connection = table[place] else { return }
        let transport = target.scheme.transport
        let phases = ConnectPhases(
            started: connection.startedAt, connected: connection.connectedAt,
            streamEstablished: connection.streamEstablishedAt, established: connection.establishedAt, ready: ready
        ).having(tls: transport.usesTLS, webSocket: transport.isWebSocket)
        lastHeard[place] = ready  // silence counts from here at the latest (a subscription the server does not confirm)
        guard !wasEverReady[place] else { return report(.returned, place, phases.text, time: ready) }
        wasEverReady[place] = true
        report(.subscribed, place, phases.text, time: table.connectTimes[place])
    }

    /// Tells the measuring thread what happened at `place`: to each subscriber its connection carries where it is each
    /// one's (ready, returned, closed, gave up), to its first one otherwise (a note, the server's error).
    func report(_ what: ClientReport.What, _ place: Int, _ text: String = "", time: UInt64 = MonotonicClock.now()) {
        let each = what == .subscribed || what == .returned || what == .closed || what == .gaveUp
        for client in each ? clients(at: place) : clients(at: place).prefix(1) {
            if what == .subscribed {
                subscribedCount += 1
                if subscribedCount == ids.count { allConnected() }
            }
            reports.report(ClientReport(what, client: UInt32(client), time: time, text: text))
        }
    }

    /// The run's ids of the subscribers `place` carries: itself alone, or with `--streams-per-connection` a connection's
    /// share (the last one what is left).
    @inline(__always)
    func clients(at place: Int) -> Range<Int> {
        let first = ids.lowerBound + place * perConnection
        return first..<min(ids.upperBound, first + perConnection)
    }
}
