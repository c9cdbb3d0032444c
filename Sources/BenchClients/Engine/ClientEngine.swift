import BenchCore
import BenchNet

/// The one client engine: what every thread of simulated clients does, whatever their role (the built-in server's
/// ``EchoClients``, a target's ``ClientGroup`` of subscribers, round-trip clients or chat members). Its loop
/// (``runLoop()``) does, each pass: the role's due work, the connects and returns that are due, the thread's load
/// every second, its reports flushed, one wait on its ``ClientLoop`` (epoll or io_uring, the link's exits) until the
/// next of these is due, and each event to the role. Its connections are in one ``ClientTable``; a dropped client
/// comes back by one rule (``scheduleReconnect(_:afterUse:)``, ``ReconnectSchedule``); everything it has to say goes
/// out as ``ClientReport``s through one ``ReportWriter``.
///
/// A role is what its connections say and hear (a ``BenchEchoSession``, a ``ProtocolSession``), and what a connect that
/// cannot start, a close or a give-up means for it: the requirements below, called on the loop's thread only.
///
/// `@usableFromInline`, as are the types of its requirements and each role's witnesses: the release build's
/// cross-module optimization serializes the loop only so, and specializes it for the transport in the module that picks
/// one. An internal protocol's loop ran unspecialized there, and the clients' io_uring path allocated per message
/// (`Benchmarks/hot-path-allocations.sh` with `BENCH_IO=uring`, fanout of 20 clients: 950 → 5,852 mallocs over 10× the
/// messages; 106 → 117 so).
@usableFromInline protocol ClientEngine: AnyObject {
    associatedtype T: Transport

    /// The run's ids of the thread's clients.
    var ids: Range<Int> { get }
    var loop: ClientLoop<T> { get }
    var table: ClientTable<T> { get set }
    var reports: ReportWriter { get }
    /// The thread's busy share since its clients were all connected.
    var load: BusyShare { get set }
    /// The load goes out every second (``ClientReport/What/load``).
    var reportsLoad: Bool { get }

    /// True while the thread has clients to run.
    var goesOn: Bool { get }
    /// Does what is due by `now` besides connects (heartbeats, keepalives, connections silent too long); false ends
    /// the loop.
    func doDueWork(at now: UInt64) -> Bool
    /// When ``doDueWork(at:)`` has something to do next (`.max`: only on events).
    var nextWorkDue: UInt64 { get }
    /// First connects may start (a Redis chat's members wait for their publishing connection).
    var firstConnectsMayStart: Bool { get }
    /// Makes the connection of the client at `place`, its first or a return (`isReturn`), its connect under way.
    func connect(_ place: Int, isReturn: Bool, at now: UInt64) throws -> Connection<T>
    /// A first connect at `place` could not start; false: no more start, the thread ends (the setup failed).
    func cannotStart(_ place: Int, because error: any Error) -> Bool
    /// A dropped client may come back now (not after the run's end).
    var returnsAllowed: Bool { get }
    /// The client at `place` used its `tries` and stays away.
    func gaveUp(_ place: Int, tries: Int)
    /// One event of the loop (a connection's by its token, or the role's own descriptors'); false ends the loop.
    func handle(token: UInt64, events: EpollEvents) -> Bool
    /// Says `text` of the thread as a whole (io_uring refused, the wait failed).
    func note(_ text: String)
}

extension ClientEngine {
    /// The loop, until the role has no more clients to run or ends it.
    func runLoop() {
        defer { reports.flush() }  // what the last pass said, its end among it
        while goesOn {
            guard doDueWork(at: MonotonicClock.now()), startDueConnects() else { return }
            reportLoadIfDue()
            reports.flush()
            let proceed: Bool
            do {
                proceed = try loop.wait(timeoutNanoseconds: waitLimit) { handle(token: $0, events: $1) }
            } catch {
                note("the clients' event loop failed: \(error)")
                return
            }
            reports.flush()
            guard proceed else { return }
        }
    }

    /// Starts the connects that are due (``ClientTable/startDueConnects(at:firstConnects:connect:cannotStart:gaveUp:)``):
    /// first connects while fewer than a window are under way and `--connect-rate`'s pace allows, and with
    /// `--reconnect` the returns whose backoff is over. False when a first connect that could not start ends the
    /// thread.
    func startDueConnects() -> Bool {
        let now = MonotonicClock.now()
        if !returnsAllowed { table.cancelReturns() }
        return table.startDueConnects(
            at: now, firstConnects: firstConnectsMayStart,
            connect: { place, isReturn in try connect(place, isReturn: isReturn, at: now) },
            cannotStart: { place, error in cannotStart(place, because: error) },
            gaveUp: { place, tries in gaveUp(place, tries: tries) })
    }

    /// The client at `place` lost its connection: after a connection the server used (`afterUse`) its tries start
    /// again, otherwise (a try that failed) the next one; past its tries it gives up. Nothing without `--reconnect` or
    /// once returns are no longer allowed.
    func scheduleReconnect(_ place: Int, afterUse: Bool) {
        guard returnsAllowed else { return }
        if case .gaveUp(let tries) = table.lost(place, afterUse: afterUse, at: MonotonicClock.now()) {
            gaveUp(place, tries: tries)
        }
    }

    /// Sets up io_uring on this thread: the clients' reads arrive through its ring and each pass's writes go out in one
    /// submission. Where it cannot, the thread stays on epoll and says so.
    func startUring() {
        guard let refusal = loop.startUring(connections: table.count) else { return }
        note("io_uring could not be set up on a client thread (\(refusal)); its sockets use epoll")
    }

    /// The thread's clients are all connected: its load counts from now.
    func allConnected() {
        load.begin()
    }

    /// Every second once the clients are all connected: the thread's busy share since then.
    func reportLoadIfDue() {
        guard reportsLoad, let share = load.takeIfDue() else { return }
        reports.report(ClientReport(.load, client: UInt32(ids.lowerBound), time: share))
    }

    /// How long the next wait may last, to the nanosecond: until the next connect, the role's next work or the next
    /// load report is due (nil: until an event comes).
    private var waitLimit: UInt64? {
        var due = min(nextWorkDue, reportsLoad ? load.nextDue : .max)
        if let connect = table.nextConnectDue(firstConnects: firstConnectsMayStart) { due = min(due, connect) }
        guard due != .max else { return nil }
        let now = MonotonicClock.now()
        return due <= now ? 0 : due - now
    }
}
