import Foundation
import Glibc
import Testing

/// `--link` from the command line: the built-in server's round trip and a chat through the built-in relay (a
/// target's path) behind an emulated link, each message at least the link's delay each way late, the link recorded in
/// run.csv; `bench links`; and every misuse refused before anything runs.
@Suite(.timeLimit(.minutes(10))) struct LinkCommandTests {
    private func settings(_ folder: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
    }

    @Test func aRoundTripBehindALinkTakesItsDelayBothWays() throws {
        let result = try BenchProcess.run([
            "roundtrip", "--link", "delay=20ms,jitter=5ms", "--clients", "3", "--count", "20", "--interval", "20ms",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 60 && samples.allSatisfy { $0["lost"] == "0" })
        let rtts = samples.compactMap { Int($0["rtt_ns"] ?? "") }
        #expect(rtts.count == 60 && rtts.allSatisfy { $0 >= 30_000_000 }, "at least 15 ms each way: \(rtts.min() ?? 0) ns")
        let run = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)  // quoted commas: read as text
        #expect(run.contains("\r\nlink,\"delay=20ms,jitter=5ms\"\r\n"), "\(run)")
        #expect(run.contains("\r\nlink_model,\"down unlimited 20.00ms ±5.00ms, up unlimited 20.00ms ±5.00ms\"\r\n"))
    }

    /// A chat through the built-in relay takes the path of a user's server (`--target`): its members behind the link.
    @Test func aChatsMembersBehindALinkHearEachOtherAtLeastTwoDelaysLate() throws {
        let result = try BenchProcess.run([
            "chat", "--link", "3g", "--clients", "6", "--room-size", "3", "--count", "5", "--rate", "10/s", "--seed", "5",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let deliveries = try csvRows(folder + "/samples.csv").compactMap { Int($0["delivery_ns"] ?? "") }
        #expect(deliveries.count == 6 * 5 * 2 && deliveries.allSatisfy { $0 >= 200_000_000 }, "100 ms up, 100 ms down")
        #expect(try settings(folder)["link"] == "3g")
        let page = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(page.contains("<tr><td>link</td><td>3g: down 780 kbit/s 100.00ms, up 330 kbit/s 100.00ms</td></tr>"))
    }

    /// A mix (issue 45: "a 90/10 mix reports each group apart"): each group's clients dealt by the seed, and every
    /// metric again per group in summary.csv (a `link` column), the terminal and report.html, each group as late as its
    /// own link and no later: the direct group on loopback, LTE's 50 ms down, 3G's 100 ms. `bench report` of the saved
    /// folder shows the groups again.
    @Test func aMixReportsEachLinkGroupApart() throws {
        let result = try BenchProcess.run([
            "fanout", "--link", "none:50%,lte:30%,3g:20%", "--clients", "10", "--messages", "10", "--interval", "100ms",
            "--seed", "3", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = try #require(result.standardOutput.split(separator: "\n").last { $0.hasPrefix("run folder: ") })
            .dropFirst("run folder: ".count)
        let rows = try csvRows(folder + "/summary.csv")
        func row(_ metric: String, _ link: String) throws -> [String: String] {
            try #require(rows.first { $0["metric"] == metric && $0["link"] == link }, "\(metric) of \(link)")
        }
        func p(_ row: [String: String], _ column: String) -> Double { Double(row[column] ?? "") ?? -1 }
        #expect(try row("delivery", "")["count"] == "100", "the run's own rows have an empty link")
        let (direct, lte, slow) = (try row("delivery", "none"), try row("delivery", "lte"), try row("delivery", "3g"))
        #expect([direct, lte, slow].map { $0["count"] } == ["50", "30", "20"], "5, 3 and 2 clients, 10 broadcasts each")
        #expect(p(direct, "max_us") >= 0 && p(direct, "max_us") < 50_000, "the direct path: no link's delay")
        #expect(p(lte, "min_us") >= 50_000 && p(lte, "p99_us") < 100_000, "LTE: 50 ms down, not 3G's 100")
        #expect(p(slow, "min_us") >= 100_000, "3G: 100 ms down")
        #expect(try row("spread", "3g")["count"] == "10" && row("connect", "lte")["count"] == "3")
        #expect(result.standardOutput.contains("behind a mix of emulated links (50% none (no link); 30% lte (down"))
        let table = result.standardOutput.split(separator: "\n").filter { $0.hasPrefix("none ") || $0.hasPrefix("3g ") }
        #expect(table.count == 2 && table[0].contains(" 5 ") && table[1].contains(" 2 "), "\(result.standardOutput)")
        let page = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(page.contains("<h2>by link</h2>") && page.contains("<tr><td>3g</td><td>delivery</td><td>20</td><td>0</td>"))
        // The folder read back: the same page.
        try FileManager.default.removeItem(atPath: folder + "/report.html")
        #expect(try BenchProcess.run(["report", String(folder)]).exitCode == 0)
        #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8) == page)
    }

    /// Clients in child processes (`--client-procs`), each child with the run's link for its share, dealt as the
    /// measuring side deals: each group as late as its own link, and counted in its own group.
    @Test func childProcessesPutTheirClientsBehindTheRunsLinks() throws {
        let result = try BenchProcess.run([
            "fanout", "--link", "none:50%,lte:50%", "--client-procs", "2", "--clients", "6", "--messages", "5",
            "--interval", "100ms", "--quiet", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try csvRows(folder + "/summary.csv")
        let direct = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == "none" })
        let lte = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == "lte" })
        #expect(direct["count"] == "15" && lte["count"] == "15" && direct["lost"] == "0" && lte["lost"] == "0")
        #expect((Double(direct["max_us"] ?? "") ?? .infinity) < 50_000, "the direct path")
        #expect((Double(lte["min_us"] ?? "") ?? 0) >= 50_000, "LTE's 50 ms down, in the children too")
        #expect(try csvRows(folder + "/agents.csv").count == 2, "the two children, listed as agents are")
        // How late the children's links let their bytes out behind the model: measured there, sent with their events.
        let settings = try settings(folder)
        let lateness = ["p50", "p99", "max"].compactMap { settings["link_lateness_\($0)_ns"].flatMap { Int($0) } }
        #expect(lateness.count == 3 && lateness[0] <= lateness[1] && lateness[1] <= lateness[2], "\(settings)")
        let summary = try String(contentsOfFile: folder + "/summary.md", encoding: .utf8)
        #expect(summary.contains("link: bytes let out after the model's time by p50 "), "\(summary)")
    }

    /// `bench serve --link`: every agent puts its share of the clients behind the run's links, dealt as the server
    /// deals them (the same groups whichever agent holds a client), and each group is reported apart.
    @Test func agentsPutTheirClientsBehindTheServedRunsLinks() throws {
        let (server, port) = try startServe([
            "fanout", "--link", "none:50%,lte:50%", "--clients", "6", "--messages", "5", "--interval", "100ms",
            "--token", "t", "--quiet", "--out", temporaryFolderPath(),
        ])
        let agents = try [2, 4].map { clients in
            try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "\(clients)", "--token", "t"])
        }
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for agent in agents { #expect(try BenchProcess.finish(agent, timeout: 30).exitCode == 0) }
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try csvRows(folder + "/summary.csv")
        let direct = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == "none" })
        let lte = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == "lte" })
        #expect(direct["count"] == "15" && lte["count"] == "15" && direct["lost"] == "0" && lte["lost"] == "0")
        #expect((Double(direct["max_us"] ?? "") ?? .infinity) < 50_000, "the direct path")
        #expect((Double(lte["min_us"] ?? "") ?? 0) >= 50_000, "LTE's 50 ms down, in both agents")
        #expect(try csvRows(folder + "/agents.csv").compactMap { $0["clients"] }.sorted() == ["2", "4"])
    }

    /// `bench clients --link`: an agent's own link, its clients a group of their own beside the others' (`none`), as late
    /// as its link and no later; agents.csv names it. An agent with a link joining a run that has one of its own is
    /// refused (it says why, and the run fails: its clients will not come), and a mix is the run's, not an agent's.
    @Test func anAgentPutsItsClientsBehindALinkOfItsOwn() throws {
        let (server, port) = try startServe([
            "fanout", "--clients", "6", "--messages", "5", "--interval", "100ms", "--token", "t", "--quiet",
            "--out", temporaryFolderPath(),
        ])
        // Longer than the run's 64-byte frames: it goes to the server in pieces.
        let spec = "down-delay=50ms,up-delay=1ms,down-rate=50mbit,up-rate=10mbit"
        let agents = try [["--link", spec], []].map { link in
            try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "t"] + link)
        }
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for agent in agents { #expect(try BenchProcess.finish(agent, timeout: 30).exitCode == 0) }
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try csvRows(folder + "/summary.csv")
        let direct = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == "none" }, "\(rows)")
        let lte = try #require(rows.first { $0["metric"] == "delivery" && $0["link"] == spec })
        #expect(direct["count"] == "15" && lte["count"] == "15" && direct["lost"] == "0" && lte["lost"] == "0")
        #expect((Double(direct["max_us"] ?? "") ?? .infinity) < 50_000, "the other agent's: no link")
        #expect((Double(lte["min_us"] ?? "") ?? 0) >= 50_000, "its link's 50 ms down")
        #expect(try csvRows(folder + "/agents.csv").compactMap { $0["link"] }.sorted() == ["", spec])

        let (linked, linkedPort) = try startServe([
            "fanout", "--link", "3g", "--clients", "2", "--messages", "5", "--token", "t", "--quiet",
            "--out", temporaryFolderPath(),
        ])
        let refused = try BenchProcess.run(
            ["clients", "--connect", "127.0.0.1:\(linkedPort)", "--clients", "2", "--token", "t", "--link", "lte"])
        #expect(refused.exitCode == 3)
        #expect(refused.standardError.contains("the run puts its clients behind --link 3g: an agent brings no link of its own"),
            "\(refused.standardError)")
        #expect(try BenchProcess.finish(linked, timeout: 60).exitCode == 3, "its agent left before the run began")
        let mix = try BenchProcess.run(["clients", "--connect", "127.0.0.1:1", "--token", "t", "--link", "lte:50%,3g:50%"])
        #expect(mix.exitCode == 2 && mix.standardError.contains("a mix is the run's: give it to bench serve"), "\(mix.standardError)")
    }

    /// Thresholds on one link group: LTE's delivery is judged on LTE's values (its 50 ms down breaches a 10 ms p50),
    /// the direct group's on its own (which holds); `bench check` keeps those verdicts and refuses a new one on a group
    /// (the folder has no group's values); a group the run does not have is a usage error.
    @Test func aThresholdJudgesOneLinkGroup() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--link", "none:50%,lte:50%", "--clients", "4", "--messages", "10", "--interval", "50ms",
            "--threshold", "delivery{link=lte}.p50<10ms", "--threshold", "delivery{link=none}.p50<40ms", "--quiet",
            "--out", out,
        ])
        #expect(result.exitCode == 1, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let verdicts = try csvRows(folder + "/thresholds.csv")
        #expect(verdicts.map { $0["expression"] } == ["delivery{link=lte}.p50<10ms", "delivery{link=none}.p50<40ms"])
        #expect(verdicts.map { $0["held"] } == ["0", "1"], "\(verdicts)")
        #expect((Double(verdicts[0]["measured_us"] ?? "") ?? 0) >= 50_000, "LTE's own p50, in µs: \(verdicts[0])")
        let recheck = try BenchProcess.run(["check", folder])
        #expect(recheck.exitCode == 1, "the run's own verdicts stand: \(recheck.standardError)")
        let refused = try BenchProcess.run(["check", folder, "--threshold", "delivery{link=lte}.p50<1s"])
        #expect(refused.exitCode == 2 && refused.standardError.contains("bench check reads no group's values"))
        for (arguments, message) in [
            (["fanout", "--link", "none:50%,lte:50%", "--threshold", "delivery{link=3g}.p50<1s"], "'3g' is no link group of this run (its groups: none lte)"),
            (["fanout", "--link", "lte", "--threshold", "delivery{link=lte}.p50<1s"], "this run has no link groups"),
            (["capacity", "fanout", "--clients", "2..64", "--link", "none:50%,lte:50%", "--slo", "delivery{link=lte}.p99<1s"],
             "a capacity search judges the run's own metrics, not a link group's"),
        ] {
            let misuse = try BenchProcess.run(arguments + ["--out", out + "/misuse"])
            #expect(misuse.exitCode == 2 && misuse.standardError.contains(message), "\(misuse.standardError)")
        }
    }

    @Test func theLinksCommandListsThePresetsWithTheirNumbers() throws {
        let result = try BenchProcess.run(["links"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("lte      down 50 Mbit/s 50.00ms, up 10 Mbit/s 65.00ms"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("verybad  down 1 Mbit/s 500.00ms 10% loss"))
    }

    @Test func misuseIsRefusedBeforeAnythingRuns() throws {
        let out = temporaryFolderPath()
        for (arguments, message) in [
            (["fanout", "--link", "5g"], "is no preset (wifi, dsl, lte, 3g, edge, verybad)"),
            (["fanout", "--link", "lte:70%,3g:20%"], "the mix's shares add up to 90%, not 100%"),
            (["chat", "--target", "redis://127.0.0.1:1/room", "--link", "lte:50%,none:50%"], "a mix of links with a Redis chat is not built yet"),
            (["fanout", "--link", "delay=1ms,jitter=2ms"], "jitter is at most the delay it varies"),
            (["fanout", "--link", "lte", "--source-addresses", "127.0.0.2,127.0.0.3"], "--source-addresses does not apply with --link"),
        ] {
            let result = try BenchProcess.run(arguments + ["--out", out])
            #expect(result.exitCode == 2, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "a usage error writes nothing")
    }
}
