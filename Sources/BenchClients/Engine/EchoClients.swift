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
///
/// What happens to them goes out as ``ClientReport``s through `reports`, as every client role's: each client's connect
/// time and phases, its connections' events, the thread's load every second (an agent's). What the thread is at its
/// end (its counts, the CPUs it ran on: this machine's) is returned to its own process (``run()``).
public final class EchoClients<T: Transport> {
    typealias Token = EchoClientsToken

    /// Heartbeats go out in slices on this tick (or on every heartbeat, if that is shorter), so that ten
    /// thousand clients do not all write at the same instant.
    static var heartbeatTick: UInt64 { 100_000_000 }

    /// The tick of this thread's heartbeats, and when the next slice is due (`.max`: none).
    var heartbeatTick: UInt64 { min(heartbeat, Self.heartbeatTick) }
    var nextHeartbeat = UInt64.max

    /// Where each client connects, and behind which link.
    let routes: ClientRoutes
    /// The addresses its connections leave from, client `i` from the `i % count`th; empty: the kernel's choice.
    let sources: [SocketAddress]
    @usableFromInline let ids: Range<Int>
    let token: UInt64
    let heartbeat: UInt64
    let control: RunControl
    /// The thread's epoll, rings, read buffer, kernel stamps and connect window: every client role's.
    @usableFromInline let loop: ClientLoop<T>
    /// `--io uring`, on a thread of more than one client (a single one blocks in read).
    let usesUring: Bool
    /// The clients' connections by position, their connect window and times; a client whose connection is open and
    /// not setting up has said hello on it.
    @usableFromInline var table: ClientTable<T>
    /// Per position: the client said hello once; a connect of one that did is a reconnect, whose failure is not the
    /// setup's.
    var joined: [Bool] = []
    /// Per position: its current connection is a reconnect whose hello the server has not shown it took yet (nothing
    /// came on it since): a close then is the attempt failing, not a new drop (the backoff goes on growing).
    var returnUnconfirmed: [Bool] = []
    /// The server said goodbye (the run is over) or the run's control woke the clients: no reconnect any more.
    var runIsOver = false
    /// Where the thread's reports go (``ClientReport``): flushed after each pass of its loop.
    @usableFromInline let reports: ReportWriter
    /// An agent's: the thread's busy share goes out every second once all its clients said hello.
    @usableFromInline let reportsLoad: Bool
    @usableFromInline var load = BusyShare()
    /// Clients that said hello once.
    var joinedCount = 0
    /// Per position: the client's side of the built-in server's protocol, started over on each connection; what they
    /// owe goes to one outbox, drained after each read.
    let sessions: [BenchEchoSession]
    var heartbeatCursor = 0
    /// The heartbeats this thread's clients are owed.
    var heartbeatCredit = HeartbeatCredit()
    /// The thread's counts and CPUs, returned at its end.
    var tally = ClientThreadsTally()

    /// Clients `ids` of the run `configuration`, connecting where `routes` says, their transports set up with
    /// `transport`, reporting through `reports` (their load too with `reportsLoad`); `kernelClock` is given when the
    /// run uses kernel stamps.
    public init(
        _ configuration: RunConfiguration,
        ids: Range<Int>,
        routes: ClientRoutes,
        transport: TransportSettings,
        control: RunControl,
        kernelClock: KernelClockMapping?,
        reports: ReportWriter,
        reportsLoad: Bool = false
    ) throws(SystemError) {
        self.routes = routes
        self.reports = reports
        self.reportsLoad = reportsLoad
        self.sources = configuration.sources(toward: routes.server)
        self.ids = ids
        self.token = configuration.token
        self.heartbeat = configuration.heartbeat
        self.control = control
        self.loop = try ClientLoop(
            settings: transport, maximumQueuedBytes: configuration.maximumQueuedBytes, busyPoll: configuration.busyPoll,
            kernelClock: kernelClock, readSize: 2 * transport.maximumFrameSize)
        self.usesUring = configuration.ioEngine == .uring && ids.count > 1
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

    /// Connects every client, echoes until the run ends, closes every connection. Returns the thread's tally and its
    /// busy share over its life (percent; nil for no time): this machine's, for its own process.
    public func run() -> (tally: ClientThreadsTally, busyPercent: Double?) {
        let (cpu, wall) = (ThreadCPUTime.now(), MonotonicClock.now())
        runClients()
        tally.cpus.formUnion(loop.observedCPUs)
        let life = MonotonicClock.now() - wall
        let busy = life > 0 ? Double(BusyShare.partsPerMillion(cpu: ThreadCPUTime.now() - cpu, of: life)) / 10_000 : nil
        return (tally, busy)
    }

    /// The thread's life, from its connects to the server's goodbye: the engine's loop (``ClientEngine/runLoop()``).
    private func runClients() {
        tally.allowedCPUs = CPUPlacement.allowedCPUs()
        defer {
            table.closeAll()
        }
        do {
            try loop.epoll.add(control.clientsWake.descriptor, interest: .readable, token: Token.wake)
        } catch {
            control.failSetup("the clients' event loop could not start: \(error)")
            return
        }
        if usesUring { startUring() }
        if heartbeat > 0 { nextHeartbeat = MonotonicClock.now() + heartbeatTick }
        runLoop()
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
    func echoOnBlockingSocket(_ connection: Connection<T>) {
        let client = ids.lowerBound
        do {
            var nextHeartbeat = UInt64.max
            if !loop.busyPoll {  // busy polling spins on the non-blocking socket instead
                try Posix.setNonBlocking(connection.descriptor, false)
                if heartbeat > 0 { try Posix.setReceiveTimeout(connection.descriptor, nanoseconds: heartbeat) }
            }
            if heartbeat > 0 { nextHeartbeat = MonotonicClock.now() + heartbeat }
            while try echoWhatArrives(on: connection, position: 0) {
                tally.cpus.insert(CPUPlacement.currentCPU())
                let now = MonotonicClock.now()
                if now >= nextHeartbeat {
                    try sendHeartbeat(on: connection, position: 0)
                    nextHeartbeat = now + heartbeat
                }
            }
        } catch {
            record(client: client, reason: "\(error)")
        }
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
        try sendOwed(by: session, on: connection, counting: &tally.droppedEchoes)
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

    /// Reports what happened to `client` (nil: to the thread), as `what` (its connection closed, by default).
    func record(client: Int?, reason: String, as what: ClientReport.What = .closed) {
        reports.report(ClientReport(
            what, client: client.map { UInt32($0) } ?? ClientReport.noClient, time: MonotonicClock.now(), text: reason))
    }
}
