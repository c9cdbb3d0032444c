@testable import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// The metric definitions of SPEC §2 on hand-made recordings, where every expected number is known.
@Suite(.timeLimit(.minutes(10))) struct RunAnalysisTests {
    /// A fanout recording of 3 clients, 1 warmup broadcast and 2 measured ones; times in ns.
    private func fanoutRecording() -> RunRecording {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 3
        configuration.messages = 2
        configuration.warmup = 1
        configuration.timeout = 1_000_000  // 1 ms
        configuration.under = 300
        var recording = RunRecording(configuration: configuration)
        recording.startNanoseconds = 1_000_000
        // broadcast: (scheduled, t0, [(written, received, echoed)] for clients 0, 1, 2)
        let broadcasts: [(UInt64, UInt64, [(UInt64, UInt64, UInt64)])] = [
            (1_000_000, 1_000_010, [(1_000_010, 1_000_100, 1_000_200), (1_000_020, 1_000_110, 1_000_220),
                                    (1_000_030, 1_000_120, 1_000_230)]),  // warmup
            (2_000_000, 2_000_050, [(2_000_050, 2_000_150, 2_000_400), (2_000_060, 2_000_250, 2_000_300),
                                    (2_000_070, 2_000_350, 2_000_390)]),
            (3_000_000, 3_000_020, [(3_000_020, 3_000_120, 3_000_200), (3_000_030, 0, 0),  // client 1 never echoed
                                    (3_000_040, 3_000_500, 4_500_000)]),  // client 2's echo came after the timeout
        ]
        for (sequence, broadcast) in broadcasts.enumerated() {
            recording.sendBroadcast(sequence, due: broadcast.0, t0: broadcast.1, writes: broadcast.2.map(\.0))
            for (client, times) in broadcast.2.enumerated() where times.2 != 0 {
                // The ledger decides: an echo more than 1 ms after the write is late; no echo times out at the end.
                recording.echo(message: recording.ledger.messageIndex(sequence: sequence, client: client), received: times.1, echoed: times.2)
            }
        }
        return recording
    }

    @Test func deliverySpreadCompletionAndRoundTripFollowTheirDefinitions() throws {
        let analysis = RunAnalysis(recording: fanoutRecording())
        #expect(analysis.summaries.map(\.metric) == ["delivery", "spread", "completion", "rtt", "lag", "connect"])

        // Broadcast 1: deliveries 100, 200, 300 ns after t0; rtts 350, 240, 320.
        // Broadcast 2: client 0 delivered at 100 (rtt 180), client 1 never, client 2's echo came late: a message
        // has one fate, so client 2's is lost for delivery as for rtt, although its read was 480 ns after t0.
        let delivery = try #require(analysis.summary(of: .delivery))
        #expect(delivery.count == 4)
        #expect(delivery.lost == 2)
        #expect(delivery.min == 100)
        #expect(delivery.max == 300)
        #expect(delivery.percentUnder == 50)  // 100, 200 and 100 of 6 sent are under 300; 300 is not

        let rtt = try #require(analysis.summary(of: .rtt))
        #expect(rtt.count == 4)
        #expect(rtt.lost == 2)  // never echoed, and echoed after the 1 ms timeout
        #expect(rtt.min == 180)
        #expect(rtt.max == 350)

        // Only broadcast 1 is complete: spread 350 − 150 = 200, completion 350 − 50 = 300.
        #expect(analysis.broadcasts.map(\.isComplete) == [true, false])
        let spread = try #require(analysis.summary(of: .spread))
        #expect((spread.count, spread.lost, spread.min, spread.max) == (1, 1, 200, 200))
        #expect(spread.percentUnder == 50)
        let completion = try #require(analysis.summary(of: .completion))
        #expect((completion.count, completion.lost, completion.min) == (1, 1, 300))
        #expect(completion.percentUnder == 0)  // 300 is not under 300, and the other broadcast is lost

        // An incomplete broadcast keeps its survivors' first and last, but no spread or completion.
        let incomplete = analysis.broadcasts[1]
        #expect((incomplete.delivered, incomplete.lost) == (1, 2))
        #expect(incomplete.firstReceived == 3_000_120)
        #expect(incomplete.lastReceived == 3_000_120)
        #expect(incomplete.spread == nil && incomplete.completion == nil)

        // lag: t0 − scheduled of the measured broadcasts: 50 and 20.
        let lag = try #require(analysis.summary(of: .lag))
        #expect((lag.count, lag.min, lag.max) == (2, 20, 50))
    }

    @Test func warmupMessagesAreInNoStatistic() {
        let analysis = RunAnalysis(recording: fanoutRecording())
        #expect(analysis.measuredMessages == 6)
        #expect(analysis.broadcasts.map(\.sequence) == [1, 2])
        #expect(analysis.summary(of: .rtt)!.count + analysis.summary(of: .rtt)!.lost == 6)
    }

    @Test func messagesNeverWrittenAreLostAndMessagesNeverDueAreNotCounted() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 1)
        configuration.clients = 1
        configuration.messages = 4
        configuration.warmup = 0
        var recording = RunRecording(configuration: configuration)
        recording.send(message: 0, due: 10, at: 11)
        #expect(recording.echo(message: 0, received: 60, echoed: 111) == .measured(message: 0))
        recording.ledger.due(message: 1, at: 20)
        recording.ledger.dropped(1, as: .droppedQueueFull)
        recording.ledger.due(message: 2, at: 30)
        recording.ledger.dropped(2, as: .droppedClosed)
        recording.ledger.due(message: 3, at: 40)
        let rtt = try #require(RunAnalysis(recording: recording).summary(of: .rtt))
        #expect(rtt.count == 1)
        #expect(rtt.lost == 2)
        #expect(rtt.min == 100)
        let lag = try #require(RunAnalysis(recording: recording).summary(of: .lag))
        #expect(lag.count == 1)
        #expect(lag.min == 1)
    }
}
