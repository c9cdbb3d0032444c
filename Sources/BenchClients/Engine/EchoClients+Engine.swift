import BenchCore
import BenchNet

/// The built-in server's clients as a role of the one client engine (``ClientEngine``): the connects their thread
/// starts, its heartbeats, what a connect that cannot start or a give-up means (the setup fails; a client stays away),
/// and each event: the run's control waking the thread, or a client's connection.
///
/// `--reconnect`: a client whose connection drops (closed without the server's goodbye) connects again after a backoff
/// with jitter (``ReconnectBackoff``), up to its number of tries, and says hello again; the server measures the outage
/// (close → hello accepted). Never after the goodbye or a stop.
extension EchoClients: ClientEngine {
    /// The loop ends when no connection is left open and none is still to open.
    @usableFromInline var goesOn: Bool { table.open > 0 || !table.allStarted || table.returnsWaiting }

    /// A stop during the setup ends the thread; a single client connected blocks in read from here on
    /// (``echoOnBlockingSocket(_:)``); the heartbeats of this tick go out.
    @usableFromInline func doDueWork(at now: UInt64) -> Bool {
        if control.isStopRequested && table.nextToConnect(at: now) != nil { return false }
        if ids.count == 1 && !table.reconnects, let only = table[0], only.isOpen, !only.isLinked, !table.isSettingUp(0) {
            echoOnBlockingSocket(only)
            return false
        }
        if now >= nextHeartbeat {
            nextHeartbeat = now + heartbeatTick
            sendHeartbeatSlice()
        }
        return true
    }

    @usableFromInline var nextWorkDue: UInt64 { nextHeartbeat }

    /// Not once a stop is asked (the setup is over: the thread ends at its next pass).
    @usableFromInline var firstConnectsMayStart: Bool { !control.isStopRequested }

    /// A new connection for the client at `place`, its session started over, its connect under way (not counted yet).
    @usableFromInline func connect(_ place: Int, isReturn: Bool, at now: UInt64) throws -> Connection<T> {
        let client = ids.lowerBound + place
        sessions[place].restart()
        return try loop.connect(
            client: client, routes: routes, from: sources.isEmpty ? nil : sources[client % sources.count],
            token: Token.firstConnection + UInt64(place), transmitStamps: false)
    }

    /// The run cannot have all its clients: the setup fails.
    @usableFromInline func cannotStart(_ place: Int, because error: any Error) -> Bool {
        let client = ids.lowerBound + place
        control.failSetup("client \(client) could not connect to \(routes.address(of: client)): \(error)")
        return false
    }

    @usableFromInline var returnsAllowed: Bool { !runIsOver && !control.isStopRequested }

    /// The client at `place` used its `tries`: it stays away (an event).
    @usableFromInline func gaveUp(_ place: Int, tries: Int) {
        tally.gaveUp += 1
        record(client: ids.lowerBound + place, reason: ReconnectSchedule.gaveUpText(tries: tries), as: .gaveUp)
    }

    /// One event of the thread's loop. False when the loop ends: the run's control woke it, or a hello or a connect
    /// could not go out.
    @usableFromInline func handle(token: UInt64, events: EpollEvents) -> Bool {
        guard token != Token.wake else { return false }
        let position = Int(token - Token.firstConnection)
        guard let connection = table[position], connection.isOpen else { return true }
        if !handle(events, position: position) { close(position) }
        // isEstablished is false for a connection closed meanwhile: no hello on a closed socket.
        guard table.isSettingUp(position) && connection.isEstablished else { return true }
        return sayHello(position: position) && startDueConnects()
    }

    @usableFromInline func note(_ text: String) {
        record(client: nil, reason: text, as: .note)
    }
}
