import BenchCore
import BenchNet

/// What the run's one measuring loop asks of the built-in server beyond its events: whether a broadcast may go, and
/// whether everyone is gone.
extension BenchServer {
    /// With every client away (they may come back), a broadcast would go to nobody and wait for nothing: the next one
    /// waits for a client to be back, as closed-loop roundtrip's parked clients do.
    func mayBroadcast(at now: UInt64) -> Bool {
        !(configuration.expectsReconnects && liveClients == 0)
    }

    /// No client left and, when they may come back, none came back in time.
    func isEveryoneGone(at now: UInt64) -> Bool {
        liveClients == 0 && !isWaitingForReturns(at: now)
    }
}
