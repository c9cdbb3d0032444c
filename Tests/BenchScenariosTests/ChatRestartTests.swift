@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// A chat through a user's server (nats-server) that is killed mid-run and started again on its port, stopped for a
/// while (`--dead-after` finds it), or whose members all drop their connections at a time (`--drop-connections-at`),
/// its members coming back with `--reconnect`: each
/// member's outage is counted, and every message sent once all were back reaches every other member of its room.
/// Serialized, as the other real servers' tests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ChatRestartTests {
    /// 6 members in 2 rooms through `target`, `messages` each 10 ms apart, coming back by the restart tests' backoff.
    static func chat(_ target: String, messages: Int) throws -> RunConfiguration {
        var configuration = try ChatTargetTests.chat(target, clients: 6, rooms: ChatRoomPlan(rooms: 2))
        configuration.messages = messages
        configuration.timeout = 1_000_000_000
        configuration.reconnect = TargetRestartTests.backoff
        return configuration
    }

    /// The messages sent once every member was back, and the measuring thread had heard so (100 ms after the last
    /// return: see TargetRestartTests.broadcastsAfterEveryReturn): at least 20 of each member's, each delivered to both
    /// other members of its room.
    static func expectEveryMessageAfterTheReturnsDelivered(_ recording: RunRecording, _ files: RunFiles) throws {
        let start = recording.startNanoseconds
        let lastBack = Int(try #require(recording.outages.map(\.back).max()) &- start) + 100_000_000
        let afterwards = files.samples.filter { ($0.int("sent_ns") ?? 0) > lastBack }
        #expect(afterwards.count >= 6 * 2 * 20, "the run went on after the returns: \(recording.outages.map { ($0.client, $0.closed &- start, $0.back &- start) })")
        #expect(afterwards.allSatisfy { $0["lost"] == "0" }, "\(afterwards.filter { $0["lost"] != "0" }.prefix(3))")
    }

    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func aChatsMembersComeBackAfterTheServerRestarts() throws {
        var (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        let configuration = try Self.chat(target, messages: 300)  // 3 s
        let run = try BackgroundRun(configuration)
        run.waitUntilDispatched(6 * 2 * 30)
        try TargetRestartTests.restart(&external)
        let recording = try run.finish()

        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(recording.outages.count == 6 && recording.outagesBack == 6, "\(events.prefix(12))")
        let files = try RunFiles.write(recording)
        #expect(files.settings["client_outages"] == "6" && files.settings["client_outages_back"] == "6")
        #expect(try files.table("reconnects.csv").count == 6)
        try Self.expectEveryMessageAfterTheReturnsDelivered(recording, files)
        let delivery = try #require(files.summary["delivery"])
        #expect((delivery.int("lost") ?? 0) > 0, "messages went while the server was away")
    }

    /// `--drop-connections-at` in a chat through nats-server: every member drops its connection at once and comes back.
    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func aChatsMembersDroppedAtATimeComeBack() throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        var configuration = try Self.chat(target, messages: 200)  // 2 s
        configuration.dropConnectionsAt = 800_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(events.filter { $0.contains("closed by --drop-connections-at") }.count == 6, "\(events.prefix(12))")
        #expect(recording.outages.count == 6 && recording.outagesBack == 6, "\(events.prefix(12))")
        try Self.expectEveryMessageAfterTheReturnsDelivered(recording, try RunFiles.write(recording))
    }

    /// `--dead-after` in a chat through nats-server stopped (SIGSTOP) for three times the limit: every member takes it
    /// for dead, comes back once it goes on, and the messages after the returns reach their rooms.
    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func aChatsMembersFindAStoppedServerDeadAndComeBack() throws {
        let (external, target) = try TargetRestartTests.start(.nats)
        defer { external.stop() }
        var configuration = try Self.chat(target, messages: 400)  // 4 s
        configuration.silenceLimit = 500_000_000
        configuration.deadAfter = 500_000_000  // as --dead-after sets both: the run still waits for the returns
        configuration.heartbeat = 200_000_000  // the pings that show the server alive once the members are quiet
        let run = try BackgroundRun(configuration)
        run.waitUntilDispatched(6 * 2 * 30)
        kill(external.process.processIdentifier, SIGSTOP)
        usleep(1_500_000)
        kill(external.process.processIdentifier, SIGCONT)
        let recording = try run.finish()
        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(12))")
        #expect(events.filter { $0.contains("taken for dead") }.count >= 6, "\(events.prefix(12))")
        #expect(recording.outages.count >= 6 && recording.outagesBack == recording.outages.count, "\(recording.outages)")
        try Self.expectEveryMessageAfterTheReturnsDelivered(recording, try RunFiles.write(recording))
    }
}
