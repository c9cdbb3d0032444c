/// How many clients' heartbeats a pass of a client thread owes, so that each of its clients sends one every
/// `--heartbeat` however late its passes come: the time since the last pass (at most one heartbeat's period), times
/// the clients started, in heartbeats. A thread busy with thousands of connects whose ticks come late still sends its
/// clients' heartbeats on time; counting one tick a pass sent a tenth of them when passes took a second, and the
/// server took quiet clients for dead.
struct HeartbeatCredit {
    /// Clients × nanoseconds owed, below one period's worth of a client.
    private var owed: UInt64 = 0
    /// When the last pass took its share (0: none did).
    private var last: UInt64 = 0

    /// The heartbeats owed at `now` to `clients` started, each owed one per `period`; a first pass owes one `tick`'s
    /// worth.
    mutating func take(clients: Int, at now: UInt64, period: UInt64, tick: UInt64) -> Int {
        guard period > 0, clients > 0 else { return 0 }
        let elapsed = last == 0 ? tick : min(now &- min(last, now), period)
        last = now
        owed += UInt64(clients) * elapsed  // below a period before: at most 2 × clients × period, in range
        let share = owed / period
        owed -= share * period
        return Int(min(share, UInt64(clients)))
    }
}
