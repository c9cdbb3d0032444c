import BenchNet
import Synchronization

/// The thread-safe handle on a running run: ask it to stop, and read its progress.
///
/// The command line's signal thread calls ``requestStop()`` on Ctrl-C; tests call it directly. The event
/// loops publish their counters here a few times a second, never per message.
public final class RunControl: Sendable {
    /// Wakes the server's loop.
    public let serverWake: EventNotifier
    /// Wakes the clients' loop.
    public let clientsWake: EventNotifier
    private let stopRequested = Atomic<Bool>(false)
    private let stoppedByRequest = Atomic<Bool>(false)
    private let setupFailure = Mutex<String?>(nil)

    /// Messages whose turn came so far (written or dropped), warmup included.
    public let dispatchedMessages = Atomic<Int>(0)
    /// Echoes received so far.
    public let echoedMessages = Atomic<Int>(0)
    /// Messages in the whole run, warmup included.
    public let totalMessages = Atomic<Int>(0)
    /// True once all clients are connected and sending has begun.
    public let isRunning = Atomic<Bool>(false)
    /// The port the server listens on, once it does (0 before): for clients that connect from elsewhere.
    public let serverPort = Atomic<Int>(0)
    /// Clients connected now, and clients that came back after a drop so far (the live view's gauges; published at
    /// the measuring role's housekeeping).
    public let connectedClients = Atomic<Int>(0)
    public let reconnects = Atomic<Int>(0)
    /// The busiest harness thread's CPU share so far, in parts per million: the measuring thread's, or a client thread's
    /// that reported its own (a target's client groups, agents' threads).
    public let busiestThreadPartsPerMillion = Atomic<Int>(0)

    /// Creates a control for one run.
    /// An agent's clients (`bench clients`) stop on a request too: they have no server of their own to end the run.
    private let clientsStopOnRequest: Bool
    /// A server shard's channel to the run's process (`--server-procs`): its server begins sending when that says.
    public let startGate: (any ServerStartGate)?

    /// Creates a control for one run; `clientsStopOnRequest` for an agent's, whose clients end with a stop request;
    /// `startGate` for a server shard's (its channel to the run's process).
    public init(clientsStopOnRequest: Bool = false, startGate: (any ServerStartGate)? = nil) throws(SystemError) {
        serverWake = try EventNotifier()
        clientsWake = try EventNotifier()
        self.clientsStopOnRequest = clientsStopOnRequest
        self.startGate = startGate
    }

    /// Asks the run to stop sending; messages in flight still get their timeout, then the run ends as
    /// ``RunStatus/interrupted``. Safe from any thread; later calls do nothing more.
    public func requestStop() {
        stoppedByRequest.store(true, ordering: .relaxed)
        stopRequested.store(true, ordering: .releasing)
        serverWake.notify()
        if clientsStopOnRequest { clientsWake.notify() }
    }

    /// True once ``requestStop()`` or ``stopWhenDecided()`` was called.
    public var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Ends sending because what the run was for is decided (a capacity step sampled until its objectives were
    /// decided): messages in flight still get their timeout, and the run ends ``RunStatus/complete``, unless a stop
    /// was also requested. Safe from any thread.
    public func stopWhenDecided() {
        stopRequested.store(true, ordering: .releasing)
        serverWake.notify()
    }

    /// True when sending stopped only because the run's objectives were decided (``stopWhenDecided()``).
    public var isStoppedWhenDecided: Bool { isStopRequested && !stoppedByRequest.load(ordering: .relaxed) }

    /// Called when clients cannot come (a clients' thread cannot connect, a client process ended before the run): the
    /// server stops waiting for them and the run fails with `reason`.
    public func failSetup(_ reason: String) {
        setupFailure.withLock { $0 = $0 ?? reason }
        serverWake.notify()
    }

    /// Why the clients could not be set up, if they could not.
    public var setupFailureReason: String? { setupFailure.withLock { $0 } }
}

/// What a server shard's server waits on before it sends (its channel to the run's process): the run's process says when
/// every shard's clients are here. Asked during setup only.
public protocol ServerStartGate: AnyObject, Sendable {
    /// Says this shard's clients are all here (once), and returns when sending starts once the run's process said it
    /// (nil until then). Throws when the run's process is gone or says what no shard is told.
    func startTime() throws(SystemError) -> UInt64?
}
