import BenchClients
import BenchCore
import BenchNet
import Glibc

/// The run's process of a run whose built-in server is in several processes (`--server-procs`,
/// ``RunConfiguration/serverShards``): it serves no client itself. It waits for every shard's clients, tells every
/// shard the one time sending begins, merges their settled streams into the run's (``ShardMerge``) as they come, and at
/// the end their summaries into the run's recording. A shard that dies is counted: its clients' messages from there
/// on are lost, and the run failed, saying which process and how it ended.
enum ShardedRun {
    /// How far ahead of the last shard's readiness sending begins: every shard hears of it before.
    static var startLead: UInt64 { 300_000_000 }

    /// How long past its end a shard may still be running before it is taken for hung and killed: its end is a
    /// timeout (and the stamps' grace) after it was asked to stop, or after the run's last send fell due and a
    /// quarter of the timetable more (a harness behind its timetable catches up).
    static var hangGrace: UInt64 { 10_000_000_000 }

    /// One shard as the run's process sees it: its state, whether it said it is ready.
    private typealias Shard = ServerProcess<Bool>

    static func run(_ configuration: RunConfiguration, control: RunControl, stream: SettledQueue) throws(RunError) -> RunRecording {
        let shares = (0..<configuration.clients).evenShares(configuration.serverShards.count)
        var shards = zip(configuration.serverShards, shares).map { Shard(channel: $0, clients: $1.count, state: false) }
        var recording = RunRecording(configuration: configuration, window: 0)  // the shards' ledgers hold the messages
        recording.serverShards = shards.map { ServerShardRecord(processID: $0.channel.processID) }
        let kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        recording.begin(serverAddress: "", kernelClock: kernelClock)
        let epoll: Epoll
        do {
            epoll = try Epoll()
            for (index, shard) in shards.enumerated() {
                try Posix.setNonBlocking(shard.channel.descriptor)
                try epoll.add(shard.channel.descriptor, interest: .readable, token: UInt64(index))
            }
            try epoll.add(control.serverWake.descriptor, interest: .readable, token: UInt64(shards.count))
        } catch {
            throw .system(error)
        }
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
        var merge = ShardMerge(shares: shares, configuration: configuration)
        var start: UInt64?
        var stopForwarded = false
        let lastDue = SendPlan.lastDue(of: configuration)
        let settling = configuration.timeout.addingClamped(MessageLedger.stampGrace).addingClamped(hangGrace)
        var hungAfter: (time: UInt64, reason: String)?  // when a shard still running is hung, and why
        var (dispatched, measured) = (0, 0)
        var startPushed = false
        let emit = { (entry: SettledMessage) in
            if entry.kind == .end && !startPushed {  // a run that never began: its stream still starts before it ends
                stream.push(SettledMessage(kind: .start))
                startPushed = true
            }
            stream.push(entry)
            if entry.kind == .message {
                dispatched += 1
                if entry.outcome.isMeasurement { measured += 1 }
            }
        }
        // Every shard's setup goes at once, each within the budget of its share; started a moment after this one.
        let began = MonotonicClock.now()
        let deadline = began + configuration.setupBudget + 30_000_000_000
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 8)
        defer { buffer.deallocate() }
        while shards.contains(where: { !$0.closed }) {
            if control.isStopRequested && !stopForwarded {  // each shard ends its run as this one was asked to
                stopForwarded = true
                signal(shards, SIGINT)
                let time = MonotonicClock.now().addingClamped(settling)
                if time < hungAfter?.time ?? .max { hungAfter = (time, "\(DurationText.display(settling)) after it was asked to stop") }
            }
            if let hung = hungAfter, MonotonicClock.now() > hung.time {
                for index in shards.indices where !shards[index].closed {
                    try? epoll.remove(shards[index].channel.descriptor)
                    shards[index].kill(because: "was still running \(hung.reason), and was killed")
                    merge.shardDied(index, at: MonotonicClock.now(), emit: emit)
                }
            }
            if start == nil, let reason = control.setupFailureReason {
                signal(shards, SIGINT)
                throw .setupFailed(reason)
            }
            if start == nil && MonotonicClock.now() > deadline {
                for index in shards.indices where !shards[index].closed { shards[index].kill(because: "was not ready in time") }
                let ready = shards.count(where: \.state)
                throw .setupFailed("\(ready) of \(shards.count) server processes had their clients within the setup time")
            }
            let count: Int
            do { count = try epoll.wait(timeoutMilliseconds: 100) } catch { throw .system(error) }
            for event in 0..<count {
                let index = Int(epoll.event(at: event).token)
                if index == shards.count { control.serverWake.drain(); continue }
                read(&shards[index], index, into: buffer, merge: &merge, emit: emit)
                if shards[index].closed {
                    try? epoll.remove(shards[index].channel.descriptor)
                    if start == nil, shards[index].summary == nil {
                        signal(shards, SIGINT)
                        throw .setupFailed("server process \(index) \(shards[index].failure ?? "ended before the run began")")
                    }
                    if shards[index].summary == nil {
                        merge.shardDied(index, at: MonotonicClock.now(), emit: emit)
                    }
                }
            }
            if start == nil, !stopForwarded, shards.allSatisfy(\.state) {
                let time = MonotonicClock.now() + startLead
                start = time
                recording.setupNanoseconds = time - startLead - began
                stream.push(SettledMessage(kind: .start, scheduled: time))
                startPushed = true
                for shard in shards {
                    try? Posix.sendAll(shard.channel.descriptor, ShardFrame.encode(.start, body: withUnsafeBytes(of: time.littleEndian, Array.init)))
                }
                recording.shardsRan(from: time, to: time, startUnixNanoseconds: WallClock.nowUnixNanoseconds() + startLead)
                control.isRunning.store(true, ordering: .relaxed)
                if let lastDue {
                    let past = (lastDue / 4).addingClamped(settling)
                    let end = time.addingClamped(lastDue).addingClamped(past)
                    if end < hungAfter?.time ?? .max { hungAfter = (end, "\(DurationText.display(past)) after the run's last send was due") }
                }
            }
            merge.advance(emit: emit)
            stream.publish()
            control.dispatchedMessages.store(dispatched, ordering: .relaxed)
            control.echoedMessages.store(measured, ordering: .relaxed)
        }
        merge.advance(emit: emit)
        if !merge.isFinished { emit(SettledMessage(kind: .end)) }
        stream.publish()
        recording.streamEnded = true
        recording.writerWaits = stream.producerWaits
        let end = shards.compactMap { $0.summary?.endNanoseconds }.max() ?? MonotonicClock.now()
        if let start { recording.shardsRan(from: start, to: end, startUnixNanoseconds: recording.startUnixNanoseconds) }
        for (index, shard) in shards.enumerated() {
            if let summary = shard.summary {
                recording.merge(shard: summary, index, clients: shares[index])
            } else {
                let lost = merge.lostToDeath[index]
                recording.shardFailed(index, reason: "(pid \(shard.channel.processID)) \(shard.failure ?? "ended") during the run: "
                    + "its \(shares[index].count) clients' \(lost) messages from then on are lost")
            }
        }
        if start == nil && recording.status == .complete {
            recording.ended(as: .failed, because: "no server process began sending")
        }
        recording.end(kernelClock: kernelClock)
        return recording
    }

    /// Reads what shard `index` sent: its frames taken, or its end (`closed`, with why when it did not end well).
    private static func read(
        _ shard: inout Shard, _ index: Int, into buffer: UnsafeMutableRawBufferPointer, merge: inout ShardMerge,
        emit: (SettledMessage) -> Void
    ) {
        shard.read(into: buffer) { kind, body, ready in
            switch kind {
            case .ready:
                ready = true
            case .entries:
                var offset = 0
                while offset + ShardFrame.entrySize <= body.count, let entry = ShardFrame.decodeEntry(body, at: offset) {
                    merge.take(entry, from: index)
                    offset += ShardFrame.entrySize
                }
                if offset != body.count { return "sent an entry that is none" }
            default:
                return "sent what no server process of this run sends"
            }
            return nil
        }
    }

    /// Sends `signal` to every shard still there.
    private static func signal(_ shards: [Shard], _ signal: Int32) {
        for shard in shards where !shard.closed { Posix.signal(pid_t(shard.channel.processID), signal) }
    }
}
