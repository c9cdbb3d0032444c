import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// Attacks on `--drop-connections-at` and `--reconnect`: each test is a bug that was found, kept as a regression test.
@Suite struct ReconnectAttackTests {
    /// Closed-loop fanout: while every client is away, a broadcast has nobody to go to and nobody to wait for. Before
    /// the fix the server kept sending them on every wake-up of its loop (with `--busy-poll`: hundreds during a 50 ms
    /// outage), each one counted lost for every client: the lost count measured the loop's speed, not the outage.
    /// Like closed-loop roundtrip's parked clients, nothing is sent until a client is back.
    @Test func closedLoopFanoutSendsNoBroadcastWhileEveryClientIsAway() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 21)
        configuration.clients = 3
        configuration.messages = 3_000
        configuration.warmup = 0
        configuration.interval = 0
        configuration.busyPoll = true
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        configuration.dropConnectionsAt = 150_000_000
        configuration.reconnect = ReconnectBackoff(base: 60_000_000, maximum: 60_000_000, tries: 5)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete)
        #expect(recording.outages.count == 3 && recording.outages.allSatisfy { $0.back > $0.closed })
        var sentToNobody = 0
        for sequence in 0..<configuration.sequencesPerClient {
            let outcomes = (0..<configuration.clients).map {
                recording.outcome[recording.messageIndex(sequence: sequence, client: $0)]
            }
            if outcomes.allSatisfy({ $0 == .droppedClosed }) { sentToNobody += 1 }
        }
        #expect(sentToNobody == 0, "\(sentToNobody) broadcasts went out while no client was connected")
    }
}
