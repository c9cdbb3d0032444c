import BenchNet

/// The open loop: the timetable's sends, as they fall due.
extension MeasuringRole {
    /// Sends the events of the timetable that are due, then arms the timer for the next one.
    ///
    /// When the harness has fallen behind, it sends for at most ``SendDriver/catchUpBudget`` before going back to
    /// its event loop (the timer, armed in the past, fires again at once): echoes keep being read and a stop request
    /// is heard, however far behind the timetable is. The lateness shows as lag.
    ///
    /// A send whose row of the ring is still taken (``MessageLedger/canWrite(sequence:)``) waits aside
    /// (``SendDriver/waitingForRows``) while the timetable goes on, and goes once its row is free, a millisecond at a
    /// time: where every client has a timetable of its own (roundtrip, chat), one far ahead must not hold back the
    /// others' sends, which are what settle the row it waits for. A client's later sends wait behind it: each
    /// timetable's sends go in their order.
    func dispatchDueEvents() throws(SystemError) {
        guard driver.plan != nil, isRunning, !isStopping else { return }
        let start = recording.startNanoseconds
        let began = MonotonicClock.now()
        var sent = 0
        var handedOn = false  // settled rows are handed on once per call
        func hasRoom(for sequence: Int) -> Bool {
            recording.hasRoom(for: sequence, at: MonotonicClock.now(), streamingTo: stream, handedOn: &handedOn)
        }
        if !driver.waitingForRows.isEmpty {
            var waiting = driver.takeWaitingForRows()
            waiting.removeAll { event in  // keeps the others in order
                guard driver.isTurn(of: event), hasRoom(for: event.sequence) else { return false }
                send(event)
                sent += 1
                return true
            }
            driver.waitAgain(waiting)
        }
        while let event = driver.plan!.next {
            let due = start + event.offset
            let now = MonotonicClock.now()
            guard due <= now, sent == 0 || now - began < SendDriver.catchUpBudget else { break }
            if let spent = driver.advancePlan() { recording.ledger.timetableEnded(spent.client, before: spent.end) }
            sent += 1
            let timed = SendDriver.TimedSend(sequence: event.sequence, client: event.client, due: due)
            if driver.isTurn(of: timed) && hasRoom(for: event.sequence) {
                send(timed)
            } else {
                driver.waitForRow(timed)
                recording.windowWaits += 1
            }
        }
        let next = driver.plan!.next.map { start + $0.offset }
        if !driver.waitingForRows.isEmpty {
            try sendTimer.arm(at: min(next ?? .max, MonotonicClock.now() + 1_000_000))
        } else if let next {
            try sendTimer.arm(at: next)
        }
    }

    /// Sends `event`, whose turn came and whose row of the ring is free.
    @inline(__always)
    private func send(_ event: SendDriver.TimedSend) {
        driver.took(event)
        let due = event.due
        switch configuration.scenario {
        case .fanout: sendBroadcast(event.sequence, scheduled: due)
        case .roundtrip:
            let index = recording.ledger.messageIndex(sequence: event.sequence, client: event.client)
            _ = sendMessage(index, sequence: event.sequence, scheduled: due)
        case .chat:
            sendChatMessage(sequence: event.sequence, sender: event.client, scheduled: due)
        }
    }
}
