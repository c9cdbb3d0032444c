@testable import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// Which runs report a connect's phases, and how: a target's scheme decides them; they are counted at the run's end
/// like `connect` (never in the live view's or an interval's metrics); each connected client's phases are counted
/// once, in the metric of each.
@Suite struct ConnectPhaseMetricsTests {
    @Test(arguments: [
        ("wss://127.0.0.1:1/live", ["connect_tcp", "connect_tls", "connect_ws", "subscribe"]),
        ("mqtt+ws://127.0.0.1:1/t", ["connect_tcp", "connect_ws", "subscribe"]),
        ("mqtts://127.0.0.1:1/t", ["connect_tcp", "connect_tls", "subscribe"]),
        ("redis://127.0.0.1:1/c", ["connect_tcp", "subscribe"]),
    ])
    func aTargetsSchemeDecidesItsPhases(target: String, phases: [String]) throws {
        let configuration = try TargetServerTests.fanout(target, subscribers: 3, broadcasts: 1)
        let reported = RunAnalysis.Metric.reported(by: configuration).map(\.rawValue)
        #expect(reported.drop { $0 != "connect" }.dropFirst().prefix(phases.count).elementsEqual(phases), "\(reported)")
        // Counted at the end, as connect is: the live view and the intervals have none of them.
        let collector = RunCollector(configuration: configuration, live: true)
        let live = try #require(collector.liveSnapshot(at: 1)).totals.map(\.metric)
        #expect(live.allSatisfy { !phases.contains($0) && $0 != "connect" }, "\(live)")
    }

    /// Over plain tcp (the default) a built-in client's connect is its TCP connect: no phases (over tls, ws and wss:
    /// `BuiltInConnectPhasesTests`).
    @Test func theBuiltInServersClientsOverTCPReportTheirConnectWhole() {
        let reported = RunAnalysis.Metric.reported(by: RunConfiguration(scenario: .fanout, seed: 1))
        #expect(!reported.contains { $0.isConnectPhase } && reported.contains(.connect))
    }

    /// Each connected client's phases, once; a client not connected (a connect time of 0) is in none.
    @Test func eachConnectedClientsPhasesAreCounted() throws {
        let configuration = try TargetServerTests.fanout("wss://127.0.0.1:1/live", subscribers: 3, broadcasts: 1)
        var recording = RunRecording(configuration: configuration)
        recording.connected(client: 0, after: 6, phases: ConnectPhases(tcp: 1, tls: 2, webSocket: 3, subscribe: 4_000))
        recording.connected(client: 2, after: 60, phases: ConnectPhases(tcp: 10, tls: 20, webSocket: 30, subscribe: 8_000))
        let analysis = RunAnalysis(recording: recording)
        for (metric, values) in [(RunAnalysis.Metric.connectTLS, [2, 20]), (.subscribe, [4_000, 8_000]), (.connect, [6, 60])] {
            let summary = try #require(analysis.summary(of: metric))
            #expect(summary.count == 2 && summary.lost == 0, "\(metric)")
            #expect(summary.min == UInt64(values[0]) && summary.max == UInt64(values[1]), "\(metric)")
        }
    }
}
