import BenchNet

/// The ring of messages in flight: which rows are settled, handing them on in order, reusing them.
extension RunRecording {
    /// How long after a row's writes its transmit stamps are waited for before it is handed on without them.
    static var stampGrace: UInt64 { 20_000_000 }

    /// The most messages the ring holds (rows × clients): about 230 MB. A faster timetable waits for rows, and its
    /// lateness shows as lag.
    static var maximumMessagesInFlight: Int { 4 << 20 }

    /// The rows a live run needs so that its timetable never waits for one: every sequence sent within a timeout
    /// (and the stamps' grace and a housekeeping tick) of the oldest, with room for Poisson's bursts and, in
    /// roundtrip, for the clients' own timetables drifting apart (6 σ of a random walk over the run). Closed loop
    /// needs few. Never more than the run's own sequences.
    public static func window(for configuration: RunConfiguration) -> Int {
        let sequences = configuration.sequencesPerClient
        var rows = 256
        if configuration.interval > 0 {
            let span = configuration.timeout + stampGrace + 100_000_000
            rows = Int(min(span / configuration.interval, UInt64(maximumMessagesInFlight))) * 5 / 4 + 16
            if configuration.scenario == .roundtrip && configuration.clients > 1 {
                let expected = Double(max(1, configuration.expectedMessages / configuration.clients))
                rows += 6 * Int(expected.squareRoot()) + 16
            }
        }
        let fitting = max(4, maximumMessagesInFlight / max(1, configuration.clients))
        return max(1, min(sequences, rows, fitting))
    }

    /// True when `sequence` can be written now: its row is free, or holds it already.
    @inline(__always)
    public func canWrite(sequence: Int) -> Bool {
        sequence < flushedUpTo + window
    }

    /// True when `sequence` may be written: its row is free, now or once what is settled was handed on to `stream`
    /// (without a stream the ring holds the whole run). Counts a send that must wait in ``windowWaits``.
    mutating func makeRoom(for sequence: Int, at now: UInt64, streamingTo stream: SettledQueue?) -> Bool {
        if canWrite(sequence: sequence) { return true }
        handOnSettled(at: now, to: stream)
        if canWrite(sequence: sequence) { return true }
        windowWaits += 1
        return false
    }

    /// Streams the settled rows and the report intervals that ended to the run's writer.
    mutating func handOnSettled(at now: UInt64, to stream: SettledQueue?) {
        guard let stream, startNanoseconds != 0 else { return }
        flush(at: now, ending: false) { stream.push($0) }
        endIntervals(at: now) { stream.push($0) }
    }

    /// Sending began at `now`: the run's time origin, and the stream's first entry.
    mutating func start(at now: UInt64, streamingTo stream: SettledQueue?) {
        startNanoseconds = now
        startUnixNanoseconds = WallClock.nowUnixNanoseconds()
        stream?.push(startEntry)
    }

    /// The stream's end, however the run ended (`stream`'s first entry too, if sending never began).
    mutating func finishStream(to stream: SettledQueue?) {
        guard let stream else { return }
        if startNanoseconds == 0 { stream.push(startEntry) }
        finishStream { stream.push($0) }
        writerWaits = stream.producerWaits
    }

    /// The sequence numbers whose rows are in the ring now (up to the run's last).
    var heldSequences: Range<Int> {
        flushedUpTo..<min(flushedUpTo + window, configuration.sequencesPerClient)
    }

    /// True when nothing more will be sent: stopped; an open-loop timetable (`timetableSpent` non-nil) spent and, with
    /// `--duration`, the duration passed (the whole timetable goes out, late if need be: its lateness is lag, not a
    /// backlog dropped unseen); a closed loop's duration passed or its messages all `dispatched`.
    func isSendingOver(at now: UInt64, stopping: Bool, timetableSpent: Bool?, dispatched: Int) -> Bool {
        if stopping { return true }
        if let timetableSpent { return timetableSpent && (configuration.duration == nil || isDurationOver(at: now)) }
        return isDurationOver(at: now) || dispatched == configuration.totalMessages
    }

    /// True once `--duration` has passed since the start.
    func isDurationOver(at now: UInt64) -> Bool {
        guard let duration = configuration.duration, startNanoseconds != 0 else { return false }
        return now >= startNanoseconds &+ duration
    }

    /// The stream's first entry: sending began at ``startNanoseconds``.
    public var startEntry: SettledMessage {
        SettledMessage(kind: .start, scheduled: startNanoseconds)
    }

    /// Hands on, oldest first, every row whose messages are all settled, as ``SettledMessage``s to `emit`, and frees
    /// it. A row waits while a message of it has not had its turn or waits for its echo; in open loop a message whose
    /// timeout passed is settled here as timed out (closed loop settles its own). With kernel stamps a row also waits,
    /// up to ``stampGrace`` after its writes, for its transmit stamps. `ending` hands on every row that is left:
    /// what is still in flight timed out, what never had its turn is not streamed.
    public mutating func flush(at now: UInt64, ending: Bool, emit: (SettledMessage) -> Void) {
        let last = ending ? min(flushedUpTo + window, configuration.sequencesPerClient) : configuration.sequencesPerClient
        while flushedUpTo < last {
            let row = row(of: flushedUpTo)
            guard ending || isSettled(row: row, at: now) else { return }
            handOn(row: row, emit: emit)
        }
    }

    /// True when every message of `row` is settled and its stamps are in (or overdue).
    private mutating func isSettled(row: Int, at now: UInt64) -> Bool {
        let clients = configuration.clients
        let openLoop = configuration.interval > 0
        let fanout = configuration.scenario == .fanout
        var stampsDue: UInt64 = 0
        for index in row * clients..<(row + 1) * clients {
            switch outcome[index] {
            case .notDispatched:
                return false
            case .written:
                guard openLoop && now >= written[index] &+ configuration.timeout else { return false }
            default:
                break
            }
            if usesKernelStamps && !fanout && written[index] != 0 && writtenKernel[index] == 0 {
                stampsDue = max(stampsDue, written[index] &+ Self.stampGrace)
            }
        }
        if usesKernelStamps && fanout && broadcastStart[row] != 0 && kernelBroadcastStart(row: row) == 0 {
            stampsDue = broadcastStart[row] &+ Self.stampGrace
        }
        return now >= stampsDue
    }

    /// Emits `row`'s measured messages (and in fanout its broadcast), clears it and moves the ring on.
    private mutating func handOn(row: Int, emit: (SettledMessage) -> Void) {
        let clients = configuration.clients
        let sequence = flushedUpTo
        let measured = sequence >= configuration.warmup
        let fanout = configuration.scenario == .fanout
        let t0Kernel = kernelBroadcastStart(row: row)
        for index in row * clients..<(row + 1) * clients {
            if outcome[index] == .written { settle(index, as: .timedOut) }
            if isMeasured(message: index) {
                emit(settledMessage(at: index, t0Kernel: t0Kernel))
                if !measuredPerClient.isEmpty {
                    let client = index - row * clients
                    measuredPerClient[client] += 1
                    if !outcome[index].isMeasurement { lostPerClient[client] += 1 }
                }
            }
            clear(message: index)
            if usesKernelStamps { (writtenKernel[index], receivedKernel[index], echoedKernel[index]) = (0, 0, 0) }
            if !fanout { scheduled[index] = 0 }
        }
        if fanout {
            if measured && broadcastStart[row] != 0 {
                emit(SettledMessage(
                    kind: .broadcast, sequence: sequence, scheduled: scheduled[row],
                    broadcastStart: broadcastStart[row], broadcastStartKernel: t0Kernel))
            }
            (scheduled[row], broadcastStart[row]) = (0, 0)
        }
        flushedUpTo += 1
    }

    /// Ends every report interval (`reportEvery`) that is over at `now`.
    public mutating func endIntervals(at now: UInt64, emit: (SettledMessage) -> Void) {
        let every = configuration.reportEvery
        guard every > 0, startNanoseconds != 0 else { return }
        while now >= startNanoseconds &+ UInt64(intervalsEnded + 1) &* every {
            emit(SettledMessage(kind: .intervalEnd, sequence: intervalsEnded, scheduled: UInt64(intervalsEnded + 1) * every))
            intervalsEnded += 1
        }
    }

    /// The stream's end: every row left, the last (partial) interval, and ``SettledMessage/Kind/end``.
    public mutating func finishStream(emit: (SettledMessage) -> Void) {
        let end = max(endNanoseconds, startNanoseconds)
        endIntervals(at: end, emit: emit)
        flush(at: .max, ending: true, emit: emit)
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
