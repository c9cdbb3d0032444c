import BenchClients
import BenchCore
import BenchNet

/// A role that measures: the built-in server (``BenchServer``), and for a user's server its clients, with their
/// publisher in fanout (``TargetClients``).
///
/// The measuring core is written once, in this protocol's extension: the open-loop timetable with its catch-up
/// budget, the closed loop's turns, the ledger's events as the send driver must hear them (``written(_:at:)``,
/// ``dropped(_:as:)``, ``clientGone(_:)``, ``echo(sequence:client:_:)``), closed-loop timeouts, handing settled rows
/// on, and when the run is over. A role supplies the piece that is its own: how a broadcast or a message is written, whether a client
/// is connected, whether anyone is left. Everything is generic over the concrete role, so nothing here is an
/// existential on the per-message path.
protocol MeasuringRole: AnyObject {
    var configuration: RunConfiguration { get }
    var control: RunControl { get }
    var recording: RunRecording { get set }
    var driver: SendDriver { get set }
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    var stream: SettledQueue? { get }
    /// Fires when the next open-loop send is due.
    var sendTimer: MonotonicTimer { get }
    /// Sending has begun.
    var isRunning: Bool { get }
    /// A stop was asked: nothing more is sent.
    var isStopping: Bool { get }

    /// Fanout: writes broadcast `sequence`, due at `scheduled`, to every client: ``SendDriver/beginBroadcast(_:)``,
    /// then per client ``written(_:at:)`` or ``dropped(_:as:)``; then ``SendDriver/dispatched(_:at:)``.
    func sendBroadcast(_ sequence: Int, scheduled: UInt64)
    /// Roundtrip: writes message `index` (`sequence` of its client), due at `scheduled`; true when it went out (and
    /// waits for its echo), false when it was settled as lost at once.
    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool
    /// Chat: has `sender` write its message `sequence`, due at `scheduled`, to its room (``TargetClients``: the built-in
    /// server is not a chat relay's measuring side).
    func sendChatMessage(sequence: Int, sender: Int, scheduled: UInt64)
    /// True while `client`'s connection is open.
    func isConnected(_ client: Int) -> Bool
    /// False once `client`, away, will not come back (it used its tries, or what carried it ended).
    func mayReturn(_ client: Int) -> Bool
    /// How many clients are connected now, and how many came back after a drop so far (for the live view).
    var connectedClients: Int { get }
    var returnedClients: Int { get }
    /// The busiest client thread's CPU share (percent) among those that report theirs while the run goes; nil: none has.
    var reportedClientThreadPercent: Double? { get }
    /// Closed-loop fanout: true when the next broadcast may go now (someone is there to receive it).
    func mayBroadcast(at now: UInt64) -> Bool
    /// True when nobody is left to measure: the run is over whatever is left to send.
    func isEveryoneGone(at now: UInt64) -> Bool
    /// True while nobody is connected but clients may still come back (`--reconnect`, `--drop-connections-at`): the
    /// run waits for them, even past its last send, since their outages are measured too.
    func isWaitingForReturns(at now: UInt64) -> Bool
}

extension MeasuringRole {
    /// A user's server's clients do not come back (`--reconnect` is the built-in server's): nothing to wait for.
    func isWaitingForReturns(at now: UInt64) -> Bool { false }
    func mayReturn(_ client: Int) -> Bool { true }
    var returnedClients: Int { 0 }
    func sendChatMessage(sequence: Int, sender: Int, scheduled: UInt64) {
        preconditionFailure("a chat run is measured by its clients' role (TargetClients)")
    }

    // MARK: The ledger's events, with what they mean for the send driver

    /// Message `index` went out at `time` (in fanout, one of the broadcast in flight).
    @inline(__always)
    func written(_ index: Int, at time: UInt64) {
        recording.ledger.written(index, at: time)
        if configuration.scenario == .fanout { driver.broadcastMessageWritten() }
    }

    /// Message `index` was not written, for `reason` (``MessageOutcome/droppedClosed``,
    /// ``MessageOutcome/droppedQueueFull``).
    @inline(__always)
    func dropped(_ index: Int, as reason: MessageOutcome) {
        settled(index, wasInFlight: recording.ledger.dropped(index, as: reason))
    }

    /// Message `index` was not written because its client's write queue was full (in chat, its sender's): lost, and the
    /// client counted as a slow consumer (``RunRecording/queueFullDrops``).
    @inline(__always)
    func droppedForFullQueue(_ index: Int) {
        let slow = recording.ledger.chat == nil
            ? recording.ledger.receiver(ofMessage: index) : recording.ledger.sender(ofMessage: index)
        recording.queueFullDrops[slow] += 1
        dropped(index, as: .droppedQueueFull)
    }

    /// `client`'s connection closed: what it still owed is lost with it.
    func clientGone(_ client: Int) {
        let (clients, window) = (configuration.clients, recording.ledger.window)  // not read while the ledger changes
        recording.ledger.clientGone(client) { driver.settled($0, clients: clients, window: window, wasInFlight: true) }
    }

    /// `client` was away until `back` (`.max`: it will receive nothing more): what went to it before then is lost to
    /// it, dropped with its connection (``MessageLedger/wasAway(_:until:settled:)``).
    func clientWasAway(_ client: Int, until back: UInt64) {
        let (clients, window) = (configuration.clients, recording.ledger.window)  // not read while the ledger changes
        recording.ledger.wasAway(client, until: back) { driver.settled($0, clients: clients, window: window, wasInFlight: true) }
    }

    /// Client `client` echoed message `sequence` with `stamps` (on this clock): the ledger's answer, which the caller
    /// acts on (the driver has heard of a message that left flight).
    @inline(__always)
    func echo(sequence: Int, client: Int, _ stamps: MessageLedger.EchoStamps) -> MessageLedger.EchoAction {
        let action = recording.ledger.echo(sequence: sequence, client: client, stamps)
        if let message = action.settledMessage { settled(message, wasInFlight: true) }
        return action
    }

    /// A client's group wrote message `index` at `time` (on this clock), reported at `now`.
    func writeReported(_ index: Int, at time: UInt64, arrival now: UInt64) -> MessageLedger.StampAction {
        let action = recording.ledger.writeReported(index, at: time, arrival: now)
        if action == .implausible(settled: true) { settled(index, wasInFlight: true) }
        return action
    }

    /// Chat: `sender`'s client wrote its message `sequence` at `time` (on this clock), reported at `now`.
    func writeReported(broadcast sequence: Int, sender: Int, at time: UInt64, arrival now: UInt64) -> MessageLedger.StampAction {
        let (clients, window) = (configuration.clients, recording.ledger.window)  // not read while the ledger changes
        return recording.ledger.writeReported(broadcast: sequence, sender: sender, at: time, arrival: now) {
            driver.settled($0, clients: clients, window: window, wasInFlight: true)
        }
    }

    /// Chat: `member` read `sender`'s message `sequence` with `stamps` (on this clock): the ledger's answer.
    @inline(__always)
    func delivered(sequence: Int, sender: Int, member: Int, _ stamps: MessageLedger.EchoStamps) -> MessageLedger.EchoAction {
        let action = recording.ledger.delivered(sequence: sequence, sender: sender, member: member, stamps)
        if let message = action.settledMessage { settled(message, wasInFlight: true) }
        return action
    }

    /// Message `index` settled; in closed loop, that may let the next message go.
    @inline(__always)
    private func settled(_ index: Int, wasInFlight: Bool) {
        driver.settled(index, clients: configuration.clients, window: recording.ledger.window, wasInFlight: wasInFlight)
    }

    // MARK: Closed loop

    /// Sends the next broadcast once the last one is settled, or each ready client's next message.
    func sendClosedLoop(at now: UInt64) {
        guard driver.plan == nil, !isStopping, !isDurationOver(at: now) else { return }
        switch configuration.scenario {
        case .fanout:
            let next = driver.currentBroadcast + 1
            if driver.unresolvedInBroadcast == 0 && next < configuration.sequencesPerClient && mayBroadcast(at: now)
                && recording.makeRoom(for: next, at: now, streamingTo: stream)
            {
                sendBroadcast(next, scheduled: now)
            }
        case .roundtrip:
            while let (client, sequence) = driver.nextReadyClient() {
                guard sequence < configuration.sequencesPerClient else { continue }
                if configuration.expectsReconnects && !isConnected(client) && mayReturn(client) {
                    driver.park(client)  // until it is back (``SendDriver/unpark(_:)``)
                    continue
                }
                guard recording.makeRoom(for: sequence, at: now, streamingTo: stream) else {
                    driver.retryLater(client, advancing: false)
                    continue
                }
                let index = recording.ledger.messageIndex(sequence: sequence, client: client)
                if sendMessage(index, sequence: sequence, scheduled: now) {
                    driver.took(client, awaiting: index)
                } else if isConnected(client) {
                    driver.retryLater(client, advancing: true)  // its queue was full: one failure, one message
                } else {
                    driver.tookAndLost(client)  // gone: the rest of its series is lost at once
                }
            }
            driver.endPass()
        case .chat:
            break  // open loop only: each member's own timetable
        }
    }

    /// Closed loop: gives up on messages whose timeout passed, so that the next ones can go.
    func expireClosedLoopMessages(at now: UInt64) {
        guard driver.plan == nil else { return }
        let timeout = configuration.timeout
        switch configuration.scenario {
        case .fanout:
            let sequence = driver.currentBroadcast
            let broadcast = recording.ledger.broadcastIndex(sequence: sequence, sender: 0)
            guard driver.unresolvedInBroadcast > 0, now >= recording.ledger.broadcastStart[broadcast] + timeout
            else { return }
            for client in 0..<configuration.clients {
                let index = recording.ledger.messageIndex(sequence: sequence, client: client)
                if recording.ledger.timedOut(index) { settled(index, wasInFlight: true) }
            }
        case .chat:
            break  // open loop only: rows hand timed-out messages on
        case .roundtrip:
            for client in 0..<configuration.clients {
                let index = driver.awaited[client]
                if index >= 0 && now >= recording.ledger.written[index] + timeout && recording.ledger.timedOut(index) {
                    settled(index, wasInFlight: true)
                }
            }
        }
    }

    // MARK: Housekeeping and the end

    /// Every housekeeping tick: closed-loop timeouts, settled rows handed on, progress published.
    func measuringHousekeeping(at now: UInt64) {
        expireClosedLoopMessages(at: now)
        recording.handOnSettled(at: now, to: stream)
        control.dispatchedMessages.store(driver.dispatched, ordering: .relaxed)
        control.echoedMessages.store(recording.ledger.echoesReceived, ordering: .relaxed)
        control.connectedClients.store(connectedClients, ordering: .relaxed)
        control.reconnects.store(returnedClients, ordering: .relaxed)
        if driver.cpuAtStart != 0 && now > recording.startNanoseconds && recording.startNanoseconds != 0 {
            let measuring = Double(ThreadCPUTime.now() - driver.cpuAtStart) / Double(now - recording.startNanoseconds)
            let busiest = min(1, max(measuring, (reportedClientThreadPercent ?? 0) / 100))
            control.busiestThreadPartsPerMillion.store(Int(busiest * 1_000_000), ordering: .relaxed)
        }
    }

    /// True when the run is over: nobody is left, or nothing more will be sent and every message is settled (or the
    /// last one's timeout passed).
    func isFinished(at now: UInt64) -> Bool {
        if isEveryoneGone(at: now) { return true }
        if isWaitingForReturns(at: now) { return false }
        guard isSendingOver(at: now) else { return false }
        let settled = driver.resolved == driver.dispatched && recording.ledger.ownCopiesAwaited == 0
        return settled || now >= driver.lastDispatch + configuration.timeout
    }

    // These read the recording's fields one by one: a method of the whole recording, called through the protocol's
    // getter, would copy it (and retain everything it holds) on every call, and the closed loop asks per message.

    /// True when nothing more will be sent: stopped; an open-loop timetable spent and, with `--duration`, the duration
    /// passed (the whole timetable goes out, late if need be: its lateness is lag, not a backlog dropped unseen); a
    /// closed loop's duration passed or its messages all dispatched.
    private func isSendingOver(at now: UInt64) -> Bool {
        isStopping || isTimetableDone(at: now)
    }

    /// True when the run's own sends are done, whatever stopped it: an open-loop timetable spent and, with
    /// `--duration`, the duration passed; a closed loop's duration passed or its messages all dispatched.
    func isTimetableDone(at now: UInt64) -> Bool {
        if let plan = driver.plan {
            return plan.next == nil && driver.waitingForRows.isEmpty
                && (configuration.duration == nil || isDurationOver(at: now))
        }
        return isDurationOver(at: now) || driver.dispatched == configuration.totalMessages
    }

    /// True once `--duration` has passed since sending began.
    private func isDurationOver(at now: UInt64) -> Bool {
        let start = recording.startNanoseconds
        guard let duration = configuration.duration, start != 0 else { return false }
        return now >= start &+ duration
    }

    /// How the run ended, decided in one place for every role: a stop asked (not the sampling's stop once decided) is
    /// an interrupted run, said with `stopped`; otherwise the role's `failure`, if the run failed.
    func recordEnding(stopped: String, failure: String?) {
        if isStopping && !recording.endedWhenDecided {
            recording.ended(as: .interrupted, because: stopped)
        } else if let failure {
            recording.ended(as: .failed, because: failure)
        }
    }

    /// The end of the run's measuring: what still waits for its echo timed out, the end time is set, the busiest client
    /// thread that reported its share is kept (beside what this process's own client threads say), and the progress
    /// counters are final.
    func finishMeasuring() {
        let runQueueWait = driver.runQueueWaitAtStart.flatMap { start in ThreadRunQueueWait.now().map { $0 &- start } }
        recording.measuringThreadEnded(
            cpu: driver.cpuAtStart == 0 ? nil : ThreadCPUTime.now() - driver.cpuAtStart, runQueueWait: runQueueWait,
            endedWhenDecided: control.isStoppedWhenDecided)
        if driver.cpuAtStart != 0 {
            recording.longestThreadWait = ThreadSchedules.now().longestWait(since: driver.threadsAtStart)
        }
        if let busiest = reportedClientThreadPercent { recording.keepBusiestClientThread(busiest) }
        recording.ledger.timeOutWhatIsInFlight()
        if recording.endNanoseconds == 0 { recording.endMeasuring(at: MonotonicClock.now()) }
        control.dispatchedMessages.store(driver.dispatched, ordering: .relaxed)
        control.echoedMessages.store(recording.ledger.echoesReceived, ordering: .relaxed)
    }
}
