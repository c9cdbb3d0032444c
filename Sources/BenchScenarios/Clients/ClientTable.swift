import BenchCore
import BenchNet

/// The connections of one thread's simulated clients, by place (the client is the thread's first id plus its place),
/// and where their connects stand: which have started, which are still in their handshakes (at most a connect window
/// of first connects at once, and with `--connect-rate` none before its time), how many are open, and each one's
/// connect time. Every client role keeps its connections here (the built-in server's ``EchoClients``, a target's
/// ``ClientGroup``); what a role does with a connection once it is up (say hello, subscribe) is the role's.
struct ClientTable<T: Transport> {
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
    /// Connections open: started and not closed.
    private(set) var open = 0

    init(count: Int, window: Int, pace: Pace? = nil) {
        self.count = count
        self.window = window
        self.pace = pace
        connections.reserveCapacity(count)
        inHandshakes.reserveCapacity(count)
        connectTimes = Array(repeating: 0, count: count)
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
        guard connections.count < count && connecting < window else { return nil }
        guard let due = nextDue else { return connections.count }
        return now >= due ? connections.count : nil
    }

    /// With a pace, when the next first connect is due (nil: none is left, there is no pace, or a window of connects is
    /// under way: the end of one of them, not a time, lets the next start).
    var nextDue: UInt64? {
        guard let pace, connections.count < count, connecting < window else { return nil }
        return pace.start &+ UInt64(pace.firstClient + connections.count) &* pace.interval
    }

    /// The first connect of place ``nextToConnect(at:)`` started (`connection`), or could not (nil).
    mutating func started(_ connection: Connection<T>?) {
        precondition(connections.count < count, "every client of the table has started")
        connections.append(connection)
        inHandshakes.append(connection != nil)
        if connection != nil {
            connecting += 1
            open += 1
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
