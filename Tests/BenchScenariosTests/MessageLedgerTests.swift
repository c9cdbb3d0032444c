@testable import BenchClients
import Testing

@testable import BenchScenarios

/// The ledger of a message's fate, driven by its events alone (no sockets): every answer an echo or a reported stamp
/// can get, for the built-in server's echoes (an echo leg) and a target's reads (none) alike, and the cases in which
/// the three echo paths it replaced had drifted apart.
@Suite struct MessageLedgerTests {
    typealias Stamps = MessageLedger.EchoStamps

    /// 2 clients, 4 sequences, a timeout of 1,000 ns; closed loop unless `interval` is given.
    private func ledger(_ scenario: Scenario, interval: UInt64 = 0, kernel: Bool = false) -> MessageLedger {
        var configuration = RunConfiguration(scenario: scenario, seed: 1)
        configuration.clients = 2
        configuration.messages = 4
        configuration.warmup = 0
        configuration.interval = interval
        configuration.timeout = 1_000
        configuration.timestamps = kernel ? .both : .user
        return MessageLedger(configuration: configuration, window: 2)
    }

    /// Broadcast `sequence` (fanout) or every client's message `sequence` (roundtrip) written at `time`.
    private func send(_ sequence: Int, at time: UInt64, in ledger: inout MessageLedger) {
        if ledger.hasBroadcasts {
            ledger.due(broadcast: sequence, at: time)
            ledger.broadcastBegan(sequence, at: time)
        }
        for client in 0..<ledger.clients {
            let index = ledger.messageIndex(sequence: sequence, client: client)
            if !ledger.hasBroadcasts { ledger.due(message: index, at: time) }
            ledger.written(index, at: time)
        }
    }

    /// The built-in server's echo: read by the client at `received`, back at the server at `echoed`.
    private func serverEcho(_ received: UInt64, _ echoed: UInt64) -> Stamps {
        Stamps(received: received, echoed: echoed, arrival: echoed)
    }

    // MARK: In time, late, and the count the progress line shows

    @Test(arguments: [Scenario.fanout, .roundtrip])
    func anEchoWithinTheTimeoutIsMeasuredAndOneAfterItIsLateAndBothAreCounted(scenario: Scenario) {
        var ledger = ledger(scenario)
        send(0, at: 1_000, in: &ledger)
        #expect(ledger.echo(sequence: 0, client: 0, serverEcho(1_400, 1_900)) == .measured(message: 0))
        #expect(ledger.echo(sequence: 0, client: 1, serverEcho(1_500, 2_001)) == .late(message: 1, settled: true))
        #expect(ledger.outcome[0] == .echoed && ledger.outcome[1] == .late)
        #expect((ledger.received[1], ledger.echoed[1]) == (1_500, 2_001), "a late echo's times are kept")
        #expect(ledger.echoesReceived == 2, "late echoes count in the progress line, as in-time ones do")
    }

    @Test func aTargetsReadHasNoEchoLegAndIsJudgedByItsReadAlone() {
        var ledger = ledger(.fanout)
        send(0, at: 1_000, in: &ledger)
        #expect(ledger.echo(sequence: 0, client: 0, Stamps(received: 2_000, arrival: 9_000)) == .measured(message: 0))
        #expect(ledger.echo(sequence: 0, client: 1, Stamps(received: 2_001, arrival: 2_001)) == .late(message: 1, settled: true))
        #expect(ledger.echoed[0] == 0 && ledger.received[0] == 2_000)
        #expect(ledger.echoesReceived == 2, "the fan-out target's late reads count too (they did not)")
    }

    @Test func inFanoutTheClientsReadMustAlsoBeWithinTheTimeoutOfTheBroadcastsStart() {
        var ledger = ledger(.fanout)
        ledger.due(broadcast: 0, at: 1_000)
        ledger.broadcastBegan(0, at: 1_000)
        ledger.written(0, at: 1_800)  // a late write of the broadcast: its echo is quick, its delivery is not
        #expect(ledger.echo(sequence: 0, client: 0, serverEcho(2_100, 2_200)) == .late(message: 0, settled: true))
    }

    // MARK: Timed out first

    @Test func anEchoAfterAClosedLoopGaveUpMakesItLateAndKeepsItsCount() {
        var ledger = ledger(.roundtrip)
        send(0, at: 1_000, in: &ledger)
        let first = ledger.timedOut(0), second = ledger.timedOut(0)
        #expect(first && !second, "settled once")
        #expect(ledger.echo(sequence: 0, client: 0, serverEcho(2_500, 3_000)) == .late(message: 0, settled: false))
        #expect(ledger.outcome[0] == .late && ledger.echoesReceived == 1)
    }

    @Test(arguments: [Scenario.fanout, .roundtrip])
    func anImpossibleEchoOfATimedOutMessageMakesItInvalidInEveryRole(scenario: Scenario) {
        var ledger = ledger(scenario)
        send(0, at: 1_000, in: &ledger)
        #expect(ledger.timedOut(0) == true)
        // Before its write: with an echo leg (the built-in server) and without (a target's subscriber, which ignored it).
        guard case .implausible(0, false, let reason) = ledger.echo(sequence: 0, client: 0, serverEcho(900, 3_000)) else {
            Issue.record("an impossible echo of a timed-out message is not a measurement")
            return
        }
        #expect(reason.contains("not a measurement"))
        #expect(ledger.outcome[0] == .invalidTimestamp)
        #expect(ledger.timedOut(1) == true)
        #expect(ledger.echo(sequence: 0, client: 1, Stamps(received: 5_000, arrival: 4_000))
            == .implausible(message: 1, settled: false, reason: ledger.implausibleReason(1)))
        #expect(ledger.outcome[1] == .invalidTimestamp)
        #expect(ledger.echoesReceived == 0)
    }

    // MARK: Times that cannot be true

    @Test func receiveTimesOutsideTheWriteAndTheEchoAreNotMeasurements() {
        var ledger = ledger(.roundtrip, kernel: true)
        send(0, at: 1_000, in: &ledger)
        send(1, at: 2_000, in: &ledger)
        let lies: [(Int, Int, Stamps)] = [
            (0, 0, serverEcho(999, 1_500)),  // read before the write
            (0, 1, serverEcho(1_600, 1_500)),  // read after the echo came back
            (1, 0, Stamps(received: 2_100, echoed: 2_300, arrival: 2_200)),  // echoed after it was taken in
            (1, 1, Stamps(received: 2_100, receivedKernel: 2_200, echoed: 2_300, arrival: 2_300, kernelTolerance: 50)),
        ]
        for (sequence, client, stamps) in lies {
            let index = ledger.messageIndex(sequence: sequence, client: client)
            guard case .implausible(index, true, _) = ledger.echo(sequence: sequence, client: client, stamps) else {
                Issue.record("\(stamps) was taken")
                continue
            }
            #expect(ledger.outcome[index] == .invalidTimestamp)
        }
        #expect(ledger.echoesReceived == 0 && ledger.received.allSatisfy { $0 == 0 })
    }

    @Test func aKernelReceiveStampIsCheckedWithinItsToleranceOrNotAtAll() {
        var ledger = ledger(.roundtrip, kernel: true)
        send(0, at: 1_000, in: &ledger)
        let within = Stamps(received: 1_200, receivedKernel: 1_240, echoed: 1_300, arrival: 1_300, kernelTolerance: 50)
        #expect(ledger.echo(sequence: 0, client: 0, within) == .measured(message: 0))
        let unchecked = Stamps(received: 1_200, receivedKernel: 9_999, echoed: 1_300, arrival: 1_300)
        #expect(ledger.echo(sequence: 0, client: 1, unchecked) == .measured(message: 1))
        #expect(ledger.receivedKernel[0] == 1_240 && ledger.echoedKernel[1] == 0)
    }

    // MARK: Duplicates, stale echoes and echoes of what was never sent

    @Test func aSecondEchoOfAnyConcludedMessageIsADuplicate() {
        var ledger = ledger(.roundtrip)
        send(0, at: 1_000, in: &ledger)
        _ = ledger.echo(sequence: 0, client: 0, serverEcho(1_100, 1_200))
        _ = ledger.echo(sequence: 0, client: 1, serverEcho(900, 1_200))
        for client in 0..<2 {
            #expect(ledger.echo(sequence: 0, client: client, serverEcho(1_100, 1_300)) == .duplicate)
        }
        #expect(ledger.duplicateEchoes == 2 && ledger.outcome[0] == .echoed && ledger.received[0] == 1_100)
    }

    @Test func anEchoOfAMessageNeverWrittenOrOutsideTheRingIsNotSent() {
        var ledger = ledger(.roundtrip)
        ledger.due(message: 0, at: 1_000)
        ledger.dropped(0, as: .droppedQueueFull)
        #expect(ledger.echo(sequence: 0, client: 0, serverEcho(1_100, 1_200)) == .notSent(sequence: 0, client: 0, inRing: true))
        #expect(ledger.echo(sequence: 1, client: 0, serverEcho(1_100, 1_200)) == .notSent(sequence: 1, client: 0, inRing: true))
        #expect(ledger.echo(sequence: 2, client: 0, serverEcho(1_100, 1_200)) == .notSent(sequence: 2, client: 0, inRing: false))
        #expect(ledger.echo(sequence: 0, client: 2, serverEcho(1_100, 1_200)) == .notSent(sequence: 0, client: 2, inRing: false))
        #expect(ledger.echo(sequence: Int(UInt32.max), client: 0, serverEcho(1_100, 1_200))
            == .notSent(sequence: Int(UInt32.max), client: 0, inRing: false))
        #expect(ledger.outcome[0] == .droppedQueueFull)
    }

    @Test func anEchoOfARowHandedOnIsStale() {
        var ledger = ledger(.roundtrip, interval: 100)
        send(0, at: 1_000, in: &ledger)
        var handedOn: [SettledMessage] = []
        ledger.flush(at: 2_000, ending: false) { handedOn.append($0) }
        #expect(ledger.flushedUpTo == 1 && handedOn.allSatisfy { $0.outcome == .timedOut })
        #expect(ledger.echo(sequence: 0, client: 0, serverEcho(1_100, 2_100)) == .stale)
        #expect(ledger.echoesAfterHandOn == 1 && ledger.echoesReceived == 0)
    }

    // MARK: The writes a client's group reports

    @Test func aReportedWriteIsTakenBetweenTheOrderAndItsReportOrTheMessageIsInvalid() {
        var ledger = ledger(.roundtrip)
        send(0, at: 1_000, in: &ledger)
        #expect(ledger.writeReported(0, at: 1_050, arrival: 1_100) == .taken)
        #expect(ledger.written[0] == 1_050, "the group's stamp is the write")
        #expect(ledger.writeReported(1, at: 999, arrival: 1_100) == .implausible(settled: true))
        #expect(ledger.writeReported(1, at: 1_050, arrival: 1_100) == .ignored, "no longer in flight")
        send(1, at: 2_000, in: &ledger)
        #expect(ledger.timedOut(2) == true)
        #expect(ledger.writeReported(2, at: 2_200, arrival: 2_100) == .implausible(settled: false), "counted once")
        #expect(ledger.outcome[1] == .invalidTimestamp && ledger.outcome[2] == .invalidTimestamp)
    }

    @Test func transmitStampsAreKeptForMessagesThatWentOutOnly() {
        var ledger = ledger(.fanout, kernel: true)
        ledger.due(broadcast: 0, at: 1_000)
        ledger.broadcastBegan(0, at: 1_000)
        ledger.written(0, at: 1_000)
        ledger.dropped(1, as: .droppedClosed)
        ledger.transmitStamp(broadcast: 0, at: 1_010)
        #expect(ledger.writtenKernel[0] == 1_010 && ledger.writtenKernel[1] == 0)
        ledger.transmitStamp(broadcast: 3, at: 1_020)
        #expect(ledger.writtenKernel[0] == 1_010, "a broadcast not in the ring stamps nothing")
        var user = self.ledger(.roundtrip)
        send(0, at: 1_000, in: &user)
        user.transmitStamp(0, at: 1_010)
        #expect(user.writtenKernel.isEmpty, "without kernel stamps there is nowhere to keep one")
    }

    // MARK: A client gone, and the end

    @Test func aClientGoneLosesWhatItStillOwedAndNothingElse() {
        var ledger = ledger(.roundtrip)
        send(0, at: 1_000, in: &ledger)
        send(1, at: 2_000, in: &ledger)
        _ = ledger.echo(sequence: 0, client: 0, serverEcho(1_100, 1_200))
        var settled: [Int] = []
        ledger.clientGone(0) { settled.append($0) }
        #expect(settled == [ledger.messageIndex(sequence: 1, client: 0)])
        #expect(ledger.outcome[0] == .echoed && ledger.outcome[2] == .writtenThenClosed && ledger.outcome[3] == .written)
        ledger.timeOutWhatIsInFlight()
        #expect(ledger.outcome.filter { $0 == .timedOut }.count == 2)
    }
}

extension MessageLedger {
    /// The reason the ledger gives for an impossible echo of message `index` with the stamps the test sent.
    fileprivate func implausibleReason(_ index: Int) -> String {
        "echoed message 0 with receive time 5000 ns (kernel: 0 ns), outside its write (\(written[index]) ns) and the "
            + "echo's arrival (4000 ns): not a measurement"
    }
}
