@testable import BenchClients
import BenchCore
import Foundation
import Testing

@testable import BenchScenarios

/// A target run's agents behind the run's link (`--link`, dealt to them in their client spec): each one's link is its
/// own, and what it did comes back to the run's events once the run is over, on the collector's clock.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AgentLinkEventsTests {
    /// A fan-out of the WebSocket relay's broadcasts, one every `interval`, its clients behind `link`.
    private static func fanout(
        _ relay: ExternalServer, subscribers: Int, broadcasts: Int, interval: UInt64, link: String
    ) throws -> RunConfiguration {
        var configuration = try TargetServerTests.fanout("ws://127.0.0.1:\(relay.port)/", subscribers: subscribers, broadcasts: broadcasts)
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(HTTP2FrontInteropTests.broadcast) }
        (configuration.interval, configuration.warmup) = (interval, 2)
        configuration.link = try LinkMix(parsing: link)
        return configuration
    }

    @Test(.enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed"))
    func eachAgentsBlackoutIsInTheRunsEvents() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        let configuration = try Self.fanout(relay, subscribers: 4, broadcasts: 16, interval: 250_000_000, link: "blackout=1s@1s")
        let (run, agents) = try BackgroundRun.withAgents(configuration, agents: 2, clientsEach: 2, token: "link")
        let recording = try run.finish()
        for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }
        let link = recording.connectionEvents.filter { $0.side == .link }
        #expect(link.map(\.reason) == Array(repeating: "link: blackout for 1s: no byte either way", count: 2), "\(link)")
        #expect(link.allSatisfy { $0.time > recording.startNanoseconds - 10_000_000_000 && $0.time < recording.endNanoseconds })
        #expect(recording.status == .complete)
    }

    /// A connection to the agents' port that never says hello (a health check, a port scan) is no agent: the run's end
    /// closes it, waits for nothing from it, and says nothing of its link.
    @Test(.enabled(if: WebSocketTransportTests.pythonHasWebSockets, "python3-websockets is not installed"))
    func aConnectionThatNeverJoinedIsNotWaitedFor() throws {
        let relay = try ExternalServer.python("ws_broadcast_server.py")
        defer { relay.stop() }
        let configuration = try Self.fanout(relay, subscribers: 2, broadcasts: 8, interval: 100_000_000, link: "delay=1ms")
        let (run, agents) = try BackgroundRun.withAgents(configuration, agents: 1, clientsEach: 2, token: "stray")
        let stray = try RawPeer(port: run.port())
        let recording = try run.finish()
        for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }
        _ = stray
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(!reasons.contains { $0.contains("did not come within") }, "\(reasons)")
        #expect(recording.status == .complete)
    }
}
