import BenchCore
import BenchNet

extension BenchServer {
    /// Open loop: sends the events of the timetable that are due, then arms the timer for the next one.
    ///
    /// When the harness has fallen behind, it sends for at most ``catchUpBudget`` before going back to its
    /// event loop (the timer, armed in the past, fires again at once): echoes keep being read and a stop request
    /// is heard, however far behind the timetable is. The lateness shows as lag. A send whose row of the ring is
    /// still taken (``RunRecording/canWrite(sequence:)``) waits for it, a millisecond at a time.
    func dispatchDueEvents() throws(SystemError) {
        guard plan != nil, running, !stopping else { return }
        let start = recording.startNanoseconds
        let began = MonotonicClock.now()
        var sent = 0
        while let event = plan!.next {
            let due = start + event.offset
            let now = MonotonicClock.now()
            guard due <= now, sent == 0 || now - began < Self.catchUpBudget else { break }
            guard makeRoom(for: event.sequence, at: now) else {
                try sendTimer.arm(at: now + 1_000_000)
                return
            }
            sent += 1
            switch configuration.scenario {
            case .fanout: dispatchBroadcast(event.sequence, scheduled: due)
            case .roundtrip:
                let index = recording.messageIndex(sequence: event.sequence, client: event.client)
                dispatchMessage(index, sequence: event.sequence, scheduled: due)
            }
            plan!.advance()
        }
        if let event = plan!.next {
            try sendTimer.arm(at: start + event.offset)
        }
    }

    /// True when `sequence` may be written: its row of the ring is free, now or after handing on what is settled.
    func makeRoom(for sequence: Int, at now: UInt64) -> Bool {
        recording.makeRoom(for: sequence, at: now, streamingTo: stream)
    }


    /// True when the run is over: no client left (and, when they may come back, none came back in time), or nothing more to send and every message settled (or the last
    /// one's timeout passed).
    func isFinished(at now: UInt64) -> Bool {
        // With no client left, a run whose clients may come back waits for them, even past its last send: their
        // outages are measured too.
        if liveClients == 0 { return !isWaitingForReturns(at: now) }
        let timetableSpent = plan == nil ? nil : plan!.next == nil
        guard recording.isSendingOver(at: now, stopping: stopping, timetableSpent: timetableSpent, dispatched: dispatched)
        else { return false }
        return resolved == dispatched || now >= lastDispatch + configuration.timeout
    }

    /// Closed loop: sends the next broadcast once the last one is settled, or each ready client's next message.
    func sendClosedLoop(at now: UInt64) {
        if recording.isDurationOver(at: now) { return }
        switch configuration.scenario {
        case .fanout:
            // With every client away (they may come back), a broadcast would go to nobody and wait for nothing: the
            // next one waits for a client to be back, as closed-loop roundtrip's parked clients do.
            if configuration.expectsReconnects && liveClients == 0 { return }
            let next = currentBroadcast + 1
            if unresolvedInBroadcast == 0 && next < configuration.sequencesPerClient && makeRoom(for: next, at: now) {
                dispatchBroadcast(next, scheduled: now)
            }
        case .roundtrip:
            while let client = readyClients.popLast() {
                let sequence = nextSequence[client]
                guard sequence < configuration.sequencesPerClient else { continue }
                if configuration.expectsReconnects && !isConnected(client) {
                    parkedClients[client] = true  // until it is back (``clientReturned``)
                    continue
                }
                guard makeRoom(for: sequence, at: now) else {
                    waitingClients.append(client)
                    continue
                }
                nextSequence[client] = sequence + 1
                let index = recording.messageIndex(sequence: sequence, client: client)
                if dispatchMessage(index, sequence: sequence, scheduled: now) {
                    awaitedMessage[client] = index
                } else {
                    readyClients.append(client)
                }
            }
            readyClients.append(contentsOf: waitingClients)
            waitingClients.removeAll(keepingCapacity: true)
        }
    }

    /// Closed loop: gives up on messages whose timeout passed, so that the next ones can go.
    func expireClosedLoopMessages(at now: UInt64) {
        let timeout = configuration.timeout
        switch configuration.scenario {
        case .fanout:
            guard unresolvedInBroadcast > 0, now >= recording.broadcastStart[recording.row(of: currentBroadcast)] + timeout
            else { return }
            for client in 0..<configuration.clients {
                let index = recording.messageIndex(sequence: currentBroadcast, client: client)
                if recording.outcome[index] == .written { settle(index, as: .timedOut) }
            }
        case .roundtrip:
            for client in 0..<configuration.clients {
                let index = awaitedMessage[client]
                if index >= 0 && now >= recording.written[index] + timeout { settle(index, as: .timedOut) }
            }
        }
    }

    /// Fanout: writes broadcast `sequence` to every client, in a new random order.
    ///
    /// t0 is the time taken before the first write; each write has its own time, taken right before it.
    func dispatchBroadcast(_ sequence: Int, scheduled: UInt64) {
        let clients = configuration.clients
        let row = recording.row(of: sequence)
        recording.scheduled[row] = scheduled
        currentBroadcast = sequence
        unresolvedInBroadcast = 0
        broadcastOrderRandom.shuffle(broadcastOrder)
        if let writers {
            writeInParallel(sequence, with: writers)
            dispatched += clients
            lastDispatch = MonotonicClock.now()
            return
        }
        let frame = Frame(kind: .data, bytes: message)
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let index = recording.messageIndex(sequence: sequence, client: client)
            let slot = slotOfClient[client]
            let time = MonotonicClock.now()
            if position == 0 { recording.broadcastStart[row] = time }
            if slot >= 0 && peers[slot].connection.isOpen {
                frame.setMessageFields(sequence: UInt32(sequence), client: UInt32(client), sentNanoseconds: time)
                if write(index, to: slot, at: time, stamped: position == 0) { unresolvedInBroadcast += 1 }
            } else {
                settle(index, as: .droppedClosed)
            }
        }
        dispatched += clients
        lastDispatch = MonotonicClock.now()
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
        recording.broadcastStart[recording.row(of: sequence)] = start
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let index = recording.messageIndex(sequence: sequence, client: client)
            let stamped = stamps != nil && position < writers.threads
            let slot = slotOfClient[client]
            if record(writers.results[position], ofMessage: index, slot: slot, at: writers.times[position], stamped: stamped) {
                unresolvedInBroadcast += 1
            }
        }
    }

    /// Roundtrip: writes message `index` (`sequence` of its client) to its client. Returns true when it was written.
    @discardableResult
    func dispatchMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        let clients = configuration.clients
        let client = index % clients
        recording.scheduled[index] = scheduled
        dispatched += 1
        let slot = slotOfClient[client]
        let time = MonotonicClock.now()
        lastDispatch = time
        guard slot >= 0 && peers[slot].connection.isOpen else {
            if configuration.offlineQueue {
                holdUntilBack(index, sequence: sequence, client: client, due: scheduled)
                return true
            }
            settle(index, as: .droppedClosed)
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
    func record(_ result: WriteResult, ofMessage index: Int, slot: Int, at time: UInt64, stamped: Bool) -> Bool {
        switch result {
        case .written, .queued:
            recording.outcome[index] = .written
            recording.written[index] = time
            if case .queued = result {
                recording.peakQueuedBytes = max(recording.peakQueuedBytes, peers[slot].connection.queuedByteCount)
            }
            if stamped { expectTransmitStamp(ofMessage: index, slot: slot) }
            return true
        case .dropped:
            recording.queueFullDrops[index % configuration.clients] += 1
            settle(index, as: .droppedQueueFull)
            return false
        case .failed(let errno):
            settle(index, as: .droppedClosed)
            closePeer(slot: slot, reason: "write failed: \(SystemError("send", errno: errno))", at: time)
            return false
        case .notConnected:
            settle(index, as: .droppedClosed)
            return false
        }
    }

    /// Records that message `index` is settled one way or another, and what closed loop does next.
    func settle(_ index: Int, as outcome: MessageOutcome) {
        let wasInFlight = recording.outcome[index] == .written
        recording.outcome[index] = outcome
        resolved += 1
        guard plan == nil, wasInFlight else { return }
        switch configuration.scenario {
        case .fanout:
            if index / configuration.clients == recording.row(of: currentBroadcast) { unresolvedInBroadcast -= 1 }
        case .roundtrip:
            let client = index % configuration.clients
            if awaitedMessage[client] == index {
                awaitedMessage[client] = -1
                readyClients.append(client)
            }
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
