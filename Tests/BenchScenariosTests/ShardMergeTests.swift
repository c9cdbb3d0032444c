@testable import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// The server shards' streams made one (`--server-procs`), from entries alone: a broadcast's t0 is the earliest
/// shard's, its messages are measured from there, the run's ids come from the shares, intervals end once every shard's
/// did, and a shard that dies loses what it did not deliver.
@Suite struct ShardMergeTests {
    private func configuration(_ scenario: Scenario, clients: Int, messages: Int = 3) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: scenario, seed: 5)
        configuration.clients = clients
        configuration.messages = messages
        configuration.warmup = 0
        return configuration
    }

    /// Shard-local client `client`'s delivery of broadcast `sequence`, received at `received`, in a broadcast whose own
    /// first write (this shard's) was at `start`.
    private func message(_ sequence: Int, client: Int, received: UInt64, start: UInt64) -> SettledMessage {
        SettledMessage(
            kind: .message, outcome: .echoed, sequence: sequence, client: client, scheduled: 1_000, written: start,
            received: received, echoed: received + 10, broadcastStart: start)
    }

    private func broadcast(_ sequence: Int, start: UInt64) -> SettledMessage {
        SettledMessage(kind: .broadcast, sequence: sequence, scheduled: 1_000, broadcastStart: start)
    }

    /// A shard's word that broadcast `sequence` began, its own first write at `start`.
    private func began(_ sequence: Int, start: UInt64) -> SettledMessage {
        SettledMessage(kind: .broadcastBegan, sequence: sequence, scheduled: 1_000, broadcastStart: start)
    }

    @Test func aBroadcastIsOneAcrossTheShardsFromTheEarliestShardsFirstWrite() {
        var merge = ShardMerge(shares: [0..<2, 2..<3], configuration: configuration(.fanout, clients: 3))
        var out: [SettledMessage] = []
        // Shard 0 wrote first at 2_000; shard 1 at 2_050.
        for entry in [SettledMessage(kind: .start, scheduled: 7), began(0, start: 2_000), message(0, client: 0, received: 2_100, start: 2_000),
                      message(0, client: 1, received: 2_300, start: 2_000), broadcast(0, start: 2_000)] {
            merge.take(entry, from: 0)
        }
        merge.advance { out.append($0) }
        #expect(out.isEmpty, "shard 1 has not said when it began broadcast 0: its t0 is still to come")
        merge.take(began(0, start: 2_050), from: 1)
        merge.take(message(0, client: 0, received: 2_200, start: 2_050), from: 1)
        merge.take(broadcast(0, start: 2_050), from: 1)
        merge.advance { out.append($0) }
        #expect(out.map(\.kind) == [.message, .message, .message, .broadcast])
        #expect(out.filter { $0.kind == .message }.map(\.client).sorted() == [0, 1, 2])
        #expect(out.allSatisfy { $0.broadcastStart == 2_000 }, "every message measured from the broadcast's one t0")
        let reader = SettledMessageReader(configuration(.fanout, clients: 3))
        #expect(out.compactMap(reader.delivery).sorted() == [100, 200, 300])
    }

    /// A shard's messages go on as they come once every shard said the broadcast began, whatever the others settled:
    /// the run's process holds no shard's part waiting for a slower shard's (800 bytes a connection at 100,000 when
    /// it did). The collector counts two broadcasts open at once apart: each one's spread and losses its own.
    @Test func aFasterShardsMessagesGoOnWithoutWaitingForTheSlowerShardsPart() {
        let configuration = configuration(.fanout, clients: 4)
        var merge = ShardMerge(shares: [0..<2, 2..<4], configuration: configuration)
        var out: [SettledMessage] = []
        merge.take(SettledMessage(kind: .start, scheduled: 0), from: 0)
        for sequence in 0...1 {
            let start = UInt64(sequence + 1) * 1_000_000
            merge.take(began(sequence, start: start), from: 1)
            merge.take(began(sequence, start: start + 10), from: 0)
            for client in 0..<2 {
                merge.take(message(sequence, client: client, received: start + 100 * UInt64(client + 1), start: start + 10), from: 0)
            }
            merge.take(broadcast(sequence, start: start + 10), from: 0)
        }
        merge.advance { out.append($0) }
        #expect(out.map(\.kind) == [.message, .message, .message, .message], "shard 0's two parts, nothing held")
        #expect(out.allSatisfy { $0.broadcastStart == UInt64($0.sequence + 1) * 1_000_000 }, "t0: shard 1 began first")
        merge.take(message(0, client: 0, received: 1_000_500, start: 1_000_000), from: 1)
        merge.take(message(0, client: 1, received: 1_000_300, start: 1_000_000), from: 1)
        merge.take(broadcast(0, start: 1_000_000), from: 1)
        merge.advance { out.append($0) }
        #expect(out.suffix(3).map(\.kind) == [.message, .message, .broadcast], "broadcast 0 ends once both settled it")
        #expect(out.last?.broadcastStart == 1_000_000)
        var collector = RunCollector(configuration: configuration)
        var results: [BroadcastResult] = []
        for entry in out { if case .broadcast(let result) = collector.add(entry) { results.append(result) } }
        #expect(results.map(\.sequence) == [0])
        #expect(results.first?.delivered == 4 && results.first?.lost == 0)
        #expect(results.first?.spread == 500 - 100, "the first and last delivery of broadcast 0, not of broadcast 1")
    }

    @Test func anIntervalEndsOnceEveryShardEndedItAndTheRunEndsWithTheLastShard() {
        var merge = ShardMerge(shares: [0..<1, 1..<2], configuration: configuration(.fanout, clients: 2))
        var out: [SettledMessage] = []
        merge.take(SettledMessage(kind: .intervalEnd, sequence: 0, scheduled: 1_000), from: 0)
        merge.advance { out.append($0) }
        #expect(out.isEmpty)
        merge.take(SettledMessage(kind: .intervalEnd, sequence: 0, scheduled: 1_200), from: 1)
        merge.take(SettledMessage(kind: .end), from: 1)
        merge.advance { out.append($0) }
        #expect(out == [SettledMessage(kind: .intervalEnd, sequence: 0, scheduled: 1_200)])
        #expect(!merge.isFinished, "shard 0 goes on")
        merge.take(SettledMessage(kind: .intervalEnd, sequence: 1, scheduled: 1_500), from: 0)
        merge.take(SettledMessage(kind: .end), from: 0)
        merge.advance { out.append($0) }
        #expect(out.suffix(2) == [SettledMessage(kind: .intervalEnd, sequence: 1, scheduled: 1_500), SettledMessage(kind: .end)])
        #expect(merge.isFinished)
    }

    @Test func aShardThatDiesKeepsWhatItSettledAndLosesTheRest() {
        var merge = ShardMerge(shares: [0..<2, 2..<4], configuration: configuration(.fanout, clients: 4))
        var out: [SettledMessage] = []
        for shard in 0..<2 {
            merge.take(began(0, start: 2_000), from: shard)
            merge.take(message(0, client: 0, received: 2_100, start: 2_000), from: shard)
            merge.take(message(0, client: 1, received: 2_100, start: 2_000), from: shard)
            merge.take(broadcast(0, start: 2_000), from: shard)
        }
        merge.take(began(1, start: 3_000), from: 1)
        merge.take(message(1, client: 0, received: 3_100, start: 3_000), from: 1)  // its part cut off by its death
        merge.shardDied(1, at: 3_050) { out.append($0) }
        for sequence in 1...2 {
            merge.take(began(sequence, start: 3_000), from: 0)
            for client in 0..<2 { merge.take(message(sequence, client: client, received: 3_100, start: 3_000), from: 0) }
            merge.take(broadcast(sequence, start: 3_000), from: 0)
        }
        merge.take(SettledMessage(kind: .end), from: 0)
        merge.advance { out.append($0) }
        let messages = out.filter { $0.kind == .message }
        #expect(messages.count == 12, "3 broadcasts to 4 clients")
        #expect(messages.filter { $0.sequence == 0 }.allSatisfy { $0.outcome == .echoed }, "settled before the death")
        #expect(messages.contains { $0.sequence == 1 && $0.client == 2 && $0.outcome == .echoed }, "settled before the death")
        let lost = messages.filter { $0.outcome == .writtenThenClosed }
        #expect(lost.map { [$0.sequence, $0.client] }.sorted { $0.lexicographicallyPrecedes($1) } == [[1, 3], [2, 2], [2, 3]])
        #expect(merge.lostToDeath == [0, 3])
        #expect(out.filter { $0.kind == .broadcast }.map(\.sequence) == [0, 1, 2])
        #expect(out.last?.kind == .end)
    }

    /// A dead shard's part still waiting in its queue for another shard's t0 is taken, not lost: the broadcast ends
    /// only once no shard's entries can move (here the dead shard is the first, drained before the one it waits for).
    @Test func aDeadShardsPartThatWaitedForAnotherShardsT0IsKept() {
        var merge = ShardMerge(shares: [0..<2, 2..<4], configuration: configuration(.fanout, clients: 4, messages: 1))
        var out: [SettledMessage] = []
        for entry in [began(0, start: 2_000), message(0, client: 0, received: 2_100, start: 2_000),
                      message(0, client: 1, received: 2_200, start: 2_000), broadcast(0, start: 2_000)] {
            merge.take(entry, from: 0)
        }
        merge.shardDied(0, at: 2_500) { out.append($0) }
        #expect(out.isEmpty, "broadcast 0's t0 waits for shard 1")
        for entry in [began(0, start: 1_900), message(0, client: 0, received: 2_300, start: 1_900),
                      message(0, client: 1, received: 2_400, start: 1_900), broadcast(0, start: 1_900), SettledMessage(kind: .end)] {
            merge.take(entry, from: 1)
        }
        merge.advance { out.append($0) }
        #expect(out.map(\.kind) == [.message, .message, .message, .message, .broadcast, .end])
        #expect(out.filter { $0.kind == .message }.allSatisfy { $0.outcome == .echoed && $0.broadcastStart == 1_900 })
        #expect(merge.lostToDeath == [0, 0])
    }

    /// A shard whose stream ends without the end of a broadcast it began (a stream that is none) holds no broadcast:
    /// its clients' messages of it are lost, and the run ends.
    @Test func aShardThatEndsWithoutSettlingABroadcastItBeganHoldsNothing() {
        var merge = ShardMerge(shares: [0..<1, 1..<2], configuration: configuration(.fanout, clients: 2))
        var out: [SettledMessage] = []
        for shard in 0..<2 { merge.take(began(0, start: 2_000), from: shard) }
        merge.take(SettledMessage(kind: .end), from: 0)
        merge.take(message(0, client: 0, received: 2_100, start: 2_000), from: 1)
        merge.take(broadcast(0, start: 2_000), from: 1)
        merge.take(SettledMessage(kind: .end), from: 1)
        merge.advance { out.append($0) }
        #expect(out.map(\.kind) == [.message, .message, .broadcast, .end])
        #expect(out.filter { $0.kind == .message }.map(\.outcome) == [.echoed, .writtenThenClosed])
        #expect(merge.isFinished)
    }

    @Test func aRoundtripShardThatDiesLosesItsClientsMessagesUpToTheRunsLast() {
        // A --duration run's bound is 2^32 messages a client: what a dead shard's clients lose ends where the run did.
        var configuration = configuration(.roundtrip, clients: 2)
        configuration.duration = 60_000_000_000
        var merge = ShardMerge(shares: [0..<1, 1..<2], configuration: configuration)
        var out: [SettledMessage] = []
        merge.take(message(0, client: 0, received: 10, start: 5), from: 1)
        merge.advance { out.append($0) }
        #expect(out.map(\.client) == [1], "a roundtrip message goes on as it comes, by the run's id")
        merge.shardDied(1, at: 99) { out.append($0) }
        for sequence in 0...2 { merge.take(message(sequence, client: 0, received: 10, start: 5), from: 0) }
        merge.take(SettledMessage(kind: .end), from: 0)
        merge.advance { out.append($0) }
        let lost = out.filter { $0.outcome == .writtenThenClosed }
        #expect(lost.map(\.sequence) == [1, 2] && lost.allSatisfy { $0.client == 1 && $0.scheduled == 99 })
        #expect(merge.lostToDeath == [0, 2])
        #expect(out.last?.kind == .end)
    }

    @Test func entriesNoShardCouldSendAreNotTaken() {
        var merge = ShardMerge(shares: [0..<1, 1..<2], configuration: configuration(.roundtrip, clients: 2))
        var out: [SettledMessage] = []
        merge.take(message(0, client: Int(Int64.max), received: 10, start: 5), from: 1)
        merge.take(message(Int(Int64.max), client: 0, received: 10, start: 5), from: 1)
        merge.take(SettledMessage(kind: .intervalEnd, sequence: Int(Int64.max), scheduled: 1), from: 1)
        merge.advance { out.append($0) }
        #expect(out.isEmpty)
    }

    @Test func framesAreCutAlikeAtEverySplit() throws {
        let entry = message(7, client: 3, received: 123_456, start: 100_000)
        var body = [UInt8](repeating: 0, count: ShardFrame.entrySize)
        body.withUnsafeMutableBytes { ShardFrame.encode(entry, into: $0, at: 0) }
        let stream = ShardFrame.encode(.ready) + ShardFrame.encode(.entries, body: body) + ShardFrame.encode(.start, body: [1, 0, 0, 0, 0, 0, 0, 0])
        for split in 0...stream.count {
            var reader = ShardFrameReader()
            var frames: [(ShardFrame.Kind, [UInt8])] = []
            for part in [stream[..<split], stream[split...]] {
                try Array(part).withUnsafeBytes { bytes in try reader.take(bytes) { frames.append(($0, Array($1))) } }
            }
            #expect(frames.map(\.0) == [.ready, .entries, .start], "split at \(split)")
            let decoded = frames[1].1.withUnsafeBytes { ShardFrame.decodeEntry($0, at: 0) }
            #expect(decoded == entry)
        }
        var reader = ShardFrameReader()
        #expect(throws: ShardFrameReader.Malformed.self) {
            try [UInt8]([9, 0, 0, 0, 0]).withUnsafeBytes { try reader.take($0) { _, _ in } }
        }
    }

    @Test func aSummaryReadsBackAndAnyCutOfItIsRefused() {
        var summary = ShardSummary()
        summary.status = .failed
        summary.statusReason = "every client disconnected"
        summary.serverAddress = "127.0.0.1:4000"
        (summary.startNanoseconds, summary.endNanoseconds, summary.measuringThreadCPU) = (10, 2_000, 500)
        summary.busiestClientThreadPercent = 12.5
        summary.window = 11
        summary.events = [ConnectionEvent(side: .server, client: 1, time: 99, reason: "closed")]
        summary.eventCounts = [3, 0, 0, 0]
        summary.server.deadClients = [1]
        summary.queueFullDrops = [0, 2]
        summary.connectTimes = [5, 6]
        summary.connectPhases = [ConnectPhases(tcp: 0, tls: 2, webSocket: 3, subscribe: 0), nil]  // a TCP phase of 0 is one
        summary.outages = [ClientOutage(client: 1, closed: 50, back: 70)]
        let bytes = summary.encoded()
        #expect(bytes.withUnsafeBytes { ShardSummary(decoding: $0, clients: 2) } == summary)
        for cut in 0..<bytes.count {
            #expect(Array(bytes[..<cut]).withUnsafeBytes { ShardSummary(decoding: $0, clients: 2) } == nil, "cut at \(cut)")
        }
        #expect(bytes.withUnsafeBytes { ShardSummary(decoding: $0, clients: 1) } == nil, "client 1 is not one of 1")
    }
}
