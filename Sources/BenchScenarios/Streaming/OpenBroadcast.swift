/// A fanout broadcast, or a chat message, whose deliveries a ``RunCollector`` is counting until its end comes.
struct OpenBroadcast: Sendable {
    let sequence: Int
    let sender: Int
    private(set) var delivered = 0
    var undelivered = 0
    /// The earliest and latest receive time of its deliveries (meaningful once one was delivered).
    private(set) var firstReceived = UInt64.max
    private(set) var lastReceived = UInt64.min

    /// One delivery received at `time`.
    mutating func delivered(at time: UInt64) {
        delivered += 1
        firstReceived = min(firstReceived, time)
        lastReceived = max(lastReceived, time)
    }

    /// The place of broadcast `sequence` of `sender` in `open`, added if it is not there. The latest is looked at
    /// first: one ledger's stream has one open at a time (or a few a moment, beside a chat message whose send failed
    /// and whose losses have no end of their own), merged shards' a few.
    static func place(of sequence: Int, sender: Int, in open: inout [OpenBroadcast]) -> Int {
        var place = open.count - 1
        while place >= 0 && (open[place].sequence != sequence || open[place].sender != sender) { place -= 1 }
        guard place < 0 else { return place }
        open.append(OpenBroadcast(sequence: sequence, sender: sender))
        return open.count - 1
    }

    /// Takes broadcast `sequence` of `sender` out of `open` (empty if nothing of it came), and every one before it:
    /// broadcasts end in order, so one before it that is still open never ends (a chat message whose send failed:
    /// its deliveries were counted as lost, and it has no spread).
    static func close(_ sequence: Int, sender: Int, in open: inout [OpenBroadcast]) -> OpenBroadcast {
        var closed = OpenBroadcast(sequence: sequence, sender: sender)
        open.removeAll { broadcast in
            if broadcast.sequence == sequence && broadcast.sender == sender { closed = broadcast }
            return (broadcast.sequence, broadcast.sender) <= (sequence, sender)
        }
        return closed
    }
}
