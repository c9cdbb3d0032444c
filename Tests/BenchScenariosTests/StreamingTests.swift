@testable import BenchClients
import BenchCore
import BenchNet
import Synchronization
import Testing

@testable import BenchScenarios

/// The pieces that keep a long run's memory flat: the lazily drawn timetable, the ring of messages in flight, and the
/// queue to the writer.
@Suite(.timeLimit(.minutes(10))) struct StreamingTests {
    // MARK: The timetable, one send at a time

    @Test(arguments: [Scenario.fanout, .roundtrip], [Arrival.poisson, .fixed])
    func theTimetableDrawnOneSendAtATimeIsTheOneDrawnWhole(scenario: Scenario, arrival: Arrival) {
        var configuration = RunConfiguration(scenario: scenario, seed: 42)
        configuration.clients = scenario == .fanout ? 7 : 5
        configuration.messages = 300
        configuration.arrival = arrival
        // The timetable as it was drawn before: every client's series whole, merged by (time, message index).
        var expected: [(UInt64, Int, Int)] = []
        for client in 0..<(scenario == .fanout ? 1 : configuration.clients) {
            var random = SplitMix64(seed: 42, stream: SendPlan.scheduleStream(client: client))
            let phase = scenario == .roundtrip ? random.nextBounded(configuration.interval) : 0
            let series = SendSchedule.offsets(
                count: configuration.sequencesPerClient, meanInterval: configuration.interval, arrival: arrival,
                rng: &random)
            for (sequence, offset) in series.enumerated() { expected.append((phase + offset, sequence, client)) }
        }
        expected.sort { ($0.0, $0.1 * configuration.clients + $0.2) < ($1.0, $1.1 * configuration.clients + $1.2) }
        var plan = SendPlan(configuration: configuration)
        var drawn: [(UInt64, Int, Int)] = []
        while let next = plan.next {
            drawn.append((next.offset, next.sequence, next.client))
            plan.advance()
        }
        #expect(drawn.count == expected.count)
        #expect(zip(drawn, expected).allSatisfy { $0 == $1 }, "the same seed repeats the same run")
    }

    @Test func aDurationEndsTheTimetableAtTheLastSendDueBeforeIt() {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.arrival = .fixed
        configuration.interval = 10_000_000
        configuration.duration = 1_000_000_000
        var plan = SendPlan(configuration: configuration)
        var count = 0
        while let next = plan.next {
            #expect(next.offset < 1_000_000_000)
            count += 1
            plan.advance()
        }
        #expect(count == 100, "0, 10 ms, … 990 ms")
    }

    // MARK: The ring of messages in flight

    /// A fanout recording of 2 clients with a ring of 3 rows, open loop, 10 broadcasts, 1 warmup.
    private func ring() -> RunRecording {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 2
        configuration.messages = 9
        configuration.warmup = 1
        configuration.interval = 1_000
        configuration.timeout = 10_000
        configuration.timestamps = .user
        var recording = RunRecording(configuration: configuration, window: 3)
        recording.startNanoseconds = 1
        return recording
    }

    private func broadcast(_ sequence: Int, at time: UInt64, echoed: Bool, in recording: inout RunRecording) {
        recording.sendBroadcast(sequence, due: time, t0: time, writes: [time, time])
        for client in 0..<2 where echoed {
            recording.echo(message: recording.ledger.messageIndex(sequence: sequence, client: client), received: time + 10, echoed: time + 20)
        }
    }

    @Test func rowsAreHandedOnInOrderOnceSettledAndThenReused() {
        var recording = ring()
        var entries: [SettledMessage] = []
        for sequence in 0..<3 { broadcast(sequence, at: UInt64(1_000 * (sequence + 1)), echoed: sequence != 1, in: &recording) }
        #expect(!recording.ledger.canWrite(sequence: 3), "three rows, all taken")
        recording.ledger.flush(at: 5_000, ending: false) { entries.append($0) }
        #expect(recording.ledger.flushedUpTo == 1, "the warmup row went (unstreamed); row 1 still waits for its echoes")
        #expect(entries.isEmpty)
        #expect(recording.ledger.canWrite(sequence: 3) && !recording.ledger.canWrite(sequence: 4))
        // Its timeout passes: open loop settles it as timed out, and row 2 follows.
        recording.ledger.flush(at: 2_000 + 10_000, ending: false) { entries.append($0) }
        #expect(recording.ledger.flushedUpTo == 3)
        #expect(entries.map(\.kind) == [.message, .message, .broadcast, .message, .message, .broadcast])
        #expect(entries.prefix(2).allSatisfy { $0.outcome == .timedOut && $0.sequence == 1 })
        #expect(entries[3].outcome == .echoed && entries[3].sequence == 2 && entries[3].received == 3_010)
        // The rows were cleared: sequence 4 finds an empty row.
        broadcast(3, at: 13_000, echoed: true, in: &recording)
        let index = recording.ledger.messageIndex(sequence: 4, client: 1)
        #expect(recording.ledger.outcome[index] == .notDispatched && recording.ledger.written[index] == 0)
        #expect(recording.ledger.sequence(ofRow: recording.ledger.row(of: 4)) == 4)
    }

    @Test func aRowNotYetSentWaitsAndTheEndHandsOnWhatIsLeft() {
        var recording = ring()
        var entries: [SettledMessage] = []
        broadcast(0, at: 1_000, echoed: true, in: &recording)
        broadcast(1, at: 2_000, echoed: true, in: &recording)
        recording.ledger.flush(at: .max, ending: false) { entries.append($0) }
        #expect(recording.ledger.flushedUpTo == 2, "row 2 was never sent: it waits")
        recording.endNanoseconds = 3_000
        recording.finishStream { entries.append($0) }
        #expect(entries.map(\.kind) == [.message, .message, .broadcast, .intervalEnd, .end])
        #expect(recording.streamEnded)
    }

    @Test func aLiveRunsRingIsSizedByItsTimeoutAndRateNotItsLength() {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 1_000
        configuration.interval = 50_000_000
        configuration.duration = 7 * 86_400 * 1_000_000_000
        let window = RunRecording.window(for: configuration)
        #expect(window >= 100 && window <= 200, "5 s timeout / 50 ms, with room: \(window)")
        configuration.interval = 1_000
        #expect(RunRecording.window(for: configuration) * configuration.clients <= RunRecording.maximumMessagesInFlight)
        configuration.duration = nil
        configuration.messages = 20
        #expect(RunRecording.window(for: configuration) == 30, "never more than the run's own sequences")
    }

    @Test func aFanoutRingHoldsItsOwnTimetablesLargestBurstAndNoMore() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 7)
        configuration.clients = 100_000
        configuration.messages = 30
        configuration.interval = 2_000_000_000
        configuration.arrival = .fixed
        // Sends at 0, 2 and 4 s fall within one 5 s timeout (and 120 ms of grace): three rows in flight, and the slack.
        #expect(RunRecording.window(for: configuration) == 3 + RunRecording.fanoutSlack)
        configuration.arrival = .poisson
        // The same timetable drawn here: every broadcast's row is free again before the broadcast `rows` later is due,
        // and one row fewer would not do.
        let span = configuration.timeout + MessageLedger.stampGrace + 100_000_000
        var random = SplitMix64(seed: 7, stream: SendPlan.scheduleStream(client: 0))
        var offsets: [UInt64] = [0]
        while offsets.count < 30 {
            offsets.append(SendSchedule.next(after: offsets.last!, meanInterval: 2_000_000_000, arrival: .poisson, rng: &random))
        }
        let rows = try #require(RunRecording.mostSends(within: span, of: configuration))
        #expect(RunRecording.window(for: configuration) == rows + rows / 4 + RunRecording.fanoutSlack)
        #expect(RunRecording.window(for: configuration) < 18, "fewer than a bound on Poisson's bursts: \(rows)")
        #expect(offsets.indices.dropLast(rows).allSatisfy { offsets[$0 + rows] - offsets[$0] >= span })
        #expect(offsets.indices.dropLast(rows - 1).contains { offsets[$0 + rows - 1] - offsets[$0] < span })
    }

    // MARK: The queue to the writer

    @Test func theQueueKeepsOrderAcrossItsWrapAndTheProducerWaitsWhenItIsFull() throws {
        let queue = try SettledQueue(capacity: 4)
        #expect(queue.capacity == 4)
        for sequence in 0..<3 { queue.push(SettledMessage(kind: .message, sequence: sequence)) }
        #expect(queue.pop()?.sequence == 0 && queue.pop()?.sequence == 1)
        for sequence in 3..<6 { queue.push(SettledMessage(kind: .message, sequence: sequence)) }  // wraps around
        let consumer = try NativeThread.spawn(name: "test-consumer") { () -> [Int] in
            var seen: [Int] = []
            let deadline = MonotonicClock.now() + 10_000_000_000
            Posix.sleep(nanoseconds: 50_000_000)  // the producer finds the ring full meanwhile
            while seen.last != 99 && MonotonicClock.now() < deadline {
                if let entry = queue.pop() { seen.append(entry.sequence) }
            }
            return seen
        }
        for sequence in 6..<100 { queue.push(SettledMessage(kind: .message, sequence: sequence)) }
        #expect(consumer.join() == Array(2..<100), "nothing lost, nothing reordered")
        #expect(queue.producerWaits >= 1)
        #expect(queue.pop() == nil)
    }

    // MARK: The stream always ends

    @Test func aRunThatCannotStartStillEndsItsStream() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.host = "192.0.2.1"  // not on this machine: listening fails
        let queue = try SettledQueue(capacity: 16)
        #expect(throws: RunError.self) { try ScenarioRunner.run(configuration, control: RunControl(), stream: queue) }
        #expect(queue.pop()?.kind == .end, "the writer is not left waiting")
    }

    @Test func aDurationRunWithoutAStreamIsRefused() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.duration = 1_000_000_000
        #expect(throws: RunError.self) { try ScenarioRunner.run(configuration, control: RunControl()) }
    }

    /// Closed loop: its ring is 256 rows whatever the timeout, so the ring goes round in a short run while the
    /// timeout stays one that only a hang reaches (an open-loop ring is sized by timeout ÷ interval, so a ring small
    /// enough to go round needed a 20 ms timeout, which a loaded machine's scheduler can miss).
    @Test func aStreamedRunHandsOnEveryMessageOnceInOrder() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 3)
        configuration.clients = 3
        configuration.messages = 1_000_000  // the duration ends it
        configuration.duration = 600_000_000
        configuration.warmup = 5
        configuration.interval = 0
        configuration.timeout = 60_000_000_000
        configuration.reportEvery = 50_000_000
        let (recording, entries) = try streamedRun(configuration)
        #expect(recording.status == .complete && recording.streamEnded)
        #expect(entries.first?.kind == .start && entries.last?.kind == .end)
        let messages = entries.filter { $0.kind == .message }
        #expect(recording.ledger.window < messages.count / 3, "the ring went round")
        for client in 0..<3 {
            let sequences = messages.filter { $0.client == client }.map(\.sequence)
            #expect(sequences == Array(5..<(5 + sequences.count)), "client \(client): every message once, in order, no warmup")
        }
        #expect(messages.allSatisfy { $0.outcome == .echoed && $0.written != 0 && $0.echoed > $0.written })
        let intervals = entries.filter { $0.kind == .intervalEnd }.map(\.sequence)
        let length = recording.endNanoseconds - recording.startNanoseconds
        #expect(intervals == Array(0..<intervals.count), "every interval once, in order")
        #expect(UInt64(intervals.count) >= length / 50_000_000, "one per 50 ms of a \(length / 1_000_000) ms run")
    }

    /// Closed loop, for the reason given above: the ring goes round while no echo can time out short of a hang.
    @Test(.enabled(if: TargetServerTests.hasPython, "python3 is not installed: apt-get install -y python3"))
    func aDurationRunThroughATargetStreamsThroughItsRing() throws {
        let server = try ExternalServer.python("framed_echo_server.py")
        defer { server.stop() }
        var configuration = try TargetServerTests.roundtrip("tcp://127.0.0.1:\(server.port)", clients: 2, messages: 1)
        configuration.interval = 0
        configuration.timeout = 60_000_000_000
        configuration.duration = 1_500_000_000
        configuration.reportEvery = 500_000_000
        let (recording, entries) = try streamedRun(configuration)
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        let messages = entries.filter { $0.kind == .message }
        #expect(recording.ledger.window < messages.count / 2, "the ring (\(recording.ledger.window) rows) went round")
        #expect(messages.allSatisfy { $0.outcome == .echoed }, "\(Set(messages.map(\.outcome)))")
        #expect(Set(messages.map { $0.sequence * 2 + $0.client }).count == messages.count, "each message once")
        #expect(entries.filter { $0.kind == .intervalEnd }.count >= 3, "every 500 ms of a 1.5 s run")
    }

    @Test(.enabled(if: TargetServerTests.hasRedis, "redis-server is not installed: apt-get install -y redis-server"))
    func aDurationFanoutThroughRedisStreamsEveryBroadcast() throws {
        let server = try ExternalServer.start(name: "redis") { port in
            (TargetServerTests.redisServer, ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        }
        defer { server.stop() }
        var configuration = try TargetServerTests.fanout("redis://127.0.0.1:\(server.port)/news", subscribers: 20, broadcasts: 1)
        configuration.interval = 0
        configuration.timeout = 60_000_000_000
        configuration.duration = 1_500_000_000
        let (recording, entries) = try streamedRun(configuration)
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        let broadcasts = entries.filter { $0.kind == .broadcast }
        #expect(recording.ledger.window < broadcasts.count, "the ring (\(recording.ledger.window) rows) went round")
        let messages = entries.filter { $0.kind == .message }
        #expect(messages.count == 20 * broadcasts.count && messages.allSatisfy { $0.outcome == .echoed })
    }
}
