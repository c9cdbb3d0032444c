import BenchClients
import BenchCore
import BenchNet

/// One server process of a run with `--server-procs`: what run.csv and the summary say of it.
public struct ServerShardRecord: Sendable, Equatable {
    /// Its process id.
    public let processID: Int
    /// Its measuring thread's CPU time over its sending time (a chat relay process's: its relay thread's over its
    /// life), in percent; nil before it reported.
    public var measuringPercent: Double?
    /// Why it did not end as it should (it died, or could not run); nil when it did.
    public var failure: String?
}

extension RunRecording {
    /// What this run (a server shard's) tells the run's process at its end.
    public var shardSummary: ShardSummary {
        var summary = ShardSummary()
        summary.status = status
        summary.statusReason = statusReason
        summary.endedWhenDecided = endedWhenDecided
        summary.serverAddress = serverAddress
        summary.tlsCertificateFingerprint = tlsCertificateFingerprint
        (summary.startNanoseconds, summary.endNanoseconds) = (startNanoseconds, endNanoseconds)
        summary.measuringThreadCPU = measuringThreadCPU
        summary.measuringThreadRunQueueWait = measuringThreadRunQueueWait
        summary.busiestClientThreadPercent = busiestClientThreadPercent
        (summary.windowWaits, summary.writerWaits, summary.window) = (windowWaits, writerWaits, ledger.window)
        (summary.duplicateEchoes, summary.echoesAfterHandOn) = (ledger.duplicateEchoes, ledger.echoesAfterHandOn)
        summary.events = connectionEvents
        summary.eventCounts = [connectionsClosedEarly, clientSideEvents, listenerEvents, linkEvents]
        (summary.clientThreads, summary.server) = (clientThreads, server)
        (summary.queueFullDrops, summary.connectTimes, summary.outages) = (queueFullDrops, connectTimes, outages)
        summary.connectPhases = connectPhases
        return summary
    }

    /// The run's sending began at `start` (every shard was told it) and ended at `end`.
    mutating func shardsRan(from start: UInt64, to end: UInt64, startUnixNanoseconds unix: UInt64) {
        (startNanoseconds, endNanoseconds, startUnixNanoseconds) = (start, max(start, end), unix)
    }

    /// Shard `index`'s summary, its clients the run's `clients`: its counts added, its per-client facts in its share's
    /// places, its events and outages by the run's ids, how it ended weighed against the others (the worst counts).
    mutating func merge(shard summary: ShardSummary, _ index: Int, clients: Range<Int>) {
        let offset = clients.lowerBound
        if summary.status.severity > status.severity || (summary.status == status && statusReason == nil && summary.statusReason != nil) {
            status = summary.status
            statusReason = summary.statusReason.map { "server process \(index): \($0)" }
        }
        endedWhenDecided = endedWhenDecided || summary.endedWhenDecided
        serverAddress += (serverAddress.isEmpty ? "" : " ") + summary.serverAddress
        if tlsCertificateFingerprint.isEmpty { tlsCertificateFingerprint = summary.tlsCertificateFingerprint }
        // The busiest shard's measuring thread speaks for the harness: its share of its own sending time.
        let duration = summary.endNanoseconds - min(summary.startNanoseconds, summary.endNanoseconds)
        if duration > 0 {
            let share = min(1, Double(summary.measuringThreadCPU) / Double(duration))  // one thread: at most all of it
            let ours = sendingDuration == 0 ? 0 : Double(measuringThreadCPU) / Double(sendingDuration)
            if share > ours { measuringThreadCPU = UInt64(share * Double(max(sendingDuration, duration))) }
        }
        if let wait = summary.measuringThreadRunQueueWait {
            measuringThreadRunQueueWait = max(measuringThreadRunQueueWait ?? 0, wait)
        }
        if let busiest = summary.busiestClientThreadPercent {
            busiestClientThreadPercent = max(busiestClientThreadPercent ?? 0, busiest)
        }
        windowWaits += summary.windowWaits
        writerWaits += summary.writerWaits
        serverProcessWindow = max(serverProcessWindow, min(summary.window, configuration.sequencesPerClient))
        ledger.absorb(duplicateEchoes: summary.duplicateEchoes, echoesAfterHandOn: summary.echoesAfterHandOn)
        absorbEvents(summary.events, counts: summary.eventCounts, clientOffset: offset)
        clientThreads = clientThreads.adding(summary.clientThreads)
        absorb(server: summary.server, clientOffset: offset)
        for (place, client) in clients.enumerated() where place < summary.connectTimes.count {
            queueFullDrops[client] = summary.queueFullDrops[place]
            connectTimes[client] = summary.connectTimes[place]
            if place < summary.connectPhases.count, let phases = summary.connectPhases[place] {
                connected(client: client, after: summary.connectTimes[place], phases: phases)
            }
        }
        outages += summary.outages.prefix(max(0, Self.maximumOutages - outages.count)).map {
            ClientOutage(client: $0.client + offset, closed: $0.closed, back: $0.back)
        }
        noteCPU(summary.measuringThreadCPU, of: index, from: summary.startNanoseconds, to: summary.endNanoseconds)
    }

    /// What a server process's server did, its clients from `clientOffset` on: counts added, peaks kept.
    private mutating func absorb(server tally: BuiltInServerTally, clientOffset offset: Int) {
        server.heartbeatsReceived += tally.heartbeatsReceived
        server.deadClients += tally.deadClients.map { $0 + offset }
        server.connectionsDroppedAt = max(server.connectionsDroppedAt, tally.connectionsDroppedAt)
        server.peakQueuedBytes = max(server.peakQueuedBytes, tally.peakQueuedBytes)
        server.acceptFailures += tally.acceptFailures
        server.cpus.formUnion(tally.cpus)
        server.allowedCPUs.formUnion(tally.allowedCPUs)
        server.relayCPUTime += tally.relayCPUTime
    }

    /// Server process `index`'s thread took `cpu` of its time from `start` to `end`: its share in run.csv.
    private mutating func noteCPU(_ cpu: UInt64, of index: Int, from start: UInt64, to end: UInt64) {
        guard end > start, index < serverShards.count else { return }
        serverShards[index].measuringPercent = min(100, 100 * Double(cpu) / Double(end - start))
    }

    /// A chat run's relay processes as they ended (``ChatRelayProcesses``), hosting `members` each at `addresses`:
    /// each one's counts and events added, its relay thread's share of its life in run.csv; one that did not end with
    /// its summary, or ended on a signal of its own, fails the run, saying which (its members' messages were lost as
    /// their connections closed).
    mutating func merge(
        relays: [ServerProcess<ChatRelayProcesses.Relay>], members: [Int], at addresses: [SocketAddress],
        configuration: RunConfiguration
    ) {
        self.configuration = configuration
        serverAddress = addresses.map(\.description).joined(separator: " ")
        serverShards = relays.map { ServerShardRecord(processID: $0.channel.processID) }
        for (index, relay) in relays.enumerated() {
            if let summary = relay.summary {
                absorb(server: summary.server, clientOffset: 0)
                for event in summary.events { record(event) }
                noteCPU(summary.server.relayCPUTime, of: index, from: summary.startNanoseconds, to: summary.endNanoseconds)
            }
            guard relay.summary?.status != .complete else { continue }
            let how = relay.summary?.statusReason ?? relay.failure ?? "ended"
            shardFailed(index, reason: "(pid \(relay.channel.processID)) \(how) during the run: "
                + "its rooms' \(members[index]) members' messages from then on are lost")
        }
    }

    /// Shard `index` did not end as a shard should: the run failed, saying why (the first such reason).
    mutating func shardFailed(_ index: Int, reason: String) {
        if index < serverShards.count { serverShards[index].failure = reason }
        if status != .failed {
            status = .failed
            statusReason = "server process \(index) \(reason)"
        }
    }
}

extension RunStatus {
    /// How bad an end it is, to weigh shards' ends: complete, interrupted, failed.
    var severity: Int {
        switch self {
        case .complete: return 0
        case .interrupted: return 1
        case .failed: return 2
        }
    }
}
