import BenchCore
import BenchNet

/// What a measuring role for a user's server (``TargetEchoClients``, ``TargetClients``) does in ``TargetLoop``.
protocol TargetLoopRole: AnyObject {
    /// The send timer fired: send what the timetable says is due.
    func sendTimerFired()
    /// Every 50 ms while the run goes on: closed-loop timeouts, progress.
    func housekeeping(at now: UInt64)
    /// epoll's events for the connection at `position`; a setup failure ends the run.
    func handle(_ events: EpollEvents, position: Int) -> RunError?
}

/// A target role's timer and housekeeping are the measuring core's (``MeasuringRole``), written once for both roles.
extension TargetLoopRole where Self: MeasuringRole {
    /// The send timer fired: the timetable's due messages go (a timer that cannot be armed again leaves the next
    /// send to the loop's next pass).
    func sendTimerFired() {
        try? dispatchDueEvents()
    }

    func housekeeping(at now: UInt64) {
        measuringHousekeeping(at: now)
    }
}

/// The event loop the target roles share: one epoll with the run's wake-up, a send timer and a housekeeping timer,
/// then one token per connection (from ``TargetToken/firstConnection``); and whether sending began or a stop was asked.
final class TargetLoop {
    let control: RunControl
    let epoll: Epoll
    let sendTimer: MonotonicTimer
    let housekeepingTimer: MonotonicTimer
    /// A stop was asked (Ctrl-C): no more sends.
    private(set) var stopping = false
    /// Sending has begun: a connection that fails now is lost, not a setup failure.
    private(set) var running = false


    init(control: RunControl) throws(SystemError) {
        self.control = control
        epoll = try Epoll()
        sendTimer = try MonotonicTimer()
        housekeepingTimer = try MonotonicTimer()
    }

    /// Watches the wake-up and the timers.
    func register() throws(RunError) {
        do {
            try epoll.add(control.serverWake.descriptor, interest: .readable, token: TargetToken.wake)
            try epoll.add(sendTimer.descriptor, interest: .readable, token: TargetToken.sendTimer)
            try epoll.add(housekeepingTimer.descriptor, interest: .readable, token: TargetToken.housekeeping)
        } catch {
            throw .system(error)
        }
    }

    /// Sending begins: offset 0 of the timetable is now (the first entry of `stream`, if the run streams).
    func start(_ recording: inout RunRecording, streamingTo stream: SettledQueue?) throws(RunError) {
        let now = MonotonicClock.now()
        recording.start(at: now, streamingTo: stream)
        control.isRunning.store(true, ordering: .relaxed)
        running = true
        do {
            try housekeepingTimer.arm(at: now + SendDriver.housekeepingInterval, period: SendDriver.housekeepingInterval)
        } catch {
            throw .system(error)
        }
    }

    /// Setup: until `isDone`, lets `openMore` start connects (a window at a time) and hands events to `role`; at the
    /// end of `timeout`, throws what `timedOut` says. Returns early when a stop is asked.
    func setUp<Role: TargetLoopRole>(
        _ role: Role, timeout: UInt64, isDone: () -> Bool, openMore: () throws(RunError) -> Void,
        timedOut: () -> RunError
    ) throws(RunError) {
        let deadline = MonotonicClock.now() + timeout
        while !isDone() {
            try openMore()
            let now = MonotonicClock.now()
            guard now < deadline else { throw timedOut() }
            // At most 100 ms, so that the deadline is checked again.
            try wait(for: role, timeoutMilliseconds: Int32(min((deadline - now) / 1_000_000 + 1, 100)))
            if stopping { return }
        }
    }

    /// Waits for events, at most `timeoutMilliseconds`, and hands them to `role`.
    func wait<Role: TargetLoopRole>(for role: Role, timeoutMilliseconds: Int32) throws(RunError) {
        let count: Int
        do {
            count = try epoll.wait(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw .system(error)
        }
        for index in 0..<count {
            let (token, events) = epoll.event(at: index)
            switch token {
            case TargetToken.wake:
                control.serverWake.drain()
                if control.isStopRequested { stopping = true }
            case TargetToken.sendTimer:
                sendTimer.drain()
                role.sendTimerFired()
            case TargetToken.housekeeping:
                housekeepingTimer.drain()
                role.housekeeping(at: MonotonicClock.now())
            default:
                if let failure = role.handle(events, position: Int(token - TargetToken.firstConnection)) { throw failure }
            }
        }
    }
}

/// epoll tokens of the target roles: the wake-up, the timers, then one per connection.
enum TargetToken {
    static let wake: UInt64 = 0
    static let sendTimer: UInt64 = 1
    static let housekeeping: UInt64 = 2
    static let firstConnection: UInt64 = 3
}
