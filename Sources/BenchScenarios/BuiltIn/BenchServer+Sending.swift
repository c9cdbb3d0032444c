import BenchCore
import BenchNet

extension BenchServer {
    /// Fanout: writes broadcast `sequence` to every client, in a new random order.
    ///
    /// t0 is the time taken before the first write; each write has its own time, taken right before it.
    func sendBroadcast(_ sequence: Int, scheduled: UInt64) {
        let clients = configuration.clients
        recording.ledger.due(broadcast: sequence, at: scheduled)
        driver.beginBroadcast(sequence)
        broadcastOrderRandom.shuffle(broadcastOrder)
        if let writers {
            writeInParallel(sequence, with: writers)
            driver.dispatched(clients, at: MonotonicClock.now())
            return
        }
        let frame = Frame(kind: .data, bytes: message)
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let index = recording.ledger.messageIndex(sequence: sequence, client: client)
            let slot = slotOfClient[client]
            let time = MonotonicClock.now()
            if position == 0 { recording.ledger.broadcastBegan(sequence, at: time) }
            if slot >= 0 && peers[slot].connection.isOpen {
                frame.setMessageFields(sequence: UInt32(sequence), client: UInt32(client), sentNanoseconds: time)
                write(index, to: slot, at: time, stamped: position == 0)
            } else {
                dropped(index, as: .droppedClosed)
            }
        }
        batch?.flush()  // io_uring: the broadcast's writes in one submission
        driver.dispatched(clients, at: MonotonicClock.now())
    }

    /// Fanout with `--server-threads`: the broadcast's writes shared among the writer threads and this one; t0 is the
    /// earliest first write of any thread.
    private func writeInParallel(_ sequence: Int, with writers: BroadcastWriters<T>) {
        let clients = configuration.clients
        writers.sequence = sequence
        writers.count = clients
        writers.stampFirstWrites = stamps != nil
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let slot = slotOfClient[client]
            let open = slot >= 0 && peers[slot].connection.isOpen
            writers.targets[position] = BroadcastWriters<T>.Target(
                connection: open ? Unmanaged.passUnretained(peers[slot].connection) : nil, client: UInt32(client))
        }
        writers.writeBroadcast(frame: message)
        var start = UInt64.max
        for position in 0..<min(writers.threads, clients) { start = min(start, writers.times[position]) }
        recording.ledger.broadcastBegan(sequence, at: start)
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let index = recording.ledger.messageIndex(sequence: sequence, client: client)
            let stamped = stamps != nil && position < writers.threads
            let slot = slotOfClient[client]
            record(writers.results[position], ofMessage: index, slot: slot, at: writers.times[position], stamped: stamped)
        }
    }

    /// Roundtrip: writes message `index` (`sequence` of its client) to its client. Returns true when it was written
    /// (or, with `--offline-queue`, held for its client's return).
    @discardableResult
    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        let clients = configuration.clients
        let client = index % clients
        recording.ledger.due(message: index, at: scheduled)
        let slot = slotOfClient[client]
        let time = MonotonicClock.now()
        driver.dispatched(1, at: time)
        guard slot >= 0 && peers[slot].connection.isOpen else {
            if configuration.offlineQueue {
                holdUntilBack(index, sequence: sequence, client: client, due: scheduled)
                return true
            }
            dropped(index, as: .droppedClosed)
            return false
        }
        Frame(kind: .data, bytes: message).setMessageFields(
            sequence: UInt32(truncatingIfNeeded: sequence),
            client: UInt32(client),
            sentNanoseconds: time
        )
        return write(index, to: slot, at: time, stamped: true)
    }

    /// Writes the current message to the connection in `slot` and records the outcome. True when written.
    ///
    /// With kernel stamps and `stamped`, the kernel is asked for the write's transmit stamp: for every message in
    /// roundtrip, for the first write of each broadcast in fanout (its t0). Stamping every write of a broadcast
    /// would slow its write loop by a quarter on the development machines, and with it the spread it measures.
    @discardableResult
    private func write(_ index: Int, to slot: Int, at time: UInt64, stamped: Bool) -> Bool {
        let stamped = stamped && stamps != nil
        let result = Self.send(message, on: peers[slot].connection, stamped: stamped)
        return record(result, ofMessage: index, slot: slot, at: time, stamped: stamped)
    }

    /// The write itself. It touches only `connection` and `frame`, so writer threads may run it at once for
    /// different connections (``BroadcastWriters``).
    @inline(__always)
    static func send(_ frame: UnsafeMutableRawBufferPointer, on connection: Connection<T>, stamped: Bool) -> WriteResult {
        do {
            switch try connection.send(frame, stamped: stamped) {
            case .written: return .written
            case .queued: return .queued
            case .dropped: return .dropped
            }
        } catch {
            return .failed(errno: error.errno)
        }
    }

    /// The bookkeeping of a write of message `index` to `slot` at `time`, on the server's thread. True when written.
    @discardableResult
    func record(_ result: WriteResult, ofMessage index: Int, slot: Int, at time: UInt64, stamped: Bool) -> Bool {
        switch result {
        case .written, .queued:
            written(index, at: time)
            if case .queued = result {
                tally.peakQueuedBytes = max(tally.peakQueuedBytes, peers[slot].connection.queuedByteCount)
            }
            if stamped { expectTransmitStamp(ofMessage: index, slot: slot) }
            return true
        case .dropped:
            droppedForFullQueue(index)
            return false
        case .failed(let errno):
            dropped(index, as: .droppedClosed)
            closePeer(slot: slot, reason: "write failed: \(SystemError("send", errno: errno))", at: time)
            return false
        case .notConnected:
            dropped(index, as: .droppedClosed)
            return false
        }
    }
}

/// What became of one write.
enum WriteResult {
    case written
    case queued
    case dropped
    case failed(errno: Int32)
    /// The client's connection was closed before its turn.
    case notConnected
}
