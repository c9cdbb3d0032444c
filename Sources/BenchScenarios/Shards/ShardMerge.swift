import BenchClients
import BenchCore

/// The streams of a run's server shards (`--server-procs`) made into the run's one stream, on the one monotonic clock
/// every shard of the machine reads: each shard's entries in, the run's entries out.
///
/// - Clients: a shard numbers its share from 0; the run's id is the share's first plus that.
/// - Fanout: a broadcast is one across the shards. Its t0 is the earliest shard's first write (the kernel's stamp
///   where that shard's run has one), known once every shard still running said the broadcast began
///   (``SettledMessage/Kind/broadcastBegan``, which comes before its messages): from then on each message of it goes
///   on as it comes, measured from there, and the broadcast's end goes on once every shard that began it settled its
///   part, so that its spread and completion run over every shard's clients. A shard's messages wait for another
///   shard only until that one began the broadcast: as long as it is behind its timetable, no longer.
/// - Report intervals: the run's interval `n` ends once every shard's did (the latest shard's end time).
/// - A shard that died: what it settled is kept; every message of its clients it did not settle (in fanout, of each
///   broadcast from there on; in roundtrip, each still due) is lost (`connection_closed`: the kernel closed its
///   connections), so that what it did not deliver counts against the run.
public struct ShardMerge: Sendable {
    /// The clients of each shard, by the run's ids.
    public let shares: [Range<Int>]
    private let reader: SettledMessageReader
    private let isBroadcast: Bool
    private let sequencesPerClient: Int

    private var queues: [[SettledMessage]]
    private var heads: [Int]
    /// Per shard: its `.end` came (nothing after it is taken), its `.end` was reached, it died.
    private var ended: [Bool]
    private var finished: [Bool]
    private var dead: [Bool]
    /// Per shard: report intervals it ended so far.
    private var intervalsPassed: [Int]
    /// Per interval: the latest end a shard gave it.
    private var intervalEnds: [UInt64] = []
    private var intervalsEmitted = 0
    private var endEmitted = false
    /// Roundtrip: per client, the next sequence it may settle (for a dead shard's clients, what is still due), the
    /// highest any client settled, and when each dead shard died.
    private var nextSequence: [Int]
    private var highestSequence = -1
    private var deaths: [Int: UInt64] = [:]
    /// Fanout: the broadcasts begun and not yet ended, by sequence; per shard, the next broadcast it may say began
    /// (they come in order), and the broadcast whose messages it is handing on with which of its clients' came.
    private var broadcasts: [Int: Merging] = [:]
    private var nextBegun: [Int]
    private var streaming: [Int]
    private var streamingStart: [(UInt64, UInt64)]
    private var streamed: [[Bool]]
    /// Messages made lost for a dead shard, by shard.
    public private(set) var lostToDeath: [Int]

    /// One fanout broadcast being merged: the earliest beginning a shard gave it (its t0), which shards began it and
    /// which of those settled their part (their `.broadcast` came), with the first such entry.
    private struct Merging: Sendable {
        var beginning: SettledMessage
        var began: [Bool]
        var settled: [Bool]
        var end: SettledMessage?
    }

    /// A merge of shards holding `shares` (consecutive ranges of the run's clients) in a run of `configuration`.
    public init(shares: [Range<Int>], configuration: RunConfiguration) {
        self.shares = shares
        reader = SettledMessageReader(configuration)
        isBroadcast = configuration.scenario.isBroadcast
        sequencesPerClient = configuration.sequencesPerClient
        queues = Array(repeating: [], count: shares.count)
        heads = Array(repeating: 0, count: shares.count)
        ended = Array(repeating: false, count: shares.count)
        finished = ended
        dead = ended
        intervalsPassed = Array(repeating: 0, count: shares.count)
        nextSequence = Array(repeating: configuration.warmup, count: isBroadcast ? 0 : configuration.clients)
        nextBegun = Array(repeating: 0, count: shares.count)
        streaming = Array(repeating: -1, count: shares.count)
        streamingStart = Array(repeating: (0, 0), count: shares.count)
        let isBroadcast = configuration.scenario.isBroadcast
        streamed = shares.map { Array(repeating: false, count: isBroadcast ? $0.count : 0) }
        lostToDeath = Array(repeating: 0, count: shares.count)
    }

    /// True once the run's end was emitted: every shard ended or died, and all they sent went on.
    public var isFinished: Bool { endEmitted }

    /// Shard `shard`'s next entry, as it sent it. Nothing after its `.end` is taken.
    public mutating func take(_ entry: SettledMessage, from shard: Int) {
        guard !ended[shard], !dead[shard] else { return }
        queues[shard].append(entry)
        if entry.kind == .end { ended[shard] = true }
    }

    /// Shard `shard` is gone (at `time`) without its stream's end: what it settled is kept, the rest is lost.
    public mutating func shardDied(_ shard: Int, at time: UInt64, emit: (SettledMessage) -> Void) {
        guard !ended[shard], !dead[shard] else { return }
        if !isBroadcast {
            drain(shard, emit: emit)
            deaths[shard] = time  // its clients' messages still due are lost once the others are done (see below)
        }
        dead[shard] = true
        advance(emit: emit)
    }

    /// Roundtrip, once every shard ended or died: a dead shard's clients lose every message up to the last the run
    /// sent any client (no further: a run stopped early, or a `--duration` run, sends fewer than its bound).
    private mutating func loseWhatDeadShardsOwed(emit: (SettledMessage) -> Void) {
        let end = min(sequencesPerClient, highestSequence + 1)
        for (shard, time) in deaths.sorted(by: { $0.key < $1.key }) {
            for client in shares[shard] where nextSequence[client] < end {
                for sequence in nextSequence[client]..<end {
                    emit(SettledMessage(kind: .message, outcome: .writtenThenClosed, sequence: sequence, client: client, scheduled: time))
                    lostToDeath[shard] += 1
                }
                nextSequence[client] = end
            }
        }
        deaths = [:]
    }

    /// Emits everything the shards' entries so far make whole, in order.
    public mutating func advance(emit: (SettledMessage) -> Void) {
        guard !endEmitted else { return }
        // A shard's entries may wait for another's, taken after it: until nothing moves. A broadcast ends only once no
        // shard's entries can move (a dead shard's part of it may still be waiting in its queue).
        while true {
            var moved = false
            for shard in shares.indices where drain(shard, emit: emit) { moved = true }
            if !moved && !(isBroadcast && endNextBroadcast(emit: emit)) { break }
        }
        emitPassedIntervals(emit: emit)
        if shares.indices.allSatisfy({ (finished[$0] || dead[$0]) && heads[$0] == queues[$0].count }) && broadcasts.isEmpty {
            loseWhatDeadShardsOwed(emit: emit)
            emitPassedIntervals(emit: emit)
            emit(SettledMessage(kind: .end))
            endEmitted = true
        }
    }

    /// True once broadcast `sequence`'s t0 is known: every shard began it, or will not (it ended, or died and all it
    /// sent was taken).
    private func isBegun(_ sequence: Int) -> Bool {
        guard let merging = broadcasts[sequence] else { return false }
        return shares.indices.allSatisfy {
            merging.began[$0] || finished[$0] || (dead[$0] && heads[$0] == queues[$0].count) || nextBegun[$0] > sequence
        }
    }

    /// Takes shard `shard`'s leading entries in order, up to a message whose broadcast's t0 is not known yet. True when
    /// it took any.
    @discardableResult
    private mutating func drain(_ shard: Int, emit: (SettledMessage) -> Void) -> Bool {
        let first = heads[shard]
        defer { compact(shard) }
        while heads[shard] < queues[shard].count {
            let entry = queues[shard][heads[shard]]
            switch entry.kind {
            case .start: break
            case .end: finished[shard] = true
            case .intervalEnd:
                guard entry.sequence < 1 << 24 else { break }  // 194 days of 1 s intervals: none a run ends
                while intervalEnds.count <= entry.sequence {
                    intervalEnds.append(0)
                }
                intervalEnds[entry.sequence] = max(intervalEnds[entry.sequence], entry.scheduled)
                intervalsPassed[shard] = max(intervalsPassed[shard], entry.sequence + 1)
            case .message where !isBroadcast:
                // Not a client of its share, or a sequence no run has: not taken.
                guard entry.client < shares[shard].count, entry.sequence < sequencesPerClient else { break }
                var message = entry
                message.client += shares[shard].lowerBound
                nextSequence[message.client] = max(nextSequence[message.client], message.sequence + 1)
                highestSequence = max(highestSequence, message.sequence)
                emit(message)
            case .broadcastBegan where isBroadcast:
                began(entry, by: shard)
            case .message:
                guard entry.client < shares[shard].count else { break }  // not a client of its share: not taken
                if streaming[shard] != entry.sequence {  // the first of its part: its t0, once known
                    // Of a broadcast it did not say began: not taken.
                    guard let merging = broadcasts[entry.sequence], merging.began[shard] else { break }
                    guard isBegun(entry.sequence) else { return heads[shard] > first }  // its t0 is still to come
                    streaming[shard] = entry.sequence
                    streamingStart[shard] = (merging.beginning.broadcastStart, merging.beginning.broadcastStartKernel)
                    for client in streamed[shard].indices { streamed[shard][client] = false }
                }
                streamed[shard][entry.client] = true
                var message = entry
                message.client += shares[shard].lowerBound
                (message.broadcastStart, message.broadcastStartKernel) = streamingStart[shard]
                emit(message)
            case .broadcast:
                guard broadcasts[entry.sequence]?.began[shard] == true else { break }
                broadcasts[entry.sequence]!.settled[shard] = true
                if broadcasts[entry.sequence]!.end == nil { broadcasts[entry.sequence]!.end = entry }
            case .broadcastBegan: break
            }
            heads[shard] += 1
        }
        return heads[shard] > first
    }

    /// Shard `shard` said broadcast `beginning.sequence` began: its t0 is the earliest any shard gave.
    private mutating func began(_ beginning: SettledMessage, by shard: Int) {
        let sequence = beginning.sequence
        guard sequence >= nextBegun[shard], sequence < sequencesPerClient else { return }  // out of order: not taken
        nextBegun[shard] = sequence + 1
        var merging = broadcasts[sequence] ?? Merging(
            beginning: beginning, began: Array(repeating: false, count: shares.count),
            settled: Array(repeating: false, count: shares.count))
        let best = merging.beginning
        if beginning.broadcastStart != 0,
            best.broadcastStart == 0 || reader.broadcastStartTime(beginning) < reader.broadcastStartTime(best)
        {
            merging.beginning = beginning
        }
        merging.began[shard] = true
        broadcasts[sequence] = merging
    }

    private mutating func compact(_ shard: Int) {
        if heads[shard] == queues[shard].count {
            queues[shard].removeAll(keepingCapacity: true)
            heads[shard] = 0
        } else if heads[shard] > 4096 && heads[shard] * 2 > queues[shard].count {
            queues[shard].removeFirst(heads[shard])
            heads[shard] = 0
        }
    }

    /// Report intervals every shard still running ended (all of them once every shard is done).
    private mutating func emitPassedIntervals(emit: (SettledMessage) -> Void) {
        let running = shares.indices.filter { !(finished[$0] || dead[$0]) || heads[$0] < queues[$0].count }
        let passed = running.map { intervalsPassed[$0] }.min() ?? intervalEnds.count
        while intervalsEmitted < min(passed, intervalEnds.count) {
            emit(SettledMessage(kind: .intervalEnd, sequence: intervalsEmitted, scheduled: intervalEnds[intervalsEmitted]))
            intervalsEmitted += 1
        }
    }

    /// Fanout: the earliest broadcast begun, once every shard that began it settled its part or is gone: a gone shard's
    /// clients whose message of it did not come are lost (a dead one's in every broadcast after its death), then the
    /// broadcast's end goes on, with its one t0. False while it waits.
    private mutating func endNextBroadcast(emit: (SettledMessage) -> Void) -> Bool {
        // A shard gone (dead, or ended without settling its part: a stream that is none) no longer holds it.
        let gone = shares.indices.map { dead[$0] || (finished[$0] && heads[$0] == queues[$0].count) }
        guard let sequence = broadcasts.keys.min(), isBegun(sequence), let merging = broadcasts[sequence],
            shares.indices.allSatisfy({ !merging.began[$0] || merging.settled[$0] || gone[$0] })
        else { return false }
        let t0 = merging.beginning
        for shard in shares.indices where gone[shard] && !merging.settled[shard] && (dead[shard] || merging.began[shard]) {
            let came = merging.began[shard] && streaming[shard] == sequence
            for client in 0..<shares[shard].count where !(came && streamed[shard][client]) {
                emit(SettledMessage(
                    kind: .message, outcome: .writtenThenClosed, sequence: sequence, client: shares[shard].lowerBound + client,
                    scheduled: t0.scheduled, broadcastStart: t0.broadcastStart, broadcastStartKernel: t0.broadcastStartKernel))
                lostToDeath[shard] += 1
            }
        }
        var end = merging.end ?? SettledMessage(kind: .broadcast, sequence: sequence, scheduled: t0.scheduled)
        (end.broadcastStart, end.broadcastStartKernel) = (t0.broadcastStart, t0.broadcastStartKernel)
        emit(end)
        broadcasts[sequence] = nil
        return true
    }
}
