import BenchCore
import BenchNet

/// Heartbeats: a slice of the clients per tick, so that ten thousand clients do not all write at the same instant.
extension EchoClients {
    /// Sends heartbeats for this tick's share of the clients, round-robin, so that each gets one per heartbeat: the
    /// ticks' shares add up (a tick's fraction of a client carried to the next), as two clients at `--heartbeat 5s`
    /// each send one every 5 s, not one every other 100 ms tick; a late tick sends what its lateness owes
    /// (``HeartbeatCredit``).
    func sendHeartbeatSlice() {
        let started = table.connections.count
        guard started > 0 else { return }
        let share = heartbeatCredit.take(
            clients: started, at: MonotonicClock.now(), period: heartbeat, tick: min(heartbeat, Self.heartbeatTick))
        for _ in 0..<share {
            let position = heartbeatCursor
            heartbeatCursor = (heartbeatCursor + 1) % started
            guard let connection = table[position], connection.isOpen, !table.isSettingUp(position) else { continue }
            do {
                try sendHeartbeat(on: connection, position: position)
            } catch {
                record(client: ids.lowerBound + position, reason: "\(error)")
                close(position)
            }
        }
    }

    /// A WebSocket ping where the transport has one (as SocketRocket's heartbeat), a heartbeat frame otherwise.
    func sendHeartbeat(on connection: Connection<T>, position: Int) throws(SystemError) {
        if try connection.sendPing() {
            tally.heartbeatsSent += 1
            return
        }
        let session = sessions[position]
        session.heartbeat()
        var dropped = 0
        try sendOwed(by: session, on: connection, counting: &dropped)
        if dropped == 0 { tally.heartbeatsSent += 1 }
    }
}
