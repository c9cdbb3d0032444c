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
