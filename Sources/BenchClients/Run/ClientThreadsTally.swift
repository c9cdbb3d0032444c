import BenchNet

/// What the built-in server's client threads said of themselves when they ended: each thread's own, sent as its last
/// report (``ClientReport/What/threadEnded``, ``text``), and the run's, their sum (``adding(_:)``).
public struct ClientThreadsTally: Sendable, Equatable {
    /// Echoes the clients could not send because their write queue was full.
    public var droppedEchoes = 0
    /// Heartbeats the clients sent.
    public var heartbeatsSent = 0
    /// `--reconnect`: hellos the clients said again after a drop, and clients that gave up.
    public var reconnects = 0
    public var gaveUp = 0
    /// CPUs the client threads were seen running on, and were allowed to run on.
    public var cpus = CPUSet()
    public var allowedCPUs = CPUSet()

    public init() {}

    /// The counts and CPU sets as a thread's last report carries them: `dropped_echoes=0 heartbeats=3 reconnects=0
    /// gave_up=0 cpus=0-1 allowed=0-1`.
    public var text: String {
        "dropped_echoes=\(droppedEchoes) heartbeats=\(heartbeatsSent) reconnects=\(reconnects) gave_up=\(gaveUp) "
            + "cpus=\(cpus) allowed=\(allowedCPUs)"
    }

    /// The tally ``text`` wrote; nil for anything else (every field, in its order, a count within `0...limit`).
    public init?(text: String, limit: Int) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        let names = ["dropped_echoes", "heartbeats", "reconnects", "gave_up", "cpus", "allowed"]
        guard fields.count == names.count else { return nil }
        var values: [Substring] = []
        for (field, name) in zip(fields, names) {
            guard field.hasPrefix(name + "=") else { return nil }
            values.append(field.dropFirst(name.count + 1))
        }
        let counts = values.prefix(4).compactMap { Int($0) }.filter { (0...limit).contains($0) }
        guard counts.count == 4, let cpus = CPUSet(values[4]), let allowed = CPUSet(values[5]) else { return nil }
        (droppedEchoes, heartbeatsSent, reconnects, gaveUp) = (counts[0], counts[1], counts[2], counts[3])
        (self.cpus, allowedCPUs) = (cpus, allowed)
    }

    /// This tally with `other`'s counts added and its CPUs joined.
    public func adding(_ other: ClientThreadsTally) -> ClientThreadsTally {
        var sum = self
        sum.droppedEchoes += other.droppedEchoes
        sum.heartbeatsSent += other.heartbeatsSent
        sum.reconnects += other.reconnects
        sum.gaveUp += other.gaveUp
        sum.cpus.formUnion(other.cpus)
        sum.allowedCPUs.formUnion(other.allowedCPUs)
        return sum
    }
}
