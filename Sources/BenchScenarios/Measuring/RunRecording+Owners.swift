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

    /// What this process's client threads of the built-in server left when they ended: what they reported (each
    /// client's connect time, what happened to them during the run: what they saw after the server ended it, resets of
    /// connections closed with echoes still unread, is the teardown, not something that happened to the run), and each
    /// thread's tally and busy share.
    mutating func merge(clientThreads endings: [(reports: [UInt8], tally: ClientThreadsTally, busyPercent: Double?)]) {
        for ending in endings {
            for report in ClientReport.all(in: ending.reports) {
                guard let refusal = take(clientReport: report, of: configuration.localClients) else { continue }
                record(ConnectionEvent(
                    side: .clients, client: nil, time: MonotonicClock.now(), reason: "a client thread reported \(refusal)"))
            }
            clientThreads = clientThreads.adding(ending.tally)
            if let busy = ending.busyPercent { keepBusiestClientThread(busy) }
        }
    }

    /// A report of the built-in server's clients `clients` (this process's, or an agent's with its time put on this
    /// clock), but for their load, which their owner takes: a client connected (its connect time, and its
    /// phases over a transport that has more than a TCP connect), or something that happened to one of them during
    /// the run (an event). Returns why it is not one of theirs (nil: taken).
    mutating func take(clientReport report: ClientReport, of clients: Range<Int>) -> String? {
        let client = Int(report.client)
        switch report.what {
        case .subscribed:
            guard clients.contains(client), (1...RunConfiguration.Limits.longestDuration).contains(report.time) else {
                return "a connect time of a client not its own, or of no time"
            }
            var phases: ConnectPhases?
            if !report.text.isEmpty {
                phases = ConnectPhases(text: report.text)
                guard phases?.addUp(to: report.time) == true else {
                    return "connect phases that do not read or do not add up to the connect time"
                }
            }
            connected(client: client, after: report.time, phases: phases)
        case .closed, .note, .gaveUp, .serverError:
            guard clients.contains(client) || report.client == ClientReport.noClient else {
                return "an event of a client not its own"
            }
            guard endNanoseconds == 0 || report.time < endNanoseconds else { return nil }  // the teardown
            record(ConnectionEvent(
                side: .clients, client: report.client == ClientReport.noClient ? nil : client, time: report.time,
                reason: report.text))
        case .returned, .load, .link, .linkEvent, .linkLateness:
            return "\(report.what) report, which is not a client's"
        }
        return nil
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
