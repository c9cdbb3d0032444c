/// The ledger's rules, read-only: where a message sits in the ring, when stamps can be true, when an echo is in time,
/// when a row may be handed on, and a message as the stream hands it on. The events that act on them are in
/// `MessageLedger.swift`.
extension MessageLedger {
    // MARK: Where a message sits

    /// Index of message `(sequence, client)` in the per-message arrays (fanout and roundtrip, where a column is a
    /// client).
    @inline(__always)
    public func messageIndex(sequence: Int, client: Int) -> Int {
        row(of: sequence) * columns + client
    }

    /// Index of broadcast `sequence` (in chat, `sender`'s message `sequence`) in ``scheduled`` and ``broadcastStart``.
    @inline(__always)
    public func broadcastIndex(sequence: Int, sender: Int) -> Int {
        row(of: sequence) * senders + sender
    }

    /// The messages of broadcast `sequence` (in chat, `sender`'s message `sequence`): one per client it goes to.
    @inline(__always)
    public func messages(ofBroadcast sequence: Int, sender: Int) -> Range<Int> {
        let base = row(of: sequence) * columns
        return base + columnStart[sender]..<base + columnStart[sender + 1]
    }

    /// Fanout and chat: the broadcast message `index` belongs to, its index in ``broadcastStart``.
    @inline(__always)
    func broadcastIndex(ofMessage index: Int) -> Int {
        let (row, column) = index.quotientAndRemainder(dividingBy: columns)
        return row * senders + (senderOfColumn.isEmpty ? 0 : Int(senderOfColumn[column]))
    }

    /// The client message `index` goes to.
    @inline(__always)
    public func receiver(ofMessage index: Int) -> Int {
        let column = index % columns
        return receiverOfColumn.isEmpty ? column : Int(receiverOfColumn[column])
    }

    /// The client that sent message `index`: in chat its room's member, else the client itself (roundtrip) or the
    /// server, reported as 0 (fanout).
    @inline(__always)
    public func sender(ofMessage index: Int) -> Int {
        senderOfColumn.isEmpty ? (hasBroadcasts ? 0 : index % columns) : Int(senderOfColumn[index % columns])
    }

    /// The row of `sequence` in the ring.
    @inline(__always)
    public func row(of sequence: Int) -> Int {
        sequence % window
    }

    /// The sequence number row `row` holds now.
    public func sequence(ofRow row: Int) -> Int {
        flushedUpTo + (row - flushedUpTo % window + window) % window
    }

    /// The sequence numbers whose rows are in the ring now (up to the run's last).
    public var heldSequences: Range<Int> {
        flushedUpTo..<min(flushedUpTo + window, sequences)
    }

    /// The earliest due time of a message not yet handed on (monotonic ns), or nil when none held has fallen due: a
    /// report interval that ends before it has had all its messages (each counts in the interval it was due in). Each
    /// sender's timetable is in order, so the oldest row holds each sender's earliest; a sender whose message there is
    /// not due yet has none due after it either.
    public var earliestHeldDue: UInt64? {
        guard window > 0, flushedUpTo < sequences else { return nil }  // a ledger of no rows holds none
        let first = row(of: flushedUpTo) * (hasBroadcasts ? senders : columns)
        var earliest = UInt64.max
        for index in first..<first + (hasBroadcasts ? senders : columns) where scheduled[index] != 0 {
            earliest = Swift.min(earliest, scheduled[index])
        }
        return earliest == .max ? nil : earliest
    }

    /// True when `sequence` can be written now: its row is free, or holds it already.
    @inline(__always)
    public func canWrite(sequence: Int) -> Bool {
        sequence < flushedUpTo + window
    }

    /// True when message `index` counts in the results: it had its turn and is not a warmup message.
    public func isMeasured(message index: Int) -> Bool {
        outcome[index].wasDispatched && sequence(ofRow: index / columns) >= warmup
    }

    /// How long after a row's writes its transmit stamps are waited for before it is handed on without them.
    static var stampGrace: UInt64 { 20_000_000 }

    /// True when `stamps` can be true of message `index`: the client's read not before the write, nor after the echo
    /// reached the measuring end, which is not after the measuring thread took it in.
    @inline(__always)
    func isPlausible(_ stamps: EchoStamps, ofMessage index: Int) -> Bool {
        let end = stamps.echoed == 0 ? stamps.received : stamps.echoed
        guard stamps.received >= written[index], stamps.received <= end, end <= stamps.arrival else { return false }
        guard let tolerance = stamps.kernelTolerance, stamps.receivedKernel != 0 else { return true }
        return stamps.receivedKernel &+ tolerance >= written[index] && stamps.receivedKernel <= stamps.received &+ tolerance
    }

    /// Why `stamps` of message `index` (`sequence` of its client) cannot be true, for people.
    func implausibility(of stamps: EchoStamps, sequence: Int, message index: Int) -> String {
        "echoed message \(sequence) with receive time \(stamps.received) ns (kernel: \(stamps.receivedKernel) ns), "
            + "outside its write (\(written[index]) ns) and the echo's arrival (\(stamps.arrival) ns): not a measurement"
    }

    /// True when an echo with `stamps` came in time for message `index`: its end within the timeout of the write and,
    /// in fanout and chat, the client's read within the timeout of the broadcast's start. The stamps are plausible.
    @inline(__always)
    func isInTime(_ stamps: EchoStamps, ofMessage index: Int) -> Bool {
        let end = stamps.echoed == 0 ? stamps.received : stamps.echoed
        guard end - written[index] <= timeout else { return false }
        return !hasBroadcasts || stamps.received &- broadcastStart[broadcastIndex(ofMessage: index)] <= timeout
    }

    /// True when message `index` was written (whatever became of it since).
    @inline(__always)
    func wentOut(_ index: Int) -> Bool {
        switch outcome[index] {
        case .written, .echoed, .timedOut, .late, .invalidTimestamp, .writtenThenClosed: return true
        case .notDispatched, .droppedClosed, .droppedQueueFull: return false
        }
    }

    /// True when every message of `row` is settled (or never to be sent: its timetable ended before) and its stamps are
    /// in (or overdue).
    func isSettled(row: Int, at now: UInt64) -> Bool {
        var stampsDue: UInt64 = 0
        let sequence = sequence(ofRow: row)
        for index in row * columns..<(row + 1) * columns {
            switch outcome[index] {
            case .notDispatched:
                guard sequence >= sendsEnd[sender(ofMessage: index)] else { return false }
            case .written:
                guard isOpenLoop && now >= written[index] &+ timeout else { return false }
            default:
                break
            }
            if usesKernelStamps && !hasBroadcasts && written[index] != 0 && writtenKernel[index] == 0 {
                stampsDue = max(stampsDue, written[index] &+ Self.stampGrace)
            }
        }
        if usesKernelStamps && hasBroadcasts {
            for broadcast in row * senders..<(row + 1) * senders
            where broadcastStart[broadcast] != 0 && kernelBroadcastStart(broadcast) == 0 {
                stampsDue = max(stampsDue, broadcastStart[broadcast] &+ Self.stampGrace)
            }
        }
        if expectsOwnCopies {  // a sender's own copy, up to the timeout
            for broadcast in row * senders..<(row + 1) * senders
            where broadcastStart[broadcast] != 0 && ownCopy[broadcast] == 0 && now < broadcastStart[broadcast] &+ timeout {
                return false
            }
        }
        return now >= stampsDue
    }

    /// Fanout and chat with kernel stamps: t0 of broadcast `broadcast` (its index in ``broadcastStart``) as the kernel
    /// saw it, the earliest transmit stamp of its writes (its first write's, or with server threads each thread's
    /// first); 0 when none came.
    func kernelBroadcastStart(_ broadcast: Int) -> UInt64 {
        guard usesKernelStamps && hasBroadcasts else { return 0 }
        let (row, sender) = broadcast.quotientAndRemainder(dividingBy: senders)
        var earliest = UInt64.max
        for index in row * columns + columnStart[sender]..<row * columns + columnStart[sender + 1]
        where writtenKernel[index] != 0 {
            earliest = Swift.min(earliest, writtenKernel[index])
        }
        return earliest == .max ? 0 : earliest
    }

    /// Message `index` as the stream hands it on; `t0Kernel` is its broadcast's kernel t0 in fanout and chat.
    func settledMessage(at index: Int, t0Kernel: UInt64) -> SettledMessage {
        let row = index / columns
        let kernel = usesKernelStamps
        let broadcast = hasBroadcasts ? broadcastIndex(ofMessage: index) : 0
        return SettledMessage(
            kind: .message, outcome: outcome[index], sequence: sequence(ofRow: row),
            client: receiver(ofMessage: index), sender: senderOfColumn.isEmpty ? 0 : sender(ofMessage: index),
            scheduled: hasBroadcasts ? scheduled[broadcast] : scheduled[index],
            written: written[index], received: received[index], echoed: echoed[index],
            writtenKernel: kernel ? writtenKernel[index] : 0, receivedKernel: kernel ? receivedKernel[index] : 0,
            echoedKernel: kernel ? echoedKernel[index] : 0, broadcastStart: hasBroadcasts ? broadcastStart[broadcast] : 0,
            broadcastStartKernel: t0Kernel)
    }
}
