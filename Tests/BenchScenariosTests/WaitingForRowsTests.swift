@testable import BenchClients
import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// Every client on a timetable of its own (roundtrip, chat) drifts apart from the others under Poisson gaps. A ring
/// of two rows: a client two sequences ahead of another finds its row still held by the other's message that is not
/// yet due. That send must wait aside while the timetable goes on; it used to hold the whole timetable, so the message
/// that would free the row was never sent and the run hung (a 10,000-member chat stopped sending after 40 s).
@Suite(.timeLimit(.minutes(10))) struct WaitingForRowsTests {  // as the others: the limit counts time waiting for a thread
    /// A measuring role whose clients echo every message the moment it is written.
    final class EchoAtOnce: MeasuringRole {
        let configuration: RunConfiguration
        let control: RunControl
        var recording: RunRecording
        var driver: SendDriver
        let stream: SettledQueue?
        let sendTimer: MonotonicTimer
        var isRunning = true
        var isStopping = false
        var sendTimes: [(sequence: Int, client: Int)] = []

        init(_ configuration: RunConfiguration, rows: Int) throws {
            self.configuration = configuration
            control = try RunControl()
            recording = RunRecording(configuration: configuration, window: rows)
            driver = SendDriver(configuration: configuration)
            stream = try SettledQueue(capacity: 1 << 12)
            sendTimer = try MonotonicTimer()
            recording.start(at: MonotonicClock.now(), streamingTo: stream)
        }

        func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
            let now = MonotonicClock.now()
            recording.ledger.due(message: index, at: scheduled)
            driver.dispatched(1, at: now)
            written(index, at: now)
            sendTimes.append((sequence, index % configuration.clients))
            let stamps = MessageLedger.EchoStamps(received: now, echoed: now, arrival: now)
            _ = echo(sequence: sequence, client: index % configuration.clients, stamps)
            return true
        }

        func sendBroadcast(_ sequence: Int, scheduled: UInt64) {}
        func isConnected(_ client: Int) -> Bool { true }
        var connectedClients: Int { configuration.clients }
        var reportedClientThreadPercent: Double? { nil }
        func mayBroadcast(at now: UInt64) -> Bool { true }
        func isEveryoneGone(at now: UInt64) -> Bool { false }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func aClientAheadOfTheOthersWaitsAsideAndEveryMessageGoes(seed: UInt64) throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: seed)
        (configuration.clients, configuration.messages, configuration.warmup) = (3, 40, 0)
        (configuration.interval, configuration.arrival) = (200_000, .poisson)  // the whole timetable: about 8 ms
        let role = try EchoAtOnce(configuration, rows: 2)
        var drained: [SettledMessage] = []
        let deadline = MonotonicClock.now() + 5_000_000_000  // only a hang reaches it
        while role.driver.plan!.next != nil || !role.driver.waitingForRows.isEmpty, MonotonicClock.now() < deadline {
            try role.dispatchDueEvents()
            while let entry = role.stream!.pop() { drained.append(entry) }  // the writer's side
        }
        #expect(role.sendTimes.count == 3 * 40, "every message went (\(role.sendTimes.count) of 120)")
        for client in 0..<3 {
            #expect(role.sendTimes.filter { $0.client == client }.map(\.sequence) == Array(0..<40), "client \(client) in order")
        }
        #expect(role.recording.windowWaits > 0, "a client ran ahead: the case this is about happened")
    }

    /// A `--duration` timetable ends at a different sequence for each client: the rows beyond a client's last send
    /// never get its message, and must not wait for it (they held the ring, and the clients still sending, for ever).
    @Test(arguments: [UInt64(4), 5, 6])
    func rowsBeyondAClientsLastSendDoNotWaitForIt(seed: UInt64) throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: seed)
        (configuration.clients, configuration.warmup, configuration.duration) = (3, 0, 8_000_000)
        (configuration.interval, configuration.arrival) = (200_000, .poisson)
        var plan = SendPlan(configuration: configuration)  // how many sends the timetable holds, counted apart
        var expected = [0, 0, 0]
        while let event = plan.next {
            expected[event.client] += 1
            plan.advance()
        }
        let role = try EchoAtOnce(configuration, rows: 2)
        let deadline = MonotonicClock.now() + 5_000_000_000  // only a hang reaches it
        while role.driver.plan!.next != nil || !role.driver.waitingForRows.isEmpty, MonotonicClock.now() < deadline {
            try role.dispatchDueEvents()
            while role.stream!.pop() != nil {}  // the writer's side
        }
        #expect(expected.min()! < expected.max()!, "the clients' timetables ended at different sequences: \(expected)")
        for client in 0..<3 {
            #expect(role.sendTimes.filter { $0.client == client }.map(\.sequence) == Array(0..<expected[client]))
        }
    }
}
