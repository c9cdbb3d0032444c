import BenchClients
import BenchCore
import BenchNet

/// What a measuring role (the built-in ``BenchServer``, a target's ``TargetClients``) does in its ``MeasuringLoop``:
/// the events of its own descriptors, and its housekeeping.
protocol MeasuringLoopRole: MeasuringRole {
    /// The loop the role runs in.
    var loop: MeasuringLoop { get }
    /// epoll's events for the role's descriptor at `position` (``MeasuringLoop/token(ofPosition:)``); a failure ends
    /// the run.
    func handle(_ events: EpollEvents, position: Int) -> RunError?
    /// Every ``SendDriver/housekeepingInterval`` while the run goes on: at least the core's
    /// (``MeasuringRole/measuringHousekeeping(at:)``), then the role's own.
    func housekeeping(at now: UInt64)
    /// After each pass of events and after each closed-loop send: what the pass queued goes out (io_uring: the
    /// writes of the ``SendBatch`` in one submission; a target: the orders to its clients' groups).
    func flushSends()
}

/// What a role's loop holds, read through it.
extension MeasuringLoopRole {
    var epoll: Epoll { loop.epoll }
    var sendTimer: MonotonicTimer { loop.sendTimer }
    var isRunning: Bool { loop.running }
    var isStopping: Bool { loop.stopping }
}

/// The event loop of every measuring role, written once: one epoll with the run's wake-up, the send timer and the
/// housekeeping timer, then the role's own descriptors; whether sending began or a stop was asked; the start of
/// sending; and the dispatch of each wake-up: a stop heard, the timetable's due sends, housekeeping, the role's events.
final class MeasuringLoop {
    let control: RunControl
    let epoll: Epoll
    let sendTimer: MonotonicTimer
    let housekeepingTimer: MonotonicTimer
    /// A stop was asked (Ctrl-C): no more sends.
    private(set) var stopping = false
    /// Sending has begun: a connection that fails now is lost, not a setup failure.
    private(set) var running = false
    /// With the io_uring engine (``startUring(connections:frameSize:clock:)``): where the role's connections' reads
    /// arrive, and what the loop waits in.
    private(set) var receiver: UringReceiver?
    /// The CPUs the loop's thread was seen on, after each wait.
    private(set) var observedCPUs = CPUSet()

    private static let wake: UInt64 = 0
    private static let sendTimerToken: UInt64 = 1
    private static let housekeepingToken: UInt64 = 2
    private static let firstRoleToken: UInt64 = 3

    /// An epoll with the run's wake-up and the two timers in it.
    init(control: RunControl) throws(SystemError) {
        self.control = control
        epoll = try Epoll()
        sendTimer = try MonotonicTimer()
        housekeepingTimer = try MonotonicTimer()
        try epoll.add(control.serverWake.descriptor, interest: .readable, token: Self.wake)
        try epoll.add(sendTimer.descriptor, interest: .readable, token: Self.sendTimerToken)
        try epoll.add(housekeepingTimer.descriptor, interest: .readable, token: Self.housekeepingToken)
    }

    /// The epoll token of the role's descriptor at `position` (0, 1, …).
    static func token(ofPosition position: Int) -> UInt64 { firstRoleToken + UInt64(position) }

    /// A stop was asked outside the loop's own waits (a ping-pong blocked in read): it is heard now.
    func hearStopRequest() {
        if control.isStopRequested { stopping = true }
    }

    /// Sending begins: offset 0 of the timetable is now (or `start`, waited for: a server shard's, the same for all) (the first entry of `role`'s stream, if it streams), the
    /// measuring thread's CPU time counts from here, housekeeping ticks, what is due goes, and in closed loop every
    /// client may send its first message.
    func beginSending<Role: MeasuringLoopRole>(_ role: Role, at start: UInt64? = nil) throws(RunError) {
        role.driver.threadsAtStart = ThreadSchedules.now()  // before the timetable's start: no send waits for it
        if let start {
            let now = MonotonicClock.now()
            if start > now { Posix.sleep(nanoseconds: start - now) }
        }
        role.driver.startMeasuring()
        running = true
        control.isRunning.store(true, ordering: .relaxed)
        let now = start ?? MonotonicClock.now()
        role.recording.start(at: now, streamingTo: role.stream)
        do {
            try housekeepingTimer.arm(at: now + SendDriver.housekeepingInterval, period: SendDriver.housekeepingInterval)
            try role.dispatchDueEvents()
        } catch {
            throw .system(error)
        }
        role.driver.allClientsReady()
    }

    /// Sets up io_uring beside the epoll, on the loop's thread, for `connections` connections reading frames of up to
    /// `frameSize` bytes (with kernel receive stamps when `clock` is given). The refusal when it cannot: the loop then
    /// stays on epoll.
    func startUring(connections: Int, frameSize: Int, clock: KernelClockMapping?) -> IOUringRefusal? {
        do {
            receiver = try UringReceiver(epoll: epoll, connections: connections, frameSize: frameSize, clock: clock)
            return nil
        } catch {
            return error
        }
    }

    /// Waits for events, at most `timeoutMilliseconds` (-1: until one comes), and hands them to `role`; with io_uring,
    /// a connection's completion comes as its readable event, and the pass's writes are submitted at its end.
    func wait<Role: MeasuringLoopRole>(for role: Role, timeoutMilliseconds: Int32) throws(RunError) {
        var failure: RunError?
        do {
            try epoll.dispatchEvents(through: receiver, timeoutMilliseconds: timeoutMilliseconds) { token, events in
                do throws(RunError) {
                    try dispatch(token, events, to: role)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .system(error)
        }
        observedCPUs.insert(CPUPlacement.currentCPU())
        role.flushSends()
        if let failure { throw failure }
    }

    /// One event of the loop: a stop heard, the timetable's due sends, housekeeping, or the role's own.
    private func dispatch<Role: MeasuringLoopRole>(_ token: UInt64, _ events: EpollEvents, to role: Role) throws(RunError) {
        switch token {
        case Self.wake:
            control.serverWake.drain()
            hearStopRequest()
        case Self.sendTimerToken:
            sendTimer.drain()
            do { try role.dispatchDueEvents() } catch { throw .system(error) }
        case Self.housekeepingToken:
            housekeepingTimer.drain()
            role.housekeeping(at: MonotonicClock.now())
        default:
            if let failure = role.handle(events, position: Int(token - Self.firstRoleToken)) { throw failure }
        }
    }

    /// The run proper, for every role but ping-pong (which blocks in read on its one socket): closed loop's sends and
    /// what they queued, then the end when the role is finished (every message settled, or the last one's timeout
    /// passed: the end of the run is stamped here), else a wait: a spin with `--busy-poll`, otherwise until an event
    /// (the housekeeping timer ticks while the run goes on).
    func measure<Role: MeasuringLoopRole>(_ role: Role, busyPoll: Bool) throws(RunError) {
        while true {
            let now = MonotonicClock.now()
            role.sendClosedLoop(at: now)
            role.flushSends()
            if role.isFinished(at: now) {
                role.recording.endMeasuring(at: now)
                return
            }
            try wait(for: role, timeoutMilliseconds: busyPoll ? 0 : -1)
        }
    }

    /// Setup: until `isDone`, lets `openMore` start connects (a window at a time) and hands events to `role`; at the
    /// end of `timeout`, throws what `timedOut` says. Returns early when a stop is asked.
    func setUp<Role: MeasuringLoopRole>(
        _ role: Role, timeout: UInt64, isDone: () -> Bool, openMore: () throws(RunError) -> Void,
        timedOut: () -> RunError
    ) throws(RunError) {
        let deadline = MonotonicClock.now() + timeout
        while !isDone() && !stopping {
            try openMore()
            let now = MonotonicClock.now()
            guard now < deadline else { throw timedOut() }
            // At most 100 ms, so that the deadline is checked again.
            try wait(for: role, timeoutMilliseconds: Int32(min((deadline - now) / 1_000_000 + 1, 100)))
        }
    }
}
