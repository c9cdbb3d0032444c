import Foundation
import Glibc
import Testing

/// A link in child processes (`--client-procs` with `--link`): each child's clients sit behind a link of its own, and
/// what it did comes back to the run's events.csv once the run is over, as a link in the measuring process's does.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ChildLinkEventsTests {
    @Test(.enabled(if: HandshakeHeaderTests.hasWebSockets, "python3-websockets is not installed: apt-get install -y python3-websockets"))
    func eachChildsBlackoutIsInTheRunsEvents() throws {
        let (relay, port) = try startFixture("ws_broadcast_server.py")
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        let result = try BenchProcess.run([
            "fanout", "--target", "ws://127.0.0.1:\(port)/", "--publish", #"{"type":"broadcast","payload":"{marker}{padding}"}"#,
            "--client-procs", "2", "--clients", "4", "--link", "blackout=1s@1s", "--duration", "4s", "--interval", "250ms",
            "--arrival", "fixed", "--warmup", "2", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try csvRows(folder + "/events.csv").filter { $0["side"] == "link" }
        #expect(events.map { $0["reason"] } == Array(repeating: "link: blackout for 1s: no byte either way", count: 2), "\(events)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["link_events"] == "2" && settings["status"] == "complete", "\(settings["status_reason"] ?? "")")
        let deliveries = try csvRows(folder + "/samples.csv").compactMap { Int($0["delivery_ns"] ?? "") }
        #expect(deliveries.contains { $0 >= 500_000_000 }, "the children's clients sat behind the blackout")
    }
}

/// The built-in server's agents (`bench serve` and `bench clients`), behind the run's link or one of their own: what
/// each one's link did comes back to the run's events.csv once the run is over, on the server's clock.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AgentLinkEventsCLITests {
    @Test(arguments: [false, true])
    func eachAgentsBlackoutIsInTheRunsEvents(ownLink: Bool) throws {
        let link = ["--link", "blackout=1s@1s"]
        let (server, port) = try startServe([
            "fanout", "--clients", "4", "--duration", "4s", "--interval", "250ms", "--arrival", "fixed", "--token", "t",
            "--quiet", "--out", temporaryFolderPath(),
        ] + (ownLink ? [] : link))
        let agents = try (0..<2).map { _ in
            try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"] + (ownLink ? link : []))
        }
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for agent in agents { #expect(try BenchProcess.finish(agent, timeout: 30).exitCode == 0) }
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try csvRows(folder + "/events.csv").filter { $0["side"] == "link" }
        #expect(events.map { $0["reason"] } == Array(repeating: "link: blackout for 1s: no byte either way", count: 2), "\(events)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["link_events"] == "2" && settings["status"] == "complete", "\(settings["status_reason"] ?? "")")
    }

    /// An agent's own link whose NAT forgets idle connections: the server takes both of its clients for dead, and
    /// reconnects.csv lists them, as for the run's own link (the agent's link is known only once it joined).
    @Test func anAgentsOwnNATWritesTheOutagesAndItsEvent() throws {
        let (server, port) = try startServe([
            "fanout", "--clients", "2", "--duration", "9s", "--interval", "3s", "--arrival", "fixed", "--heartbeat", "5s",
            "--dead-after", "6s", "--token", "t", "--quiet", "--out", temporaryFolderPath(),
        ])
        let agent = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t", "--link", "nat-idle=2s"])
        let served = try BenchProcess.finish(server, timeout: 60)
        _ = try BenchProcess.finish(agent, timeout: 30)
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let outages = try csvRows(folder + "/reconnects.csv")
        #expect(outages.compactMap { $0["client"] }.sorted() == ["0", "1"], "\(served.standardError)")
        let events = try csvRows(folder + "/events.csv").filter { $0["side"] == "link" }.compactMap { $0["reason"] }
        #expect(events.count == 1 && events[0].hasPrefix("link: its NAT forgot 2 connections idle for 2s"), "\(events)")
    }

    /// An agent whose clients all end before the run does (dropped, and no --reconnect) ends too, and sends what its
    /// link did then: taken, as at the run's end.
    @Test func anAgentThatEndsBeforeTheRunSendsItsLinkEventsAllTheSame() throws {
        let (server, port) = try startServe([
            "fanout", "--clients", "2", "--duration", "4s", "--interval", "250ms", "--arrival", "fixed",
            "--drop-connections-at", "2s", "--link", "blackout=500ms@500ms", "--token", "t", "--quiet", "--out", temporaryFolderPath(),
        ])
        let agent = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        let served = try BenchProcess.finish(server, timeout: 60)
        _ = try BenchProcess.finish(agent, timeout: 30)
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try csvRows(folder + "/events.csv").compactMap { $0["reason"] }
        #expect(events.contains("link: blackout for 500ms: no byte either way"), "\(events)")
        #expect(!events.contains { $0.contains("link event") }, "\(events)")
    }
}
