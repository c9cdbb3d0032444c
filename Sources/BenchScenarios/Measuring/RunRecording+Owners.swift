import BenchClients
import BenchCore
import BenchNet

/// What the run's parts tell a recording, each in its own words: the measuring role's start and end, the run's end
/// once its threads joined, the client threads' reports, a client's connect time, the agents and children, the chat
/// relay's counts, the built-in server's tally and outages (kept by ``BenchServer`` during the run, handed over once at
/// its end). Written directly, as things happen, are only the ledger and the measuring core's counters
/// (``RunRecording/windowWaits``, ``RunRecording/queueFullDrops``: ``MeasuringRole``).
extension RunRecording {
    /// A measuring role begins (the built-in server, a target's client side): the server's address, the wall clock
    /// (until sending begins) and the kernel clock's mapping, when the run uses kernel stamps.
    mutating func begin(serverAddress: String, kernelClock: KernelClockMapping?) {
        self.serverAddress = serverAddress
        startUnixNanoseconds = WallClock.nowUnixNanoseconds()
        kernelClockAtStart = kernelClock
    }

    /// Sending is over and every message settled (or its timeout passed) at `now`: the run's measured end.
    mutating func endMeasuring(at now: UInt64) {
        endNanoseconds = now
    }

    /// The run is over and its threads joined: where the server listened, if only known now (the built-in server's
    /// bound address), and the kernel clock measured again, when the run uses kernel stamps.
    mutating func end(serverAddress: String? = nil, kernelClock: KernelClockMapping?) {
        if let serverAddress { self.serverAddress = serverAddress }
        kernelClockAtEnd = kernelClock.map { _ in KernelClockMapping.measure() }
    }

    /// The server's certificate, when the built-in server spoke TLS: its fingerprint, for run.csv.
    mutating func served(certificateFingerprint: String) {
        tlsCertificateFingerprint = certificateFingerprint
    }

    /// The run's clients in child processes (or agents), listed for agents.csv.
    mutating func list(children: [AgentRecord]) {
        agents = children
    }

    /// An agent was admitted: listed for agents.csv (its index is the count before it).
    mutating func admit(_ agent: AgentRecord) {
        agents.append(agent)
    }

    /// Agent `agent` reported a round of its clock, measured at `now` on this clock.
    mutating func agent(_ agent: Int, measured estimate: ClockEstimate, at now: UInt64) {
        agents[agent].clock.add(estimate, at: now)
    }

    /// Client `client` connected (its handshakes done) `nanoseconds` after its connect began; with its `phases` where
    /// its thread timed them (a target's clients, the built-in server's in this process over tls, ws and wss).
    mutating func connected(client: Int, after nanoseconds: UInt64, phases: ConnectPhases? = nil) {
        connectTimes[client] = nanoseconds
        guard let phases else { return }
        if connectPhases.isEmpty { connectPhases = Array(repeating: nil, count: connectTimes.count) }
        connectPhases[client] = phases
    }

    /// What this process's client threads said when they ended: their tallies, their busiest share, each client's
    /// connect time, and what they saw during the run (what they saw after the server ended it, resets of connections
    /// closed with echoes still unread, is the teardown, not something that happened to the run).
    mutating func merge<T>(clientReports reports: [EchoClients<T>.Report]) {
        for report in reports {
            clientThreads.cpus.formUnion(report.observedCPUs)
            clientThreads.allowedCPUs.formUnion(report.allowedCPUs)
            clientThreads.droppedEchoes += report.droppedEchoes
            clientThreads.heartbeatsSent += report.heartbeats
            clientThreads.reconnects += report.reconnects
            clientThreads.gaveUp += report.gaveUp
            if let busy = report.busyPercent { keepBusiestClientThread(busy) }
            for connect in report.connectTimes {
                connected(client: connect.client, after: connect.nanoseconds, phases: connect.phases)
            }
            for event in report.events where event.time < endNanoseconds { record(event) }
        }
    }

    /// A client thread was this busy (percent of its life): the busiest is kept.
    mutating func keepBusiestClientThread(_ percent: Double) {
        busiestClientThreadPercent = max(busiestClientThreadPercent ?? 0, percent)
    }

    /// The measuring thread's own cost, at the end of measuring: its CPU time and its run-queue wait since sending
    /// began (nil: not known), and whether the sampling stopped the run once it was decided.
    mutating func measuringThreadEnded(cpu: UInt64?, runQueueWait: UInt64?, endedWhenDecided: Bool) {
        if let cpu { measuringThreadCPU = cpu }
        if let runQueueWait { measuringThreadRunQueueWait = runQueueWait }
        self.endedWhenDecided = endedWhenDecided
    }

    /// How the run ended, when it did not complete: interrupted or failed, and why.
    mutating func ended(as status: RunStatus, because reason: String) {
        self.status = status
        statusReason = reason
    }

    /// The built-in server's own tally and its clients' outages, kept by it during the run and handed over once when
    /// it ends.
    mutating func merge(serverTally: BuiltInServerTally, outages: [ClientOutage]) {
        server = serverTally
        self.outages = outages
    }

    /// The chat relay's counts, after its thread ended: it is the run's server.
    mutating func merge(relayCounts counts: ChatRelay.Counts, configuration: RunConfiguration) {
        self.configuration = configuration
        server.peakQueuedBytes = counts.peakQueuedBytes
        (server.cpus, server.allowedCPUs) = (counts.cpus, counts.allowedCPUs)
        server.relayCPUTime = counts.cpuTime
    }
}

extension RunRecording {
    /// True when the run reports its outages (`reconnects.csv`): as its settings say
    /// (``RunConfiguration/reportsOutages``), or where an agent brought a link of its own that may cut its clients off
    /// (a NAT that forgets idle connections, blackouts), which the settings could not know.
    public var reportsOutages: Bool {
        configuration.reportsOutages
            || agents.contains { $0.link.flatMap { try? LinkMix(parsing: $0) }?.hasOutages == true }
    }
}
