import BenchCore
import BenchNet

/// Sending: the timetable or closed loop, each message's send and transmit stamp, and what is settled when.
extension TargetEchoClients {
    /// Open loop: sends what the timetable says is due, then arms the timer for the next.
    func dispatchDueEvents() {
        guard plan != nil, !stopping else { return }
        let start = recording.startNanoseconds
        while let event = plan!.next {
            let due = start + event.offset
            let now = MonotonicClock.now()
            guard due <= now else {
                try? sendTimer.arm(at: due)
                return
            }
            guard recording.makeRoom(for: event.sequence, at: now, streamingTo: stream) else {
                try? sendTimer.arm(at: now + 1_000_000)  // its row is still taken: wait for it
                return
            }
            send(recording.messageIndex(sequence: event.sequence, client: event.client), sequence: event.sequence, scheduled: due)
            plan!.advance()
        }
    }

    /// Closed loop: each ready client sends its next message. A client whose send failed (queue full, connection
    /// closed) tries its next one on a later pass, not at once: one failure does not spend its whole series.
    func sendClosedLoop() {
        let now = MonotonicClock.now()
        guard !recording.isDurationOver(at: now) else { return }
        var retry: [Int] = []
        while let client = ready.popLast() {
            let sequence = nextSequence[client]
            guard sequence < configuration.sequencesPerClient else { continue }
            guard recording.makeRoom(for: sequence, at: now, streamingTo: stream) else {
                retry.append(client)  // its row is still taken: a later pass
                continue
            }
            nextSequence[client] = sequence + 1
            let index = recording.messageIndex(sequence: sequence, client: client)
            if send(index, sequence: sequence, scheduled: now) { awaited[client] = index } else { retry.append(client) }
        }
        ready = retry
    }

    /// Sends message `index` to its client's connection; true when written.
    @discardableResult
    func send(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        let clients = configuration.clients
        let client = index % clients
        recording.scheduled[index] = scheduled
        dispatched += 1
        let peer = peers[client]
        let time = MonotonicClock.now()
        lastDispatch = time
        guard peer.connection.isOpen else {
            settle(index, as: .droppedClosed)
            return false
        }
        let message = peer.prepare(Marker(run: configuration.token, client: UInt32(client), sequence: UInt32(truncatingIfNeeded: sequence)))
        do {
            if try peer.connection.send(message, stamped: stamps != nil) == .dropped {
                recording.queueFullDrops[client] += 1
                settle(index, as: .droppedQueueFull)
                return false
            }
        } catch {
            settle(index, as: .droppedClosed)
            close(client, reason: "write failed: \(error)")
            return false
        }
        recording.written[index] = time
        recording.outcome[index] = .written
        if stamps != nil { peer.expectTransmitStamp(ofMessage: index) }
        return true
    }

    /// Takes every transmit stamp waiting on `client`'s socket and gives each to the messages it stamps.
    func drainTransmitStamps(_ client: Int) {
        guard let stamps else { return }
        let peer = peers[client]
        while let stamp = try? stamps.nextTransmitStamp(on: peer.connection.descriptor) {
            peer.transmitStamps?.stamp(key: stamp.key, time: stamp.time) { message, time in
                recording.writtenKernel[message] = time
            }
        }
    }

    func settle(_ index: Int, as outcome: MessageOutcome) {
        let wasInFlight = recording.outcome[index] == .written
        recording.outcome[index] = outcome
        resolved += 1
        let client = index % configuration.clients
        if plan == nil && wasInFlight && awaited[client] == index {
            awaited[client] = -1
            ready.append(client)
        }
    }

    func housekeeping(at now: UInt64) {
        if plan == nil {
            for client in 0..<configuration.clients {
                let index = awaited[client]
                if index >= 0 && now >= recording.written[index] + configuration.timeout { settle(index, as: .timedOut) }
            }
        }
        recording.handOnSettled(at: now, to: stream)
        control.dispatchedMessages.store(dispatched, ordering: .relaxed)
    }
}
