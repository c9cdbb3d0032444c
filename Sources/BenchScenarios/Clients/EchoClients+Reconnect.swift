import BenchCore
import BenchNet

/// `--reconnect`: a client whose connection drops (closed without the server's goodbye) connects again after a backoff
/// with jitter (``ReconnectBackoff``), up to its number of tries, and says hello again; the server measures the outage
/// (close → hello accepted). Never after the goodbye or a stop.
extension EchoClients {
    /// Queues the client at `position` for its next try after its backoff (``ReconnectSchedule``); one past its tries
    /// gives up (an event).
    func scheduleReconnect(position: Int, afterUse: Bool) {
        guard reconnects != nil, !runIsOver, !control.isStopRequested else { return }
        switch reconnects!.lost(position, afterUse: afterUse, at: MonotonicClock.now()) {
        case .tryAgain:
            armConnectTimer()
        case .gaveUp(let tries):
            report.gaveUp += 1
            record(client: ids.lowerBound + position, reason: "gave up reconnecting after \(tries) tries")
        }
    }

    /// Starts the reconnects that are due, as many as ``ClientLoop/reconnectWindow`` takes; the rest wait for the timer
    /// or a free place in the window.
    func startDueReconnects() {
        guard reconnects?.isEmpty == false else { return }
        if runIsOver || control.isStopRequested {
            reconnects!.cancelAll()
            return
        }
        reconnects!.takeDue(at: MonotonicClock.now(), limit: max(0, ClientLoop<T>.reconnectWindow - table.connecting), into: &duePlaces)
        for position in duePlaces {
            do {
                table.restarted(position, try startConnect(position: position))
            } catch {
                scheduleReconnect(position: position, afterUse: false)  // a connect that fails at once: the try failed
            }
        }
        armConnectTimer()
    }

    /// Arms the timer for the earliest pending reconnect or the next paced first connect; with neither it is left as
    /// it is (firing once more does nothing).
    func armConnectTimer() {
        guard let earliest = [reconnects?.earliest, table.nextDue].compactMap({ $0 }).min() else { return }
        try? connectTimer.arm(at: max(earliest, 1))
    }
}
