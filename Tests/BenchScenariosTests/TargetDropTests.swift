@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// `--drop-connections-at` against a server nobody here wrote (nats-server): the harness cannot close the server's side,
/// so every share of the clients is ordered to close its own connections, as a network that drops them would. With
/// `--reconnect` every client comes back through a whole new handshake, each outage counted; without it they stay away
/// and what was theirs is lost, and counted. Clients on two threads and in two agents (whose threads take their orders
/// through the agent's relay). And an agent's own `--reconnect`, which a target run's spec overrides, is said, not
/// silently dropped. Serialized, as the other real servers' tests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetDropTests {
    static let subscribers = TargetRestartTests.subscribers

    static var natsInstalled: ConditionTrait {
        .enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server")
    }

    @Test(natsInstalled, arguments: TargetRestartTests.Placement.allCases)
    func aFanOutsDropHasEverySubscriberBackAndEachOutageCounted(_ placement: TargetRestartTests.Placement) throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        var configuration = try TargetRestartTests.fanout(.nats, target, broadcasts: 300)  // 3 s
        configuration.dropConnectionsAt = 1_000_000_000
        let (run, agents) = try TargetRestartTests.begin(configuration, placement)
        let recording = try run.finish()
        for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(events.filter { $0.contains("closed by --drop-connections-at") }.count == Self.subscribers, "\(events.prefix(12))")
        #expect(recording.outages.count == Self.subscribers && recording.outagesBack == Self.subscribers, "\(events.prefix(12))")
        #expect(recording.outages.allSatisfy { $0.returnPhases != nil && ($0.reconnectTime ?? 0) > 0 })
        // Every drop after the order went, within one housekeeping pass of it.
        let dropped = recording.server.connectionsDroppedAt
        #expect(dropped >= recording.startNanoseconds + configuration.dropConnectionsAt!)
        #expect(recording.outages.allSatisfy { $0.closed >= dropped })
        #expect(!events.contains { $0.hasPrefix("publisher:") }, "the publisher stays: \(events.prefix(12))")

        let files = try RunFiles.write(recording)
        #expect(files.settings["connections_dropped"] == "1")
        #expect(files.settings["client_outages"] == "\(Self.subscribers)")
        #expect(files.settings["client_outages_back"] == "\(Self.subscribers)")
        #expect(try files.table("reconnects.csv").count == Self.subscribers)
        let afterwards = try TargetRestartTests.broadcastsAfterEveryReturn(recording, files)
        #expect(afterwards.count >= 20, "the run went on after the returns")
        let undelivered = afterwards.filter { $0.int("delivered") != Self.subscribers }
        let start = recording.startNanoseconds
        #expect(undelivered.isEmpty, "\(undelivered.prefix(3).map { ($0["broadcast"]!, $0["t0_ns"]!, $0["delivered"]!) }); outages \(recording.outages.map { ($0.client, $0.closed &- start, $0.back &- start) })")
    }

    /// A round trip's clients dropped: each comes back, and every message scheduled once all were back is echoed.
    @Test(natsInstalled) func aRoundTripsClientsComeBackAfterTheirDrop() throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        var configuration = try TargetServerTests.roundtrip(target, clients: Self.subscribers, messages: 400)  // 2 s
        configuration.reconnect = TargetRestartTests.backoff
        configuration.dropConnectionsAt = 800_000_000
        let (run, _) = try TargetRestartTests.begin(configuration, .twoThreads)
        let recording = try run.finish()

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(recording.outages.count == Self.subscribers && recording.outagesBack == Self.subscribers, "\(events.prefix(12))")
        let files = try RunFiles.write(recording)
        // The measuring thread orders a client's messages again once its return's report came over the channel, just
        // after the return was stamped: 100 ms is a bound only a stalled channel reaches (as for the fan-outs').
        let lastBack = Int(try #require(recording.outages.map(\.back).max()) &- recording.startNanoseconds) + 100_000_000
        let afterwards = files.samples.filter { ($0.int("scheduled_ns") ?? 0) > lastBack }
        #expect(afterwards.count >= 20 * Self.subscribers, "the run went on after the returns")
        #expect(afterwards.allSatisfy { $0["outcome"] == "echoed" }, "\(afterwards.filter { $0["outcome"] != "echoed" }.prefix(3))")
    }

    /// Without `--reconnect` the dropped subscribers stay away: each outage is counted as one that did not come back, the
    /// broadcast in flight is lost and counted, and with nobody left to measure the run ends there, failed (it did not
    /// measure its timetable), in words that say why.
    @Test(natsInstalled) func subscribersDroppedWithoutReconnectStayAwayAndTheRunFailsSayingWhy() throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        var configuration = try TargetServerTests.fanout(target, subscribers: Self.subscribers, broadcasts: 300)  // 3 s
        configuration.dropConnectionsAt = 1_000_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .failed)
        #expect(recording.statusReason == "every subscriber was dropped (--drop-connections-at) and none came back")
        #expect(recording.outages.count == Self.subscribers && recording.outagesBack == 0)
        let files = try RunFiles.write(recording)
        #expect(files.settings["client_outages"] == "\(Self.subscribers)" && files.settings["client_outages_back"] == "0")
        #expect(files.broadcasts.count < configuration.messages, "the run ended at the drop")
        let delivery = try #require(files.summary["delivery"])
        #expect((delivery.int("count") ?? 0) + (delivery.int("lost") ?? 0) == Self.subscribers * files.broadcasts.count)
    }

    /// `bench clients --reconnect` joining a `--target` run: its clients reconnect as the run says, and the agent says
    /// that its own backoff was not used.
    @Test(natsInstalled) func anAgentsOwnReconnectInATargetRunIsSaidNotDropped() throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        let configuration = try TargetServerTests.fanout(target, subscribers: 2, broadcasts: 20)
        let (run, agents) = try BackgroundRun.withAgents(
            configuration, agents: 1, clientsEach: 2, token: "own", agentReconnect: TargetRestartTests.backoff)
        _ = try run.finish()
        let outcome = try #require(try agents.first?.join().get())
        #expect(outcome.notes == [
            "this agent's --reconnect was not used: a --target run's clients reconnect as the run says (not at all: give "
                + "--reconnect to bench serve)",
        ])
    }
}
