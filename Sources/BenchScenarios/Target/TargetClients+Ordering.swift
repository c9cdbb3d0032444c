import BenchClients
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
        recording.ledger.due(message: index, at: scheduled)
        let time = MonotonicClock.now()
        driver.dispatched(1, at: time)
        switch order(sequence: sequence, client: client, scheduled: scheduled) {
        case .closed:
            dropped(index, as: .droppedClosed)
            return false
        case .queueFull:
            droppedForFullQueue(index)  // the client's share does not keep up with its orders
            return false
        case .ordered:
            written(index, at: time)
            return true
        }
    }

    /// What became of an order to a client's share.
    enum OrderOutcome { case ordered, closed, queueFull }

    /// Orders `client`'s share to send its message `sequence` (due at `scheduled`): a data frame on the share's channel,
    /// unless the client is closed (in open loop with `--reconnect`, away for good: one that may come back is ordered
    /// all the same, and its share, which knows whether it is back, writes the message or drops it; this thread hears of
    /// a return a pass after it, and used to drop the messages due in between as if it were still away) or the
    /// channel's outbox is full.
    @inline(__always)
    func order(sequence: Int, client: Int, scheduled: UInt64) -> OrderOutcome {
        let place = Int(channelOfClient[client])
        guard receivesNow(client), place >= 0, channels[place].isOpen else { return .closed }
        guard let order = outboxes[place].reserve(WireFormat.minimumMessageSize) else { return .queueFull }
        Frame.encodeMessage(
            into: order, sequence: UInt32(truncatingIfNeeded: sequence), client: UInt32(client), sentNanoseconds: scheduled)
        return .ordered
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

    /// What became of a message a client was ordered to send (`clock`: its agent's, or this machine's).
    func sendReported(_ report: SendReport, clock: RemoteClock) {
        let sequence = Int(report.sequence), client = Int(report.client)
        guard recording.ledger.heldSequences.contains(sequence) else { return }  // sealed long ago: nothing changes
        let index = recording.ledger.messageIndex(sequence: sequence, client: client)
        let now = MonotonicClock.now()
        switch report.what {
        case .written:
            // The order went out at the message's write time: the group wrote after that, and told before now.
            let ordered = recording.ledger.written[index]
            let time = clock.time(of: report.time, between: ordered, and: now)
            if writeReported(index, at: time, arrival: now) == .taken && !agentWrites.isEmpty {
                agentWrites[index] = report.time
            }
        case .transmitStamp:
            recording.ledger.transmitStamp(index, at: onThisClock(report.time, of: index, clock: clock))
        case .droppedQueueFull where recording.ledger.outcome[index] == .written:
            droppedForFullQueue(index)
        case .droppedClosed where recording.ledger.outcome[index] == .written:
            dropped(index, as: .droppedClosed)
        default:
            break  // about a message that is not in flight: a stale or false report changes nothing
        }
    }

    /// A stamp of message `index`'s on `clock`, on this one: shifted as the agent's write stamp was, so that every
    /// interval the agent measured stays as it measured it (0: it cannot be placed).
    @inline(__always)
    func onThisClock(_ stamp: UInt64, of index: Int, clock: RemoteClock) -> UInt64 {
        let agentWrite = agentWrites.isEmpty ? 0 : agentWrites[index]
        return clock.shifted(stamp, remoteWrite: agentWrite, localWrite: recording.ledger.written[index]) ?? 0
    }

    /// Client `client` read the echo of its message `sequence` at `stamp` (the kernel's stamp `kernel`, or 0): the
    /// client is the measuring end, so its read is both the receive and the echo.
    func settleEcho(sequence: Int, client: Int, at stamp: UInt64, kernel: UInt64, clock: RemoteClock) {
        let index = recording.ledger.messageIndex(sequence: sequence, client: client)
        let received = onThisClock(stamp, of: index, clock: clock)
        let kernelReceived = onThisClock(kernel, of: index, clock: clock)
        let stamps = MessageLedger.EchoStamps(
            received: received, receivedKernel: kernelReceived, echoed: received, echoedKernel: kernelReceived,
            arrival: MonotonicClock.now())
        act(on: echo(sequence: sequence, client: client, stamps), from: client)
    }

    /// Acts on the ledger's answer to an echo from `client`: what cannot be a measurement is recorded as the
    /// clients' side saw it.
    @inline(__always)
    func act(on action: MessageLedger.EchoAction, from client: Int) {
        switch action {
        case .measured, .late, .duplicate, .stale:
            return
        case .implausible(_, _, let reason):
            recordEvent(client, reason)
        case .notSent(let sequence, let client, true):
            recordEvent(client, "echoed message \(sequence), which was never sent on this connection")
        case .notSent(let sequence, let client, false):
            recordEvent(client, "received a marker of another run or client (client \(client), message \(sequence))")
        }
    }

    func recordEvent(_ client: Int, _ reason: String) {
        // The measuring side here is the clients': what they saw is theirs (and not a connection the server closed).
        recording.record(ConnectionEvent(side: .clients, client: client, time: MonotonicClock.now(), reason: reason))
    }
}
