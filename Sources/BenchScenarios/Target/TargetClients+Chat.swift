import BenchCore
import BenchNet

/// Chat: each member's message is due by its own timetable; this thread orders the member's group to write it to the
/// server (as a roundtrip client's own message), and every other member of its room that reads it reports the read.
/// The message is one broadcast of the ledger: t0 is the sender's write, one delivery per other member; delivery,
/// spread and completion are measured from it, on one clock, as for a fan-out broadcast.
extension TargetClients {
    /// Orders `sender`'s message `sequence`, due at `scheduled`: in flight to every other member of its room whose
    /// connection is open (lost at once to the others, and to all when the sender cannot send).
    func sendChatMessage(sequence: Int, sender: Int, scheduled: UInt64) {
        recording.ledger.due(broadcast: sequence, sender: sender, at: scheduled)
        let deliveries = recording.ledger.messages(ofBroadcast: sequence, sender: sender)
        let time = MonotonicClock.now()
        driver.dispatched(deliveries.count, at: time)
        switch order(sequence: sequence, client: sender, scheduled: scheduled) {
        case .closed:
            for index in deliveries { dropped(index, as: .droppedClosed) }
            return
        case .queueFull:
            for index in deliveries { droppedForFullQueue(index) }  // the sender's share does not keep up
            return
        case .ordered:
            break
        }
        recording.ledger.broadcastBegan(sequence, sender: sender, at: time)
        for index in deliveries {
            if receivesNow(recording.ledger.receiver(ofMessage: index)) {
                written(index, at: time)
            } else {
                dropped(index, as: .droppedClosed)
            }
        }
    }

    /// What became of a message a member was ordered to send (`clock`: its agent's, or this machine's).
    func chatSendReported(_ report: SendReport, clock: RemoteClock) {
        let (sequence, sender) = (Int(report.sequence), Int(report.client))
        guard recording.ledger.heldSequences.contains(sequence) else { return }  // sealed long ago: nothing changes
        let deliveries = recording.ledger.messages(ofBroadcast: sequence, sender: sender)
        let now = MonotonicClock.now()
        switch report.what {
        case .written:
            let broadcast = recording.ledger.broadcastIndex(sequence: sequence, sender: sender)
            let ordered = recording.ledger.broadcastStart[broadcast]
            let time = clock.time(of: report.time, between: ordered, and: now)
            if writeReported(broadcast: sequence, sender: sender, at: time, arrival: now) == .taken && !agentWrites.isEmpty {
                agentWrites[broadcast] = report.time
            }
        case .transmitStamp:
            // An agent's stamp is shifted as its write was: the interval it measured stays as it measured it.
            let broadcast = recording.ledger.broadcastIndex(sequence: sequence, sender: sender)
            let agentWrite = agentWrites.isEmpty ? 0 : agentWrites[broadcast]
            guard let time = clock.shifted(
                report.time, remoteWrite: agentWrite, localWrite: recording.ledger.broadcastStart[broadcast])
            else { return }  // its write was never reported: no way to place it
            recording.ledger.transmitStamp(broadcast: sequence, sender: sender, at: time)
        case .droppedQueueFull:
            for index in deliveries where recording.ledger.outcome[index] == .written { droppedForFullQueue(index) }
        case .droppedClosed:
            for index in deliveries where recording.ledger.outcome[index] == .written { dropped(index, as: .droppedClosed) }
        }
    }

    /// `sender` read its own message `sequence` at `stamp` (the kernel's stamp `kernel`, or 0), on an agent's `clock`
    /// (or this machine's): put on this clock within the message's write and now, then the ledger keeps its round
    /// trip (NATS, MQTT send the sender its copy).
    func settleOwnCopy(sequence: Int, sender: Int, at stamp: UInt64, kernel: UInt64, clock: RemoteClock) {
        let t0 = recording.ledger.broadcastStart[recording.ledger.broadcastIndex(sequence: sequence, sender: sender)]
        let stamps = readStamps(stamp, kernel: kernel, after: t0, clock: clock)
        guard case .unexpected(let reason) = recording.ledger.ownCopy(sequence: sequence, sender: sender, stamps) else {
            return
        }
        recordEvent(sender, reason)
    }

    /// `member` read `sender`'s message `sequence` at `stamp` (the kernel's stamp `kernel`, or 0), on an agent's `clock`
    /// (or this machine's): put on this clock within the message's write and now, then the ledger decides. A sender
    /// that is no client of the run is a marker of another run.
    func settleDelivery(sequence: Int, sender: UInt64, member: Int, at stamp: UInt64, kernel: UInt64, clock: RemoteClock) {
        guard sender < UInt64(configuration.clients) else {
            return act(on: .notSent(sequence: sequence, client: member, inRing: false), from: member)
        }
        let t0 = recording.ledger.broadcastStart[recording.ledger.broadcastIndex(sequence: sequence, sender: Int(sender))]
        let stamps = readStamps(stamp, kernel: kernel, after: t0, clock: clock)
        act(on: delivered(sequence: sequence, sender: Int(sender), member: member, stamps), from: member)
    }
}
