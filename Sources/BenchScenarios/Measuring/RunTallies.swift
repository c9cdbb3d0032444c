import BenchNet

/// What the built-in server counted of its connections during a run: its own, kept by it alone (``BenchServer``) and
/// handed to the recording at the end (``RunRecording/merge(serverTally:outages:)``), or for the chat relay, the run's server, from its counts when its thread ended
/// (``RunRecording/merge(relayCounts:configuration:)``).
public struct BuiltInServerTally: Sendable, Equatable {
    /// Heartbeats the server received.
    public var heartbeatsReceived = 0
    /// Clients the server disconnected because it heard nothing from them for `deadAfter`.
    public var deadClients: [Int] = []
    /// When the server closed every client's connection for `--drop-connections-at` (monotonic ns); 0: it did not.
    public var connectionsDroppedAt: UInt64 = 0
    /// The most bytes any one connection had waiting in its write queue.
    public var peakQueuedBytes = 0
    /// Times accept(2) failed on the listening socket (the connection skipped, or accepting paused).
    public var acceptFailures = 0
    /// CPUs the server's thread was seen running on, and was allowed to run on.
    public var cpus = CPUSet()
    public var allowedCPUs = CPUSet()
    /// The chat relay's thread's CPU time (ns), its whole life; 0 for the other servers, whose measuring thread's is
    /// ``RunRecording/measuringThreadCPU``.
    public var relayCPUTime: UInt64 = 0

    public init() {}
}
