import BenchClients
import BenchNet

/// The ring's size and its stream: how many rows a run needs, making room for a send, and handing the ledger's settled
/// rows, the report intervals and the end on to the run's writer.
extension RunRecording {
    /// The most messages the ring holds (rows × clients): about 230 MB. A faster timetable waits for rows, and its
    /// lateness shows as lag.
    static var maximumMessagesInFlight: Int { 4 << 20 }

    /// The rows a live run needs so that its timetable never waits for one: every sequence sent within a timeout
    /// (and the stamps' grace and a housekeeping tick) of the oldest, with room for Poisson's bursts and, in
    /// roundtrip and chat, for the clients' own timetables drifting apart (6 σ of a random walk over the run). Fanout's
    /// one timetable is known before the run: its bursts are counted rather than bounded (``mostSends(within:of:)``),
    /// with a quarter and ``fanoutSlack`` rows more for sends a late harness makes at once. Closed loop needs few.
    /// Never more than the run's own sequences.
    public static func window(for configuration: RunConfiguration) -> Int {
        let sequences = configuration.sequencesPerClient
        var rows = 256
        if configuration.interval > 0 {
            let span = configuration.timeout + MessageLedger.stampGrace + 100_000_000
            rows = Int(min(span / configuration.interval, UInt64(maximumMessagesInFlight))) * 5 / 4 + 16
            if configuration.scenario == .fanout {
                if let most = mostSends(within: span, of: configuration) { rows = min(rows, most + most / 4 + fanoutSlack) }
            } else if configuration.clients > 1 {
                let expected = Double(max(1, configuration.expectedMessages / configuration.messagesPerSequence))
                rows += 6 * Int(expected.squareRoot()) + 16
            }
        }
        let fitting = max(4, maximumMessagesInFlight / max(1, configuration.messagesPerSequence))
        return max(1, min(sequences, rows, fitting))
    }

    /// Rows a fanout ring has beyond its timetable's largest burst, and a quarter of it more: sends a harness that fell
    /// behind makes at once.
    static var fanoutSlack: Int { 4 }

    /// The longest fanout timetable replayed (``mostSends(within:of:)``): a few milliseconds before the run.
    static var largestReplay: Int { 1 << 20 }

    /// Fanout's one timetable (open loop), replayed from its seed: the most broadcasts that fall due within `span` of
    /// the first of them (that one included), the rows its ring needs so that each row's broadcast is over before the
    /// row is written again; nil for a timetable of more than ``largestReplay`` broadcasts.
    static func mostSends(within span: UInt64, of configuration: RunConfiguration) -> Int? {
        // Two walks over the same timetable, the second at the earliest send within `span` of the first's: no
        // memory that grows with the run.
        var (latest, earliest) = (SendPlan(configuration: configuration), SendPlan(configuration: configuration))
        var (sent, passed, most) = (0, 0, 0)
        while let next = latest.next {
            sent += 1
            guard sent <= largestReplay else { return nil }
            while let oldest = earliest.next, next.offset - oldest.offset >= span {
                earliest.advance()
                passed += 1
            }
            most = max(most, sent - passed)
            latest.advance()
        }
        return most
    }

    /// True when `sequence` may be written: its row is free, now or once what is settled was handed on to `stream`
    /// (without a stream the ring holds the whole run). Counts a send that must wait in ``windowWaits``.
    mutating func makeRoom(for sequence: Int, at now: UInt64, streamingTo stream: SettledQueue?) -> Bool {
        var handedOn = false
        if hasRoom(for: sequence, at: now, streamingTo: stream, handedOn: &handedOn) { return true }
        windowWaits += 1
        return false
    }

    /// True when `sequence` may be written: its row is free, now or once what is settled was handed on to `stream`,
    /// which is done only while `handedOn` is false (once per pass over many sends: a chat row is long to look through).
    mutating func hasRoom(
        for sequence: Int, at now: UInt64, streamingTo stream: SettledQueue?, handedOn: inout Bool
    ) -> Bool {
        if ledger.canWrite(sequence: sequence) { return true }
        guard !handedOn else { return false }
        handedOn = true
        handOnSettled(at: now, to: stream, endingIntervals: false)
        return ledger.canWrite(sequence: sequence)
    }

    /// Streams the settled rows to the run's writer, and the report intervals that ended when `endingIntervals` (at
    /// housekeeping: not where a send waits for a row, as each end looks through the oldest row).
    mutating func handOnSettled(at now: UInt64, to stream: SettledQueue?, endingIntervals: Bool = true) {
        guard let stream, startNanoseconds != 0 else { return }
        announceBegunBroadcasts(at: now) { stream.push($0) }
        ledger.flush(at: now, ending: false) { stream.push($0) }
        if endingIntervals { endIntervals(at: now) { stream.push($0) } }
        stream.publish()
    }

    /// Sending began at `now`: the run's time origin, and the stream's first entry.
    mutating func start(at now: UInt64, streamingTo stream: SettledQueue?) {
        startNanoseconds = now
        startUnixNanoseconds = WallClock.nowUnixNanoseconds()
        if let grouping = LinkGrouping.of(agents, clients: configuration.clients) { stream?.announce(grouping) }
        stream?.push(startEntry)
        stream?.publish()
    }

    /// The stream's end, however the run ended (`stream`'s first entry too, if sending never began).
    mutating func finishStream(to stream: SettledQueue?) {
        guard let stream else { return }
        if startNanoseconds == 0 { stream.push(startEntry) }
        finishStream { stream.push($0) }
        stream.publish()
        writerWaits = stream.producerWaits
    }

    /// The stream's first entry: sending began at ``startNanoseconds``.
    public var startEntry: SettledMessage {
        SettledMessage(kind: .start, scheduled: startNanoseconds)
    }

    /// Ends every report interval (`reportEvery`) that is over at `now` and whose messages were all handed on: each
    /// message counts in the interval it fell due in, and a row may wait for another's message (a chat row for every
    /// member's message of its number, which drift apart), so an interval's end waits for its messages, up to
    /// ``intervalHoldBack`` (one still held then counts in the first interval still open).
    public mutating func endIntervals(at now: UInt64, emit: (SettledMessage) -> Void) {
        let every = configuration.reportEvery
        guard every > 0, startNanoseconds != 0 else { return }
        while true {
            let boundary = startNanoseconds &+ UInt64(intervalsEnded + 1) &* every
            guard now >= boundary else { return }
            if now < boundary &+ intervalHoldBack, let due = ledger.earliestHeldDue, due < boundary { return }
            emit(SettledMessage(kind: .intervalEnd, sequence: intervalsEnded, scheduled: UInt64(intervalsEnded + 1) * every))
            intervalsEnded += 1
        }
    }

    /// How long an interval's end may wait for its messages past its own end: a message's timeout and the stamps'
    /// grace, and one interval more (what keeps the intervals open at once few: ``RunCollector/mostOpenIntervals``).
    var intervalHoldBack: UInt64 {
        configuration.timeout.addingClamped(MessageLedger.stampGrace).addingClamped(configuration.reportEvery)
    }

    /// The stream's end: every row left, the intervals, the last (partial) one, and ``SettledMessage/Kind/end``.
    public mutating func finishStream(emit: (SettledMessage) -> Void) {
        let end = max(endNanoseconds, startNanoseconds)
        announceBegunBroadcasts(at: .max, emit: emit)
        ledger.flush(at: .max, ending: true, emit: emit)
        endIntervals(at: end, emit: emit)
        emit(SettledMessage(
            kind: .intervalEnd, sequence: intervalsEnded, scheduled: startNanoseconds == 0 ? 0 : end - startNanoseconds))
        intervalsEnded += 1
        emit(SettledMessage(kind: .end))
        streamEnded = true
    }

    /// The whole stream of a recording that kept its messages (nothing was streamed during the run): its start, every
    /// row, the intervals, the end. The recording itself is left as it is.
    public func remainingStream() -> [SettledMessage] {
        var entries = [startEntry]
        var rest = self
        rest.finishStream { entries.append($0) }
        return entries
    }
}
