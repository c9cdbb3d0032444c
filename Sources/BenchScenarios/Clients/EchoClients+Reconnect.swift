import BenchCore
import BenchNet

/// `--reconnect`: a client whose connection drops (closed without the server's goodbye) connects again after a backoff
/// with jitter (``ReconnectBackoff``), up to its number of tries, and says hello again; the server measures the outage
/// (close → hello accepted). Never after the goodbye or a stop.
extension EchoClients {
    /// Salt of the backoff's jitter stream (with the first client id of the thread).
    static var backoffStream: UInt64 { 0x7265_636F_6E6E_6563 }

    /// Queues the client at `position` for reconnect attempt `attempt` after its backoff; one past its tries gives up
    /// (an event).
    func scheduleReconnect(position: Int, attempt: Int) {
        guard let backoff, !runIsOver, !control.isStopRequested else { return }
        guard backoff.allows(attempt: attempt) else {
            report.gaveUp += 1
            record(client: ids.lowerBound + position, reason: "gave up reconnecting after \(attempt) tries")
            return
        }
        let due = MonotonicClock.now() &+ backoff.delay(attempt: attempt, random: &backoffRandom)
        pendingReconnects.append((due, position, attempt))
        armConnectTimer()
    }

    /// Starts the reconnects that are due, as many as ``EchoClients/reconnectWindow`` takes; the rest wait for the timer
    /// or a free place in the window.
    func startDueReconnects() {
        guard !pendingReconnects.isEmpty else { return }
        if runIsOver || control.isStopRequested {
            pendingReconnects.removeAll()
            return
        }
        let now = MonotonicClock.now()
        var index = 0
        while index < pendingReconnects.count && table.connecting < Self.reconnectWindow {
            guard pendingReconnects[index].due <= now else {
                index += 1
                continue
            }
            pendingReconnects.swapAt(index, pendingReconnects.count - 1)  // the order does not matter: O(1)
            let (_, position, attempt) = pendingReconnects.removeLast()
            reconnect(position: position, attempt: attempt)
        }
        armConnectTimer()
    }

    /// Connects the client at `position` again; a connect that fails at once is the attempt failing.
    private func reconnect(position: Int, attempt: Int) {
        attempts[position] = attempt
        do {
            table.restarted(position, try startConnect(position: position))
        } catch {
            scheduleReconnect(position: position, attempt: attempt + 1)
        }
    }

    /// Arms the timer for the earliest pending reconnect or the next paced first connect; with neither it is left as
    /// it is (firing once more does nothing).
    func armConnectTimer() {
        guard let earliest = [pendingReconnects.lazy.map(\.due).min(), table.nextDue].compactMap({ $0 }).min() else { return }
        try? connectTimer.arm(at: max(earliest, 1))
    }
}
