import BenchCore
import BenchNet
import BenchProtocols

/// The simulated clients of a run, over transport `T`: one connection each, in one epoll loop on one thread, each
/// echoing every data frame at once with the time its read returned, and sending a heartbeat every `heartbeat` (a
/// WebSocket ping on WebSocket transports).
///
/// They connect without blocking, at most ``ClientLoop/connectWindow`` at a time; each one's handshakes (TLS, WebSocket) advance
/// in the loop, and once done it says hello with its id, and its connect time (from the start of connect to the end
/// of the handshakes) is kept. Then they echo until the server closes every connection (the end of the run) or the
/// run's control wakes them. A single client has nothing to multiplex: once connected it blocks in read on its
/// socket, as sockperf's server does, which saves an epoll_wait per message.
public final class EchoClients<T: Transport> {
    /// What the clients' side saw, merged into the ``RunRecording`` after the run.
    public struct Report: Sendable {
        public var observedCPUs = CPUSet()
        public var allowedCPUs = CPUSet()
        public var events: [ConnectionEvent] = []
        /// Echoes not sent because the connection's write queue was full.
        public var droppedEchoes = 0
        /// Heartbeats sent.
        public var heartbeats = 0
        /// Per client of this thread, in order: from the start of its connect to the end of its handshakes (ns), and
        /// its phases over a transport that has more than a TCP connect.
        public var connectTimes: [(client: Int, nanoseconds: UInt64, phases: ConnectPhases?)] = []
        /// `--reconnect`: hellos said again after a drop, and clients that gave up after their last try.
        public var reconnects = 0
        public var gaveUp = 0
        /// The thread's CPU time over its life, in percent: a client thread this busy is the harness's bottleneck.
        public var busyPercent: Double?
    }

    typealias Token = EchoClientsToken

    /// Heartbeats go out in slices on this tick (or on every heartbeat, if that is shorter), so that ten
    /// thousand clients do not all write at the same instant.
    static var heartbeatTick: UInt64 { 100_000_000 }

    /// Where each client connects, and behind which link.
    let routes: ClientRoutes
    /// The addresses its connections leave from, client `i` from the `i % count`th; empty: the kernel's choice.
    let sources: [SocketAddress]
    let ids: Range<Int>
    let token: UInt64
    let heartbeat: UInt64
    let control: RunControl
    /// The thread's epoll, rings, read buffer, kernel stamps and connect window: every client role's.
    let loop: ClientLoop<T>
    /// `--io uring`, on a thread of more than one client (a single one blocks in read).
    let usesUring: Bool
    let heartbeatTimer: MonotonicTimer
    /// The clients' connections by position, their connect window and times; a client whose connection is open and
    /// not setting up has said hello on it.
    var table: ClientTable<T>
    /// Per position: the client said hello once; a connect of one that did is a reconnect, whose failure is not the
    /// setup's.
    var joined: [Bool] = []
    /// Fires when the next paced first connect (`--connect-rate`) or the earliest reconnect is due.
    let connectTimer: MonotonicTimer
    /// Per position: its current connection is a reconnect whose hello the server has not shown it took yet (nothing
    /// came on it since): a close then is the attempt failing, not a new drop (the backoff goes on growing).
    var returnUnconfirmed: [Bool] = []
    /// The server said goodbye (the run is over) or the run's control woke the clients: no reconnect any more.
    var runIsOver = false
    /// An agent's: where the connect times go once every client of this thread has said hello, for the agent to send
    /// to the server (whose `connect` metric they are).
    var connectTimesOut: ConnectTimesMailbox?
    /// An agent's: where this thread's busy share goes every second once all its clients said hello.
    var loadOut: ThreadLoadBoard?
    var load = BusyShare()
    /// Per position: the client's side of the built-in server's protocol, started over on each connection; what they
    /// owe goes to one outbox, drained after each read.
    let sessions: [BenchEchoSession]
    var heartbeatCursor = 0
    /// The heartbeats this thread's clients are owed.
    var heartbeatCredit = HeartbeatCredit()
    var report = Report()

    /// Clients `ids` of the run `configuration`, connecting where `routes` says, their transports set up with
    /// `transport`; `kernelClock` is given when the run uses kernel stamps.
    init(
        _ configuration: RunConfiguration,
        ids: Range<Int>,
        routes: ClientRoutes,
        transport: TransportSettings,
        control: RunControl,
        kernelClock: KernelClockMapping?
    ) throws(SystemError) {
        self.routes = routes
        self.sources = configuration.sourceAddresses.isEmpty
            ? SourceAddresses.automatic(clients: configuration.clients, server: routes.server)
            : configuration.sourceAddresses.compactMap { SocketAddress(host: $0, port: 0) }
        self.ids = ids
        self.token = configuration.token
        self.heartbeat = configuration.heartbeat
        self.control = control
        self.loop = try ClientLoop(
            settings: transport, maximumQueuedBytes: configuration.maximumQueuedBytes, busyPoll: configuration.busyPoll,
            kernelClock: kernelClock, readSize: 2 * transport.maximumFrameSize)
        self.usesUring = configuration.ioEngine == .uring && ids.count > 1
        self.heartbeatTimer = try MonotonicTimer()
        self.connectTimer = try MonotonicTimer()
        let usesUring = self.usesUring
        // One outbox for the thread's clients, drained after each read: what one read owes, never grown in the run.
        let outbox = BenchEchoSession.outbox(maximumFrameSize: transport.maximumFrameSize, readSize: loop.readBuffer.count)
        self.sessions = ids.map {
            BenchEchoSession(
                client: UInt32($0), token: configuration.token, maximumFrameSize: transport.maximumFrameSize,
                readsFromRing: usesUring, outbox: outbox)
        }
        table = ClientTable(configuration, ids: ids)
        joined = Array(repeating: false, count: ids.count)
        returnUnconfirmed = Array(repeating: false, count: ids.count)
    }

    /// Connects every client, echoes until the run ends, closes every connection.
    func run() -> Report {
        let (cpu, wall) = (ThreadCPUTime.now(), MonotonicClock.now())
        var result = runLoop()
        result.observedCPUs.formUnion(loop.observedCPUs)
        let life = MonotonicClock.now() - wall
        if life > 0 { result.busyPercent = min(100, 100 * Double(ThreadCPUTime.now() - cpu) / Double(life)) }
        return result
    }

    /// The thread's loop, from its connects to the server's goodbye.
    private func runLoop() -> Report {
        report.allowedCPUs = CPUPlacement.allowedCPUs()
        defer {
            table.closeAll()
        }
        do {
            try loop.epoll.add(control.clientsWake.descriptor, interest: .readable, token: Token.wake)
            try loop.epoll.add(heartbeatTimer.descriptor, interest: .readable, token: Token.heartbeatTimer)
            try loop.epoll.add(connectTimer.descriptor, interest: .readable, token: Token.connectTimer)
        } catch {
            control.failSetup("the clients' event loop could not start: \(error)")
            return report
        }
        if usesUring { startUring() }
        guard startDueConnects() else { return report }
        if heartbeat > 0 || loadOut != nil {  // an agent's thread also ticks to post its load
            let tick = heartbeat > 0 ? min(heartbeat, Self.heartbeatTick) : Self.heartbeatTick
            try? heartbeatTimer.arm(at: MonotonicClock.now() + tick, period: tick)
        }
        // The loop ends when no connection is left open and none is still to open.
        while table.open > 0 || !table.allStarted || table.returnsWaiting {
            if ids.count == 1 && !table.reconnects, let only = table[0], only.isOpen, !only.isLinked, !table.isSettingUp(0) {
                return echoOnBlockingSocket(only)
            }
            guard waitAndHandleEvents() else { return report }
        }
        return report
    }

    /// Handles epoll's events for one client's connection: the end of its connect, its handshakes, its echoes. False
    /// when the connection is done.
    func handle(_ events: EpollEvents, position: Int) -> Bool {
        guard let connection = table[position] else { return false }
        let client = ids.lowerBound + position
        do {
            guard try connection.advance(on: events) else { return true }  // a connect not over: nothing to read yet
            guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return true }
            return try echoWhatArrives(on: connection, position: position)
        } catch {
            if !joined[position] {
                // Before the first hello, a failure is the setup's: the run cannot have all its clients.
                control.failSetup("client \(client) could not connect to \(routes.address(of: client)): \(error)")
            }
            if !table.isSettingUp(position) || !joined[position] { record(client: client, reason: "\(error)") }
            return false  // a reconnect that failed is tried again (``close(_:)``), unreported
        }
    }

    /// Echoes on the only client's socket made blocking, until the server closes it at the end of the run.
    /// A receive timeout of one heartbeat wakes it to send heartbeats when nothing arrives.
    func echoOnBlockingSocket(_ connection: Connection<T>) -> Report {
        let client = ids.lowerBound
        do {
            var nextHeartbeat = UInt64.max
            if !loop.busyPoll {  // busy polling spins on the non-blocking socket instead
                try Posix.setNonBlocking(connection.descriptor, false)
                if heartbeat > 0 { try Posix.setReceiveTimeout(connection.descriptor, nanoseconds: heartbeat) }
            }
            if heartbeat > 0 { nextHeartbeat = MonotonicClock.now() + heartbeat }
            while try echoWhatArrives(on: connection, position: 0) {
                report.observedCPUs.insert(CPUPlacement.currentCPU())
                let now = MonotonicClock.now()
                if now >= nextHeartbeat {
                    try sendHeartbeat(on: connection, position: 0)
                    nextHeartbeat = now + heartbeat
                }
            }
        } catch {
            record(client: client, reason: "\(error)")
        }
        return report
    }

    /// Reads once and echoes every data frame read, stamped with the time the read returned (and the kernel's
    /// receive stamp, with kernel stamps): the client's ``BenchEchoSession`` turns them into echoes in its outbox,
    /// sent after the read. False when the connection is done: the server closed it or said goodbye (the end of the
    /// run), or sent something that is not data.
    func echoWhatArrives(on connection: Connection<T>, position: Int) throws -> Bool {
        guard case .processed(let (count, kernelNow)) = try connection.read(into: loop.readBuffer, stamps: loop.stamps) else {
            return true
        }
        let now = MonotonicClock.now()
        guard count > 0 else { return false }  // the server closed: the run is over
        returnUnconfirmed[position] = false  // the server sent something: it took its hello
        let session = sessions[position]
        var refusal: BenchEchoError?
        var proceed = false
        do {
            proceed = try connection.receiveBytes(loop.readBuffer, count: count) { bytes, endsMessage in
                Self.take(bytes, endsMessage: endsMessage, into: session, readAt: now, kernel: kernelNow, refusal: &refusal)
            }
        } catch {
            session.outbox.removeAll()  // what a failed read left owed is not another client's to send
            guard case .closedByPeer = error else { throw error }
            return false  // the server closed in order: the run is over
        }
        if session.heardGoodbye { runIsOver = true }  // the close that follows is the end, not a drop
        if let refusal { record(client: ids.lowerBound + position, reason: "\(refusal)") }
        try sendOwed(by: session, on: connection, counting: &report.droppedEchoes)
        return proceed && refusal == nil
    }

    /// Hands `session` bytes read at `now` (`kernel`); false, with why in `refusal`, when it refused them.
    @inline(__always)
    private static func take(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, into session: BenchEchoSession, readAt now: UInt64,
        kernel: UInt64, refusal: inout BenchEchoError?
    ) -> Bool {
        do {
            return try session.received(bytes, endsMessage: endsMessage, readAt: now, kernel: kernel)
        } catch {
            refusal = error
            return false
        }
    }

    /// Sends each write `session` owes, one at a time as before its outbox was; `dropped` counts those the
    /// connection's full queue dropped.
    func sendOwed(by session: BenchEchoSession, on connection: Connection<T>, counting dropped: inout Int) throws(SystemError) {
        var failure: SystemError?
        session.outbox.drain { bytes in
            guard failure == nil else { return }
            do throws(SystemError) {
                if try connection.send(bytes) == .dropped { dropped += 1 }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    func record(client: Int?, reason: String) {
        report.events.append(
            ConnectionEvent(side: .clients, client: client, time: MonotonicClock.now(), reason: reason))
    }
}
