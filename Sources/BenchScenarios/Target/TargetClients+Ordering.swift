import BenchCore
import BenchNet

/// Roundtrip: each message's turn is the measuring core's; its client's group writes it (on this thread's order, a
/// data frame on the client's channel), stamps the write and the read of its echo, and reports both. The message is
/// in flight from the order on (its write time then corrected to the group's stamp), so that its timeout, the closed
/// loop and the ring work as for any other role.
extension TargetClients {
    /// Orders message `index` (`sequence` of its client), due at `scheduled`; true when ordered (it waits for its echo),
    /// false when it was settled as lost at once.
    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        let client = index % configuration.clients
        recording.scheduled[index] = scheduled
        let time = MonotonicClock.now()
        driver.dispatched(1, at: time)
        let place = Int(channelOfClient[client])
        guard subscriberOpen[client], place >= 0, channels[place].isOpen else {
            settle(index, as: .droppedClosed)
            return false
        }
        guard let order = outboxes[place].reserve(WireFormat.minimumMessageSize) else {
            recording.queueFullDrops[client] += 1  // the client's share does not keep up with its orders
            settle(index, as: .droppedQueueFull)
            return false
        }
        Frame.encodeMessage(
            into: order, sequence: UInt32(truncatingIfNeeded: sequence), client: UInt32(client), sentNanoseconds: scheduled)
        recording.markWritten(index, at: time)
        return true
    }

    /// Writes what waits on every channel (once per pass of the loop, and at housekeeping).
    func flushOrders() {
        for place in outboxes.indices where !outboxes[place].isEmpty { flushOrders(on: place) }
    }

    /// Writes what waits on channel `place`; what its socket does not take now goes when it is writable again.
    func flushOrders(on place: Int) {
        guard channels[place].isOpen else { return }
        let descriptor = channels[place].descriptor
        do {
            let done = try outboxes[place].flush(to: descriptor)
            guard done == channels[place].waitsToWrite else { return }
            channels[place].waitsToWrite = !done
            try epoll.modify(
                descriptor, interest: done ? .readable : [.readable, .writable], token: Self.token(ofChannel: place))
        } catch {
            try? channelEnded(place, reason: "its channel failed: \(error)")
        }
    }

    /// What became of a message a client was ordered to send (`clock`: its agent's, nil for this machine's).
    func take(_ report: SendReport, clock: ClockModel?) {
        let sequence = Int(report.sequence), client = Int(report.client)
        guard recording.heldSequences.contains(sequence) else { return }  // sealed long ago (timed out): nothing changes
        let index = recording.messageIndex(sequence: sequence, client: client)
        let now = MonotonicClock.now()
        switch (report.what, recording.outcome[index]) {
        case (.written, .written), (.written, .timedOut):
            // The order went out at written[index]: the group wrote after that, and told before now.
            let ordered = recording.written[index]
            let time = clock.map { $0.serverTime(ofAgentStamp: report.time, between: ordered, and: now) } ?? report.time
            guard time >= ordered, time <= now else { return settle(index, as: .invalidTimestamp) }
            recording.written[index] = time
            if !agentWrites.isEmpty { agentWrites[index] = report.time }
        case (.transmitStamp, .written), (.transmitStamp, .timedOut), (.transmitStamp, .echoed), (.transmitStamp, .late):
            guard recording.usesKernelStamps else { return }
            recording.writtenKernel[index] = onThisClock(report.time, of: index, clock: clock)
        case (.droppedQueueFull, .written):
            recording.queueFullDrops[client] += 1
            settle(index, as: .droppedQueueFull)
        case (.droppedClosed, .written):
            settle(index, as: .droppedClosed)
        default:
            break  // about a message that is not in flight: a stale or false report changes nothing
        }
    }

    /// A stamp of message `index`'s on its agent's `clock`, on this one: shifted as the agent's write stamp was, so that
    /// every interval the agent measured stays as it measured it (nil clock: this machine's, as it is).
    @inline(__always)
    func onThisClock(_ stamp: UInt64, of index: Int, clock: ClockModel?) -> UInt64 {
        guard clock != nil, stamp != 0 else { return stamp }
        let agentWrite = agentWrites.isEmpty ? 0 : agentWrites[index]
        guard agentWrite != 0 else { return 0 }  // its write was never reported: no way to place it
        return recording.written[index] &+ (stamp &- agentWrite)
    }

    /// Client `client` read the echo of its message `sequence` at `stamp` (the kernel's stamp `kernel`, or 0).
    func settleEcho(sequence: Int, client: Int, at stamp: UInt64, kernel: UInt64, clock: ClockModel?) {
        guard sequence >= recording.flushedUpTo else {
            recording.echoesAfterHandOn += 1  // its fate was sealed long ago (timed out): nothing changes
            return
        }
        guard sequence < recording.heldSequences.upperBound else {
            return recordEvent(client, "received a marker of another run or client (client \(client), message \(sequence))")
        }
        let index = recording.messageIndex(sequence: sequence, client: client)
        let arrival = MonotonicClock.now()
        switch recording.outcome[index] {
        case .written, .timedOut:
            let first = recording.outcome[index] == .written
            let received = onThisClock(stamp, of: index, clock: clock)
            guard received >= recording.written[index], received <= arrival else {
                if first { settle(index, as: .invalidTimestamp) } else { recording.changeTimedOut(index, to: .invalidTimestamp) }
                return
            }
            recording.received[index] = received
            recording.echoed[index] = received
            if recording.usesKernelStamps {
                let kernelReceived = onThisClock(kernel, of: index, clock: clock)
                recording.receivedKernel[index] = kernelReceived
                recording.echoedKernel[index] = kernelReceived
            }
            let inTime = first && received - recording.written[index] <= configuration.timeout
            if first { settle(index, as: inTime ? .echoed : .late) } else { recording.changeTimedOut(index, to: .late) }
            driver.countEcho()
        case .echoed, .late:
            recording.duplicateEchoes += 1
        default:
            recordEvent(client, "echoed message \(sequence), which was never sent on this connection")
        }
    }

    func recordEvent(_ client: Int, _ reason: String) {
        // The measuring side here is the clients': what they saw is theirs (and not a connection the server closed).
        recording.record(ConnectionEvent(side: .clients, client: client, time: MonotonicClock.now(), reason: reason))
    }
}
