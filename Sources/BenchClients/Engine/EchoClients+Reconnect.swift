import BenchCore
import BenchNet

/// `--reconnect`: a client whose connection drops (closed without the server's goodbye) connects again after a backoff
/// with jitter (``ReconnectBackoff``), up to its number of tries, and says hello again; the server measures the outage
/// (close → hello accepted). Never after the goodbye or a stop.
extension EchoClients {
    /// Queues the client at `position` for its next try after its backoff (``ClientTable/lost(_:afterUse:at:)``); one
    /// past its tries gives up.
    func scheduleReconnect(position: Int, afterUse: Bool) {
        guard !runIsOver, !control.isStopRequested else { return }
        switch table.lost(position, afterUse: afterUse, at: MonotonicClock.now()) {
        case .tryAgain: armConnectTimer()
        case .gaveUp(let tries): gaveUp(position: position, tries: tries)
        case nil: break
        }
    }

    /// The client at `position` used its `tries`: it stays away (an event).
    func gaveUp(position: Int, tries: Int) {
        tally.gaveUp += 1
        record(client: ids.lowerBound + position, reason: ReconnectSchedule.gaveUpText(tries: tries), as: .gaveUp)
    }

    /// Arms the timer for the next connect due (a paced first connect, the earliest return); with none it is left as
    /// it is (firing once more does nothing).
    func armConnectTimer() {
        guard let due = table.nextConnectDue() else { return }
        try? connectTimer.arm(at: max(due, 1))
    }
}
