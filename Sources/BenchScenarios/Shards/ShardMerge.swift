import BenchCore

/// The streams of a run's server shards (`--server-procs`) made into the run's one stream, on the one monotonic clock
/// every shard of the machine reads: each shard's entries in, the run's entries out.
///
/// - Clients: a shard numbers its share from 0; the run's id is the share's first plus that.
/// - Fanout: a broadcast is one across the shards. Its t0 is the earliest shard's first write (the kernel's stamp
///   where that shard's run has one): every message of it is measured from there, and its spread and completion run
///   over every shard's clients. A broadcast goes on once every shard still running settled its part.
/// - Report intervals: the run's interval `n` ends once every shard's did (the latest shard's end time).
/// - A shard that died: its broadcasts settled before are kept; from there, each broadcast and (roundtrip) each of
///   its clients' messages still due is lost (`connection_closed`: the kernel closed its connections), so that what
///   it did not deliver counts against the run.
public struct ShardMerge: Sendable {
    /// The clients of each shard, by the run's ids.
    public let shares: [Range<Int>]
    private let reader: SettledMessageReader
    private let isBroadcast: Bool
    private let sequencesPerClient: Int
    private let warmup: Int

    private var queues: [[SettledMessage]]
    private var heads: [Int]
    /// Per shard: `.broadcast` entries waiting in its queue.
    private var waitingBroadcasts: [Int]
    private var ended: [Bool]
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
    /// Messages made lost for a dead shard, by shard.
    public private(set) var lostToDeath: [Int]

    /// A merge of shards holding `shares` (consecutive ranges of the run's clients) in a run of `configuration`.
    public init(shares: [Range<Int>], configuration: RunConfiguration) {
        self.shares = shares
        reader = SettledMessageReader(configuration)
        isBroadcast = configuration.scenario.isBroadcast
        sequencesPerClient = configuration.sequencesPerClient
        warmup = configuration.warmup
        queues = Array(repeating: [], count: shares.count)
        heads = Array(repeating: 0, count: shares.count)
        waitingBroadcasts = Array(repeating: 0, count: shares.count)
        ended = Array(repeating: false, count: shares.count)
        dead = Array(repeating: false, count: shares.count)
        intervalsPassed = Array(repeating: 0, count: shares.count)
        nextSequence = Array(repeating: configuration.warmup, count: isBroadcast ? 0 : configuration.clients)
        lostToDeath = Array(repeating: 0, count: shares.count)
    }

    /// True once the run's end was emitted: every shard ended or died, and all they sent went on.
    public var isFinished: Bool { endEmitted }

    /// Shard `shard`'s next entry, as it sent it. Nothing after its `.end` is taken.
    public mutating func take(_ entry: SettledMessage, from shard: Int) {
        guard !ended[shard], !dead[shard] else { return }
        if entry.kind == .broadcast { waitingBroadcasts[shard] += 1 }
        queues[shard].append(entry)
        if entry.kind == .end { ended[shard] = true }
    }

    /// Shard `shard` is gone (at `time`) without its stream's end: what it settled whole is kept, the rest is lost.
    public mutating func shardDied(_ shard: Int, at time: UInt64, emit: (SettledMessage) -> Void) {
        guard !ended[shard], !dead[shard] else { return }
        dead[shard] = true
        if isBroadcast {  // a broadcast cut off in the middle of its part: lost with the rest
            var last = queues[shard].count
            while last > heads[shard] && queues[shard][last - 1].kind != .broadcast { last -= 1 }
            queues[shard].removeSubrange(last...)
        } else {
            drain(shard, emit: emit)
            deaths[shard] = time  // its clients' messages still due are lost once the others are done (see below)
        }
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
        while !endEmitted {
            for shard in shares.indices { drain(shard, emit: emit) }
            emitPassedIntervals(emit: emit)
            if isBroadcast, mergeNextBroadcast(emit: emit) { continue }
            if shares.indices.allSatisfy({ (ended[$0] || dead[$0]) && heads[$0] == queues[$0].count }) {
                loseWhatDeadShardsOwed(emit: emit)
                emitPassedIntervals(emit: emit)
                emit(SettledMessage(kind: .end))
                endEmitted = true
            }
            return
        }
    }

    /// Takes shard `shard`'s leading entries that need no other shard: its start (the run has its own), its interval
    /// ends, its end, and in roundtrip its messages.
    private mutating func drain(_ shard: Int, emit: (SettledMessage) -> Void) {
        while heads[shard] < queues[shard].count {
            let entry = queues[shard][heads[shard]]
            switch entry.kind {
            case .start, .end: break
            case .intervalEnd:
                guard entry.sequence < 1 << 24 else { break }  // 194 days of 1 s intervals: none a run ends
                while intervalEnds.count <= entry.sequence {
                    intervalEnds.append(0)
                }
                if entry.sequence < intervalEnds.count { intervalEnds[entry.sequence] = max(intervalEnds[entry.sequence], entry.scheduled) }
                if entry.sequence < intervalEnds.count {
                    intervalsPassed[shard] = max(intervalsPassed[shard], entry.sequence + 1)
                }
            case .message where !isBroadcast:
                // Not a client of its share, or a sequence no run has: not taken.
                guard entry.client < shares[shard].count, entry.sequence < sequencesPerClient else { break }
                var message = entry
                message.client += shares[shard].lowerBound
                nextSequence[message.client] = max(nextSequence[message.client], message.sequence + 1)
                highestSequence = max(highestSequence, message.sequence)
                emit(message)
            case .message, .broadcast:
                compact(shard)
                return
            }
            heads[shard] += 1
        }
        compact(shard)
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
        let running = shares.indices.filter { !(ended[$0] || dead[$0]) || heads[$0] < queues[$0].count }
        let passed = running.map { intervalsPassed[$0] }.min() ?? intervalEnds.count
        while intervalsEmitted < min(passed, intervalEnds.count) {
            emit(SettledMessage(kind: .intervalEnd, sequence: intervalsEmitted, scheduled: intervalEnds[intervalsEmitted]))
            intervalsEmitted += 1
        }
    }

    /// Fanout: the next broadcast, once every shard with more to send settled its part: its messages measured from the
    /// broadcast's one t0, a dead shard's clients lost, then the broadcast itself. False while one still waits.
    private mutating func mergeNextBroadcast(emit: (SettledMessage) -> Void) -> Bool {
        var parts: [Int] = []
        for shard in shares.indices {
            if waitingBroadcasts[shard] > 0 {
                parts.append(shard)
            } else if !(ended[shard] || dead[shard]) {
                return false  // its part is still to come
            }
        }
        // Every part's next broadcast: the earliest sequence goes first (a shard stopped early has fewer).
        var markers: [Int: Int] = [:]
        for shard in parts {
            markers[shard] = queues[shard][heads[shard]...].firstIndex { $0.kind == .broadcast }!
        }
        guard let sequence = parts.map({ queues[$0][markers[$0]!].sequence }).min() else { return false }
        parts = parts.filter { queues[$0][markers[$0]!].sequence == sequence }
        var broadcast = queues[parts[0]][markers[parts[0]]!]
        for shard in parts.dropFirst() {
            let own = queues[shard][markers[shard]!]
            if own.broadcastStart != 0, broadcast.broadcastStart == 0 || reader.broadcastStartTime(own) < reader.broadcastStartTime(broadcast) {
                (broadcast.broadcastStart, broadcast.broadcastStartKernel) = (own.broadcastStart, own.broadcastStartKernel)
            }
        }
        for shard in parts {
            for index in heads[shard]..<markers[shard]! where queues[shard][index].kind == .message {
                var message = queues[shard][index]
                guard message.client < shares[shard].count else { continue }  // not a client of its share
                message.client += shares[shard].lowerBound
                (message.broadcastStart, message.broadcastStartKernel) = (broadcast.broadcastStart, broadcast.broadcastStartKernel)
                emit(message)
            }
            heads[shard] = markers[shard]! + 1
            waitingBroadcasts[shard] -= 1
        }
        for shard in shares.indices where dead[shard] && !parts.contains(shard) && waitingBroadcasts[shard] == 0 {
            for client in shares[shard] {
                emit(SettledMessage(
                    kind: .message, outcome: .writtenThenClosed, sequence: sequence, client: client,
                    scheduled: broadcast.scheduled, broadcastStart: broadcast.broadcastStart,
                    broadcastStartKernel: broadcast.broadcastStartKernel))
            }
            lostToDeath[shard] += shares[shard].count
        }
        emit(broadcast)
        return true
    }
}
