import BenchCore

/// Connects that took about as long as a lost SYN waits before Linux sends it again (1 s, then 2 s more): a cluster
/// there is a herd of connects overflowing the server's accept backlog (its listen queue drops the SYNs it has no room
/// for), not the server's speed.
public enum SynRetries {
    /// The connect times that fall just past a SYN retransmission: 1.0–1.25 s or 3.0–3.25 s.
    static let windows: [Range<UInt64>] = [1_000_000_000..<1_250_000_000, 3_000_000_000..<3_250_000_000]

    /// How many of `connectTimes` (ns; 0: not connected) fall just past a SYN retransmission.
    public static func count(in connectTimes: [UInt64]) -> Int {
        connectTimes.reduce(0) { count, time in windows.contains { $0.contains(time) } ? count + 1 : count }
    }

    /// How many of `recording`'s connects waited for a SYN sent again: their TCP connect where the connect was timed
    /// in phases (a target's, the built-in server's clients' over tls, ws and wss), so that a slow TLS or WebSocket
    /// handshake, or a slow login, is not taken for one; the whole connect otherwise. Clients behind an emulated link
    /// are left out: their TCP connect is the link's handshake (``LinkProfile/handshakeEnd(startingAt:origin:seed:stream:)``),
    /// whose round trip may be a second itself (`verybad`'s) and whose lost SYNs wait as the kernel's do.
    public static func count(in recording: RunRecording) -> Int {
        let phases = recording.connectPhases
        let linked = linkedClients(of: recording)
        return count(in: recording.connectTimes.indices.map { client in
            if client < linked.count && linked[client] { return 0 }
            return client < phases.count ? phases[client]?.tcp ?? recording.connectTimes[client] : recording.connectTimes[client]
        })
    }

    /// Per client of `recording`'s run, whether it was behind an emulated link (the run's `--link`, or its agent's own);
    /// empty when none was.
    static func linkedClients(of recording: RunRecording) -> [Bool] {
        let configuration = recording.configuration
        if let mix = configuration.link {
            let linked = mix.groups.map { $0.profile != nil }
            return mix.deal(clients: configuration.clients, seed: configuration.seed).map { linked[Int($0)] }
        }
        guard let grouping = LinkGrouping.of(recording.agents, clients: configuration.clients) else { return [] }
        return grouping.groupOfClient.map { grouping.names[Int($0)] != "none" }
    }

    /// The note a person needs when the machine's accept queues overflowed `overflows` times during a run (any
    /// listener's: the kernel counts them for its network namespace); nil for none or unknown.
    public static func overflowNote(_ overflows: UInt64?) -> String? {
        guard let overflows, overflows > 0 else { return nil }
        return "accept queues overflowed \(overflows) time\(overflows == 1 ? "" : "s") during the run (ListenOverflows in "
            + "/proc/net/netstat, any listener on this machine): those connects' SYNs were dropped and sent again; "
            + "raise the backlog (listen's, net.core.somaxconn) or connect more slowly (--connect-rate)"
    }

    /// The note a person needs when at least 1% (and 2) of `total` connects were such: nil otherwise.
    public static func note(count: Int, of total: Int) -> String? {
        guard count >= 2, total > 0, count * 100 >= total else { return nil }
        let percent = DecimalText.fixed(100 * Double(count) / Double(total), fractionDigits: 1)
        return "\(count) of \(total) connects (\(percent)%) took about 1 s or 3 s, the time a lost SYN waits to be sent "
            + "again: the server's accept backlog (its listen queue) likely overflowed under the herd of connects; "
            + "raise it (listen's backlog, net.core.somaxconn) or connect more slowly"
    }
}
