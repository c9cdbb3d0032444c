import BenchClients
import BenchCore
import Testing

@testable import BenchScenarios

/// The one place a built-in server's client's report becomes part of the run (`RunRecording.take(clientReport:of:)`),
/// for this process's threads and an agent's alike: a connect time with its phases, an event during the run; what is
/// not one of its clients', or no time, or phases that do not add up, is refused saying why; what came after the run's
/// end is the teardown.
@Suite struct ClientReportTakingTests {
    static func recording() -> RunRecording {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 4
        return RunRecording(configuration: configuration)
    }

    @Test func aConnectTimeAndItsPhasesAreKeptForItsOwnClients() {
        var recording = Self.recording()
        #expect(recording.take(clientReport: ClientReport(.subscribed, client: 1, time: 1_000, text: "400,0,600,0"), of: 0..<2) == nil)
        #expect(recording.take(clientReport: ClientReport(.subscribed, client: 0, time: 700), of: 0..<2) == nil)
        #expect(recording.connectTimes == [700, 1_000, 0, 0])
        #expect(recording.connectPhases[1] == ConnectPhases(tcp: 400, tls: 0, webSocket: 600, subscribe: 0))
        #expect(recording.connectPhases[0] == nil)
    }

    @Test(arguments: [
        (ClientReport(.subscribed, client: 2, time: 1_000), "a connect time of a client not its own"),
        (ClientReport(.subscribed, client: 1, time: 0), "a connect time of a client not its own, or of no time"),
        (ClientReport(.subscribed, client: 1, time: 1_000, text: "401,0,600,0"), "do not add up"),
        (ClientReport(.subscribed, client: 1, time: 1_000, text: "four hundred"), "do not read"),
        (ClientReport(.closed, client: 3, time: 5, text: "reset"), "an event of a client not its own"),
        (ClientReport(.returned, client: 1, time: 5), "which is not a client's"),
        (ClientReport(.linkEvent, client: 0, time: 5), "which is not a client's"),
    ])
    func whatIsNotItsClientsIsRefusedSayingWhy(report: ClientReport, reason: String) {
        var recording = Self.recording()
        let refusal = recording.take(clientReport: report, of: 0..<2)
        #expect(refusal?.contains(reason) == true, "\(refusal ?? "taken")")
        #expect(recording.connectTimes == [0, 0, 0, 0] && recording.connectionEvents.isEmpty)
    }

    @Test func eventsOfTheRunAreKeptAndTheTeardownsAreNot() {
        var recording = Self.recording()
        #expect(recording.take(clientReport: ClientReport(.closed, client: 1, time: 10, text: "reset by peer"), of: 0..<2) == nil)
        #expect(recording.take(clientReport: ClientReport(.note, client: ClientReport.noClient, time: 11, text: "io_uring"), of: 0..<2) == nil)
        recording.endNanoseconds = 20
        #expect(recording.take(clientReport: ClientReport(.gaveUp, client: 0, time: 19, text: "gave up after 3 tries"), of: 0..<2) == nil)
        #expect(recording.take(clientReport: ClientReport(.closed, client: 0, time: 21, text: "after the end"), of: 0..<2) == nil)
        #expect(recording.connectionEvents.map(\.client) == [1, nil, 0])
        #expect(recording.connectionEvents.map(\.reason) == ["reset by peer", "io_uring", "gave up after 3 tries"])
        #expect(recording.connectionEvents.allSatisfy { $0.side == .clients })
    }
}
