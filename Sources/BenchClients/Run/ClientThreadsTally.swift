import BenchNet

/// What the built-in server's client threads said of themselves when they ended: each thread's own, returned to its
/// process (``EchoClients/run()``), and the run's, their sum (``adding(_:)``).
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
