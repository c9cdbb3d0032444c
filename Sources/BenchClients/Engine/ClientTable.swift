import BenchCore
import BenchNet

/// The connections of one thread's simulated clients, by place (the client is the thread's first id plus its place),
/// and where their connects stand: which have started, which are still in their handshakes (at most a connect window
/// of first connects at once, and with `--connect-rate` none before its time), how many are open, and each one's
/// connect time; and with `--reconnect`, which of them wait to connect again (``lost(_:afterUse:at:)``). Every client
/// role keeps its connections here (the built-in server's ``EchoClients``, a target's ``ClientGroup``) and starts them
/// through ``startDueConnects(at:firstConnects:connect:cannotStart:gaveUp:)``; what a role does with a connection once it is up (say hello,
/// subscribe) is the role's.
@usableFromInline struct ClientTable<T: Transport> {
    /// How many clients the thread has.
    let count: Int
    /// First connects under way at once (``ClientLoop/connectWindow``).
    let window: Int
    /// `--connect-rate`: the run's client `k` starts its first connect `k` intervals after `start`, when its thread's
    /// clients were set up (the threads and processes of a run start within moments of one another): the herd comes at
    /// the rate asked. Nil: a window at a time.
    let pace: Pace?

    /// When each first connect is due, with `--connect-rate`.
    struct Pace {
        /// The run's id of the table's place 0.
        var firstClient: Int
        /// The clients one place carries (`--streams-per-connection`): place `p` is due with the run's client
        /// `firstClient + p × clientsPerPlace`.
        var clientsPerPlace = 1
        /// Between two clients' connects (ns).
        var interval: UInt64
        /// When the run's client 0 was due (monotonic ns).
        var start: UInt64
    }
    /// By place, in the order their first connects started; nil where a connect could not start.
    private(set) var connections: [Connection<T>?] = []
    /// Per place: its current connection's handshakes are not done yet (and it is not closed).
    private var inHandshakes: [Bool] = []
    /// Per place: from the start of its first connect to the end of its handshakes (ns); 0 before.
    private(set) var connectTimes: [UInt64]
    /// Connections whose handshakes are not done (and not closed).
    private(set) var connecting = 0
    /// Of those, the ones a connect window counts: a connect held for its link's handshake (``holds``) is connected in
    /// the kernel already, so it waits on no server's accept backlog and takes no place in the window (behind `verybad`,
    /// a second each, 128 at a time per thread would stretch 10,000 connects past the setup's budget).
    private var underWay: Int { connecting - holds.count }
    /// Connections open: started and not closed.
    private(set) var open = 0
    /// Connects through a link whose socket may be connected before the link's handshake is over: each place and the
    /// time its connect may end (``Connection/connectNotBefore``), let end by ``startDueConnects``.
    private var holds: [(place: Int, until: UInt64)] = []
    /// `--reconnect`: which places wait to connect again, when; nil: none does.
    private var returns: ReconnectSchedule?
    /// The places whose return is due, taken from `returns` (kept: no allocation per pass).
    private var duePlaces: [Int] = []

    /// The table of `count` clients, `window` first connects at a time, paced by `pace`; with `returns`, they connect
    /// again after a drop, by that schedule.
    init(count: Int, window: Int, pace: Pace? = nil, returns: ReconnectSchedule? = nil) {
        self.count = count
        self.window = window
        self.pace = pace
        self.returns = returns
        connections.reserveCapacity(count)
        inHandshakes.reserveCapacity(count)
        connectTimes = Array(repeating: 0, count: count)
    }

    /// The table of a thread's clients `ids` in the run `configuration`, as every role keeps them: a connect window of
    /// first connects at a time, `--connect-rate`'s pace from now, and `--reconnect`'s backoff (its jitter a stream of
    /// its own per thread).
    /// With `clientsPerPlace` above 1, each place carries that many of `ids` (the last what is left): one connection for
    /// several subscribers (`--streams-per-connection`).
    init(_ configuration: RunConfiguration, ids: Range<Int>, clientsPerPlace: Int = 1) {
        let count = (ids.count + clientsPerPlace - 1) / clientsPerPlace
        self.init(
            count: count, window: ClientLoop<T>.connectWindow,
            pace: configuration.connectInterval.map {
                Pace(firstClient: ids.lowerBound, clientsPerPlace: clientsPerPlace, interval: $0, start: MonotonicClock.now())
            },
            returns: configuration.reconnect.map {
                ReconnectSchedule($0, seed: configuration.seed, firstClient: ids.lowerBound, count: count)
            })
    }

    /// The connection of the client at `place`; nil when none has started.
    @inline(__always)
    subscript(place: Int) -> Connection<T>? {
        place < connections.count ? connections[place] : nil
    }

    /// Every place's first connect has started (or could not).
    var allStarted: Bool { connections.count == count }

    /// The place whose first connect may start at `now`: nil when every one has, a window of connects is under way,
    /// or with a pace, its time has not come (``nextDue``).
    func nextToConnect(at now: UInt64) -> Int? {
        guard connections.count < count && underWay < window else { return nil }
        guard let due = nextDue else { return connections.count }
        return now >= due ? connections.count : nil
    }

    /// With a pace, when the next first connect is due (nil: none is left, there is no pace, or a window of connects is
    /// under way: the end of one of them, not a time, lets the next start).
    var nextDue: UInt64? {
        guard let pace, connections.count < count, underWay < window else { return nil }
        return pace.start &+ UInt64(pace.firstClient + connections.count * pace.clientsPerPlace) &* pace.interval
    }

    /// The first connect of place ``nextToConnect(at:)`` started (`connection`), or could not (nil).
    mutating func started(_ connection: Connection<T>?) {
        precondition(connections.count < count, "every client of the table has started")
        connections.append(connection)
        inHandshakes.append(connection != nil)
        if let connection {
            connecting += 1
            open += 1
            holdIfLinked(connections.count - 1, connection)
        }
    }

    /// Every place that has not started never will (nobody connects): each counts as one that could not.
    mutating func abandonTheRest() {
        while connections.count < count { started(nil) }
    }

    /// A new connect of the client at `place` started (a reconnect), in place of its closed connection.
    mutating func restarted(_ place: Int, _ connection: Connection<T>) {
        precondition(connections[place].map { !$0.isOpen } ?? true, "a client has one connection at a time")
        connections[place] = connection
        inHandshakes[place] = true
        connecting += 1
        open += 1
        holdIfLinked(place, connection)
    }

    private mutating func holdIfLinked(_ place: Int, _ connection: Connection<T>) {
        if connection.connectNotBefore > 0 { holds.append((place, connection.connectNotBefore)) }
    }

    /// Lets end every held connect whose time came by `now` (its connection watches for its end again; a hold leaves
    /// with its connection's close, so each one left is its place's current connection's). Should its epoll refuse
    /// that, the connect stays unfinished, and the role's handshake bound reports it.
    mutating func letHeldConnectsEnd(at now: UInt64) {
        guard !holds.isEmpty else { return }
        holds.removeAll { hold in
            guard hold.until <= now else { return false }
            try? connections[hold.place]?.letConnectEnd()
            return true
        }
    }

    /// The client at `place` is connected and its handshakes are not counted yet.
    func isSettingUp(_ place: Int) -> Bool {
        place < inHandshakes.count && inHandshakes[place]
    }

    /// The handshakes of the client at `place` are done: its place in the window is free. Its connect time (start of
    /// connect to end of handshakes) the first time, nil on a later connect of the same client (a reconnect).
    mutating func handshakesDone(_ place: Int) -> UInt64? {
        guard inHandshakes[place], let connection = connections[place] else { return nil }
        inHandshakes[place] = false
        connecting -= 1
        guard connectTimes[place] == 0 else { return nil }
        connectTimes[place] = max(1, connection.establishedAt - connection.startedAt)
        return connectTimes[place]
    }

    /// Closes the connection of the client at `place` (with WebSocket status `code` where it has one). Whether it was
    /// still in its handshakes; nil when it was not open.
    @discardableResult
    mutating func close(_ place: Int, code: UInt16 = WebSocketCloseCode.normal) -> Bool? {
        guard let connection = self[place], connection.isOpen else { return nil }
        connection.close(code: code)
        if !holds.isEmpty { holds.removeAll { $0.place == place } }  // a held connect closed: no longer under way
        open -= 1
        let wasSettingUp = inHandshakes[place]
        if wasSettingUp {
            inHandshakes[place] = false
            connecting -= 1
        }
        return wasSettingUp
    }

    /// Closes every connection still open: the end of the thread.
    mutating func closeAll() {
        for place in connections.indices { close(place) }
    }
}

/// Where every client role starts its connects: the first ones (a window at a time, by `--connect-rate`'s pace) and,
/// with `--reconnect`, the returns (``ClientLoop/reconnectWindow`` at a time, each after its backoff). One rule for
/// all: a return whose connect fails at once is that try failing; the next waits longer, and past its tries the client
/// gives up.
extension ClientTable {
    /// Starts every connect due at `now`: first connects while the window and the pace allow (unless `firstConnects` is
    /// false: they wait for something of the role's), then the returns that are due. `connect(place, isReturn)` makes each one's connection. A first connect that throws counts as one that could
    /// not start and goes to `cannotStart` (false: start no more, the setup failed); a return that throws is that try
    /// failing (`gaveUp(place, tries)` when it was the last). False when `cannotStart` said to stop.
    mutating func startDueConnects(
        at now: UInt64, firstConnects: Bool = true, connect: (_ place: Int, _ isReturn: Bool) throws -> Connection<T>,
        cannotStart: (_ place: Int, _ error: any Error) -> Bool, gaveUp: (_ place: Int, _ tries: Int) -> Void
    ) -> Bool {
        letHeldConnectsEnd(at: now)
        while firstConnects, let place = nextToConnect(at: now) {
            do {
                started(try connect(place, false))
            } catch {
                started(nil)
                guard cannotStart(place, error) else { return false }
            }
        }
        guard returns?.isEmpty == false else { return true }
        returns!.takeDue(at: now, limit: max(0, ClientLoop<T>.reconnectWindow - underWay), into: &duePlaces)
        for place in duePlaces {
            do {
                restarted(place, try connect(place, true))
            } catch {
                if case .gaveUp(let tries) = lost(place, afterUse: false, at: now) { gaveUp(place, tries) }
            }
        }
        return true
    }

    /// The client at `place` lost its connection at `now`: after a connection the server used (`afterUse`) its tries
    /// start again, otherwise (a try that failed) the next one. When it tries again, or that it gave up; nil without
    /// `--reconnect`.
    mutating func lost(_ place: Int, afterUse: Bool, at now: UInt64) -> ReconnectSchedule.Decision? {
        returns?.lost(place, afterUse: afterUse, at: now)
    }

    /// `--reconnect`: clients that drop connect again.
    var reconnects: Bool { returns != nil }

    /// Some client waits to connect again.
    var returnsWaiting: Bool { returns?.isEmpty == false }

    /// When the next connect is due: the next paced first connect (unless `firstConnects` is false), the earliest
    /// return while the reconnect window has room (a full one waits for the end of a try, not a time), or the end of
    /// a held connect's link handshake. Nil: none is due by a time.
    func nextConnectDue(firstConnects: Bool = true) -> UInt64? {
        var due = underWay < ClientLoop<T>.reconnectWindow ? returns?.earliest : nil
        if firstConnects, let paced = nextDue { due = min(paced, due ?? paced) }
        for hold in holds { due = min(hold.until, due ?? hold.until) }
        return due
    }

    /// The run is over: nobody connects again.
    mutating func cancelReturns() {
        returns?.cancelAll()
    }
}
