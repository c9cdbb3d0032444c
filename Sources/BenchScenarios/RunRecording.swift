import BenchNet

/// The raw record of a run: every timestamp the server took or received, per message, in preallocated arrays.
///
/// Message `(sequence, client)` is at index `sequence * clients + client` of the per-message arrays; its
/// sequence number is its broadcast in fanout and its place in the client's series in roundtrip. A time of
/// 0 means "never happened". Warmup messages are included (they are the first `warmup` sequence numbers);
/// ``RunAnalysis`` leaves them out.
public struct RunRecording: Sendable {
    /// What was run.
    public var configuration: RunConfiguration
    /// How it ended.
    public var status: RunStatus = .complete
    /// Why it failed or stopped, for people; nil when complete.
    public var statusReason: String?
    /// The address the server listened on, with the port it got.
    public var serverAddress = ""
    /// TLS: the SHA-256 fingerprint of the certificate the server presented; empty on plain transports.
    public var tlsCertificateFingerprint = ""
    /// Monotonic time of schedule offset 0: when all clients were connected and sending began.
    public var startNanoseconds: UInt64 = 0
    /// Monotonic time when the last echo came in or the last timeout passed.
    public var endNanoseconds: UInt64 = 0
    /// Wall-clock time at ``startNanoseconds``, in nanoseconds since the Unix epoch.
    public var startUnixNanoseconds: UInt64 = 0
    /// When each send was due: per broadcast in fanout, per message in roundtrip (monotonic ns).
    public var scheduled: [UInt64]
    /// Fanout only: the time before the first write of each broadcast, t0(k).
    public var broadcastStart: [UInt64]
    /// Per message: the time right before the write system call, tw; 0 if never written.
    public var written: [UInt64]
    /// Per message: the time right after the client's read returned it, tr, as its echo reported.
    public var received: [UInt64]
    /// Per message: the time right after the server's read returned its echo.
    public var echoed: [UInt64]
    /// Per message: what became of it.
    public var outcome: [MessageOutcome]
    /// With kernel stamps (`timestamps` kernel or both; empty arrays otherwise), per message, monotonic ns, 0 when
    /// the kernel gave none: when the kernel handed the server's write on, when the segment reached the client,
    /// and when the echo reached the server.
    public var writtenKernel: [UInt64]
    public var receivedKernel: [UInt64]
    public var echoedKernel: [UInt64]
    /// Fanout with kernel stamps: t0 as the kernel saw it, the earliest send stamp of each broadcast (the
    /// user-space write time standing in for a missing stamp). Filled when the run ends.
    public var broadcastStartKernel: [UInt64]
    /// How kernel stamps (CLOCK_REALTIME) were put on the run's clock, read before the run and again after it.
    public var kernelClockAtStart: KernelClockMapping?
    public var kernelClockAtEnd: KernelClockMapping?
    /// Connections that closed early or were refused, with the reason: the first ``maximumEvents``.
    public private(set) var connectionEvents: [ConnectionEvent] = []
    /// Events beyond ``maximumEvents`` (a flood of stray connections), counted but not kept.
    public private(set) var eventsNotRecorded = 0
    /// Connections the server closed early or refused, whether their event was kept or not.
    public private(set) var connectionsClosedEarly = 0
    /// The most events a run keeps, so that a flood of connections cannot grow its memory without bound.
    public static let maximumEvents = 10_000
    /// Echoes the clients could not send because their write queue was full.
    public var droppedEchoes = 0
    /// Heartbeats the clients of this process sent.
    public var heartbeatsSent = 0
    /// Heartbeats the server received.
    public var heartbeatsReceived = 0
    /// Clients the server disconnected because it heard nothing from them for `deadAfter`.
    public var deadClients: [Int] = []
    /// Per client, messages not written because its write queue was full: the slow consumers.
    public var queueFullDrops: [Int]
    /// Per client of this process, from the start of its connect to the end of its transport's handshakes (ns); 0 for
    /// clients of other processes, whose connects were not seen here.
    public var connectTimes: [UInt64]
    /// The most bytes any one connection had waiting in its write queue.
    public var peakQueuedBytes = 0
    /// Times accept(2) failed on the listening socket (the connection skipped, or accepting paused).
    public var acceptFailures = 0
    /// Echoes that arrived twice for the same message (ignored after the first).
    public var duplicateEchoes = 0
    /// CPUs the server's thread was seen running on during the run.
    public var serverCPUs = CPUSet()
    /// CPUs the server's thread was allowed to run on.
    public var serverAllowedCPUs = CPUSet()
    /// CPUs the clients' thread was seen running on during the run.
    public var clientCPUs = CPUSet()
    /// CPUs the clients' thread was allowed to run on.
    public var clientAllowedCPUs = CPUSet()

    /// Empty storage for every message of `configuration`, allocated once, before the run.
    public init(configuration: RunConfiguration) {
        self.configuration = configuration
        let messages = configuration.totalMessages
        let sequences = configuration.sequencesPerClient
        self.scheduled = Array(repeating: 0, count: configuration.scenario == .fanout ? sequences : messages)
        self.broadcastStart = Array(repeating: 0, count: configuration.scenario == .fanout ? sequences : 0)
        self.written = Array(repeating: 0, count: messages)
        self.received = Array(repeating: 0, count: messages)
        self.echoed = Array(repeating: 0, count: messages)
        self.outcome = Array(repeating: .notDispatched, count: messages)
        let kernel = configuration.timestamps.usesKernel
        self.writtenKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.receivedKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.echoedKernel = Array(repeating: 0, count: kernel ? messages : 0)
        self.broadcastStartKernel = Array(repeating: 0, count: kernel && configuration.scenario == .fanout ? sequences : 0)
        self.queueFullDrops = Array(repeating: 0, count: configuration.clients)
        self.connectTimes = Array(repeating: 0, count: configuration.clients)
    }

    /// Records an event, or only counts it once ``maximumEvents`` are kept.
    public mutating func record(_ event: ConnectionEvent) {
        if event.side == .server { connectionsClosedEarly += 1 }
        if connectionEvents.count < Self.maximumEvents {
            connectionEvents.append(event)
        } else {
            eventsNotRecorded += 1
        }
    }

    /// The slow consumers: clients with messages dropped because their write queue was full, and how many.
    public var slowClients: [(client: Int, dropped: Int)] {
        queueFullDrops.enumerated().filter { $0.element > 0 }.map { (client: $0.offset, dropped: $0.element) }
    }

    /// Index of message `(sequence, client)` in the per-message arrays.
    @inline(__always)
    public func messageIndex(sequence: Int, client: Int) -> Int {
        sequence * configuration.clients + client
    }

    /// When message `index` was due: its own schedule in roundtrip, its broadcast's in fanout.
    public func scheduledTime(ofMessage index: Int) -> UInt64 {
        configuration.scenario == .fanout ? scheduled[index / configuration.clients] : scheduled[index]
    }
}
