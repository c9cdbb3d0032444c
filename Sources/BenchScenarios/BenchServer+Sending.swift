import BenchCore
import BenchNet

extension BenchServer {
    /// Open loop: sends the events of the timetable that are due, then arms the timer for the next one.
    ///
    /// When the harness has fallen behind, it sends for at most ``catchUpBudget`` before going back to its
    /// event loop (the timer, armed in the past, fires again at once): echoes keep being read and a stop request
    /// is heard, however far behind the timetable is. The lateness shows as lag.
    func dispatchDueEvents() throws(SystemError) {
        guard let plan, running, !stopping else { return }
        let start = recording.startNanoseconds
        let began = MonotonicClock.now()
        var sent = 0
        while nextEvent < plan.offsets.count {
            let due = start + plan.offsets[nextEvent]
            let now = MonotonicClock.now()
            guard due <= now, sent == 0 || now - began < Self.catchUpBudget else { break }
            sent += 1
            switch configuration.scenario {
            case .fanout: dispatchBroadcast(plan.targets[nextEvent], scheduled: due)
            case .roundtrip: dispatchMessage(plan.targets[nextEvent], scheduled: due)
            }
            nextEvent += 1
        }
        if nextEvent < plan.offsets.count {
            try sendTimer.arm(at: start + plan.offsets[nextEvent])
        }
    }

    /// Closed loop: sends the next broadcast once the last one is settled, or each ready client's next message.
    func sendClosedLoop(at now: UInt64) {
        switch configuration.scenario {
        case .fanout:
            if unresolvedInBroadcast == 0 && currentBroadcast + 1 < configuration.sequencesPerClient {
                dispatchBroadcast(currentBroadcast + 1, scheduled: now)
            }
        case .roundtrip:
            while let client = readyClients.popLast() {
                let sequence = nextSequence[client]
                guard sequence < configuration.sequencesPerClient else { continue }
                nextSequence[client] = sequence + 1
                let index = recording.messageIndex(sequence: sequence, client: client)
                if dispatchMessage(index, scheduled: now) {
                    awaitedMessage[client] = index
                } else {
                    readyClients.append(client)
                }
            }
        }
    }

    /// Closed loop: gives up on messages whose timeout passed, so that the next ones can go.
    func expireClosedLoopMessages(at now: UInt64) {
        let timeout = configuration.timeout
        switch configuration.scenario {
        case .fanout:
            guard unresolvedInBroadcast > 0, now >= recording.broadcastStart[currentBroadcast] + timeout else { return }
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
        recording.scheduled[sequence] = scheduled
        currentBroadcast = sequence
        unresolvedInBroadcast = 0
        broadcastOrderRandom.shuffle(broadcastOrder)
        let frame = Frame(kind: .data, bytes: message)
        for position in 0..<clients {
            let client = Int(broadcastOrder[position])
            let index = recording.messageIndex(sequence: sequence, client: client)
            let slot = slotOfClient[client]
            let time = MonotonicClock.now()
            if position == 0 { recording.broadcastStart[sequence] = time }
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

    /// Roundtrip: writes message `index` to its client. Returns true when it was written.
    @discardableResult
    func dispatchMessage(_ index: Int, scheduled: UInt64) -> Bool {
        let clients = configuration.clients
        let client = index % clients
        recording.scheduled[index] = scheduled
        dispatched += 1
        let slot = slotOfClient[client]
        let time = MonotonicClock.now()
        lastDispatch = time
        guard slot >= 0 && peers[slot].connection.isOpen else {
            settle(index, as: .droppedClosed)
            return false
        }
        Frame(kind: .data, bytes: message).setMessageFields(
            sequence: UInt32(index / clients),
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
        let connection = peers[slot].connection
        let stamped = stamped && stamps != nil
        do {
            switch try connection.send(UnsafeRawBufferPointer(message), stamped: stamped) {
            case .written:
                recording.outcome[index] = .written
                recording.written[index] = time
                if stamped { expectTransmitStamp(ofMessage: index, slot: slot) }
                return true
            case .queued:
                recording.outcome[index] = .written
                recording.written[index] = time
                recording.peakQueuedBytes = max(recording.peakQueuedBytes, connection.queuedByteCount)
                if stamped { expectTransmitStamp(ofMessage: index, slot: slot) }
                return true
            case .dropped:
                recording.queueFullDrops[index % configuration.clients] += 1
                settle(index, as: .droppedQueueFull)
                return false
            }
        } catch {
            settle(index, as: .droppedClosed)
            closePeer(slot: slot, reason: "write failed: \(error)", at: time)
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
            if index / configuration.clients == currentBroadcast { unresolvedInBroadcast -= 1 }
        case .roundtrip:
            let client = index % configuration.clients
            if awaitedMessage[client] == index {
                awaitedMessage[client] = -1
                readyClients.append(client)
            }
        }
    }
}
