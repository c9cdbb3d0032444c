/// A fanout server shard's stream tells the run's process when each broadcast began (``SettledMessage/Kind/broadcastBegan``)
/// before any of its messages: the run's process then knows the broadcast's one t0 (the earliest shard's) as soon as
/// every shard began it, and measures each message as it comes instead of holding every shard's part until the slowest
/// shard settled its own (a run behind its timetable held seconds of them: 800 bytes a connection at 100,000).
extension MessageLedger {
    /// Broadcast `sequence`'s beginning as it stands now, or nil when it has not begun (or is warmup, or no longer
    /// held): its due time and t0, from user space and from the kernel (its first write's stamp, 0 while none came).
    func beginning(ofBroadcast sequence: Int) -> SettledMessage? {
        guard hasBroadcasts, sequence >= warmup, heldSequences.contains(sequence) else { return nil }
        let broadcast = broadcastIndex(sequence: sequence, sender: 0)
        guard broadcastStart[broadcast] != 0 else { return nil }
        return SettledMessage(
            kind: .broadcastBegan, sequence: sequence, scheduled: scheduled[broadcast],
            broadcastStart: broadcastStart[broadcast], broadcastStartKernel: kernelBroadcastStart(broadcast))
    }
}

extension RunRecording {
    /// Streams the beginning of every broadcast whose t0 is as the ledger will hand it on (its first write's stamp came,
    /// or its stamps' grace passed, or the run has no kernel stamps; every one that began at `.max`), in order, once,
    /// while ``announcesBroadcasts``. Called before the ledger hands rows on, so that a broadcast's beginning comes
    /// before its messages (a row is settled no earlier: ``MessageLedger/isSettled(row:at:)``).
    mutating func announceBegunBroadcasts(at now: UInt64, emit: (SettledMessage) -> Void) {
        guard announcesBroadcasts else { return }
        broadcastsAnnounced = max(broadcastsAnnounced, ledger.flushedUpTo, configuration.warmup)
        while let beginning = ledger.beginning(ofBroadcast: broadcastsAnnounced),
            now == .max || !ledger.usesKernelStamps || beginning.broadcastStartKernel != 0
                || now >= beginning.broadcastStart &+ MessageLedger.stampGrace
        {
            emit(beginning)
            broadcastsAnnounced += 1
        }
    }
}
