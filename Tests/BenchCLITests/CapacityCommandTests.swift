import Foundation
import Glibc
import Testing

/// `bench capacity`: a search for the most clients a server holds within its objective, run as a user runs it.
@Suite(.timeLimit(.minutes(10))) struct CapacityCommandTests {
    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// The low end already breaks the objective: one step, exit 1, and the reports say so.
    @Test func aLowEndThatBreaksExitsOne() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "fanout", "--clients", "2..64", "--messages", "5", "--interval", "5ms",
            "--slo", "delivery.p50>10s", "--out", out, "--accept", "saturated,disturbed",
        ])
        #expect(result.exitCode == 1, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("capacity: below 2 clients"), "\(result.standardOutput)")
        // The first line sizes the steps: a value's first step only finds the way, its confirmation gives the answer.
        #expect(result.standardError.hasPrefix("capacity: each step sends until its objectives are decided, for at most "
            + "60s: a value's first step passes at 75% confidence, its confirmation and every failure are decided at 95%"),
            "\(result.standardError)")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        #expect(try csvRows(folder + "/capacity.csv").map { $0["verdict"]! } == ["fail"])
    }

    /// The high end holds (confirmed by a second step): the capacity is at least it. A threshold on the capacity makes
    /// the search a CI gate: `capacity>=4` held, `capacity>=5` cannot be decided by a search that stopped at 4
    /// (inconclusive, exit 4), `capacity<=3` breached.
    @Test(arguments: [("capacity>=4", Int32(0), "held"), ("capacity>=5", 4, "inconclusive"), ("capacity<=3", 1, "breached")])
    func aHighEndThatHoldsIsAtLeastItAndAThresholdOnTheCapacityGates(threshold: String, exit: Int32, verdict: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "roundtrip", "--clients", "1..4", "--count", "5", "--interval", "5ms",
            "--slo", "rtt.p50<10s", "--threshold", threshold, "--json", "--out", out,
            "--accept", "saturated,disturbed",  // a busy machine may slip the 5 ms timetable: the gate on the capacity is the point
        ])
        #expect(result.exitCode == exit, "\(result.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        #expect((json["line"] as? String)?.hasPrefix("capacity: at least 4 clients") == true, "\(json)")
        #expect(json["ending"] as? String == "high-end-holds" && json["capacity_high"] is NSNull)
        let thresholds = try #require(json["thresholds"] as? [[String: Any]])
        #expect(thresholds.first?["verdict"] as? String == verdict)
        if exit != 0 {
            #expect(result.standardError.contains("threshold \(verdict): \(threshold) (capacity 4 clients"), "\(result.standardError)")
        }
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        let rows = try csvRows(folder + "/capacity.csv")
        #expect(rows.map { $0["clients"]! } == ["1", "2", "4", "4"], "the high end again: \(rows)")
        // capacity.html as a person sees it: each step's decision with its counts, the confirmation marked, the steps
        // at one value labelled once.
        if threshold == "capacity>=4", ReportPageTests.chromium != nil {
            let page = try ReportPageTests.rendered(url: "file://" + folder + "/capacity.html")
            #expect(page.contains("<h2>steps</h2>") && page.contains("4 (again)"), "\(page.prefix(400))")
            // At least the 5 values a run of --count 5 has: a step samples on until decided (checked twice a second).
            let counted = try #require(page.firstMatch(of: #/>pass \(0 / (\d+)\)</td>/#), "none beyond the limit")
            #expect(Int(counted.1)! >= 5)
            #expect(page.contains(">3, 4</text>"), "the high end's two steps, one label")
            // What each run's harness and machine did, and the runs a step judged of those it made.
            #expect(page.contains("<th>harness, machine</th>") && page.contains("<th>runs judged</th>"), "\(page.prefix(400))")
        }
    }

    /// Nothing decided even at the low end within the budget (a p99 needs 299 values; two runs of 5 give 10): no
    /// capacity, exit 4, and the line says so.
    @Test func aLowEndThatCannotBeDecidedIsInconclusive() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "roundtrip", "--clients", "1..4", "--count", "5", "--interval", "0", "--slo", "rtt.p99<10s",
            "--step-budget", "2", "--json", "--out", out,
        ])
        #expect(result.exitCode == 4, "\(result.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        #expect(json["capacity"] is NSNull && json["ending"] as? String == "low-end-fails")
        #expect((json["line"] as? String)?.hasPrefix("capacity: not decided (rtt.p99<10s: not decided at 1 client") == true)
        let steps = try #require(json["steps"] as? [[String: Any]])
        #expect(steps.count == 1 && steps[0]["runs"] as? Int == 2 && steps[0]["verdict"] as? String == "undecided")
    }

    @Test(arguments: [
        (["--slo", "spread.p99<1ms"], "bench capacity searches a range"),
        (["--clients", "2..8", "--payload", "64..128", "--slo", "spread.p99<1ms"], "one range at a time"),
        (["--clients", "2..8", "--interval", "1ms,2ms", "--slo", "spread.p99<1ms"], "lists sweep"),
        (["--clients", "2..8"], "--slo is required"),
        (["--clients", "8..8", "--slo", "spread.p99<1ms"], "the two ends are the same"),
        (["--clients", "2..x", "--slo", "spread.p99<1ms"], "--clients"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--resolution", "0%"], "--resolution"),
        (["--clients", "2..8", "--slo", "rtt.p99<1ms", "--slo", "bogus<1"], "'--slo <expr>'"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--threshold", "capacity>=lots"], "not a value of --clients"),
        (["--interval", "0..1ms", "--slo", "spread.p99<1ms"], "a closed loop (0) has no rate to search"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--confidence", "99.99%"], "--confidence"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--confidence", "95"], "--confidence"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--step-budget", "0"], "--step-budget"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--step-budget", "soon"], "a number of runs (20) or a duration"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--step-budget", "2", "--repeat", "3"], "less than --repeat 3"),
        (["--clients", "2..8", "--slo", "spread.p99<1ms", "--accept", "slow"], "'slow' is none of"),
    ])
    func aBadCommandLineExitsTwoAndWritesNothing(arguments: [String], message: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["capacity", "fanout"] + arguments + ["--out", out])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
        #expect(result.standardError.contains("Usage: bench capacity fanout"), "\(result.standardError)")
        #expect(contents(of: out) == nil, "nothing written")
    }

    @Test func helpShowsTheScenariosAndTheSearchsOptions() throws {
        let overview = try BenchProcess.run(["capacity", "--help"])
        #expect(overview.exitCode == 0 && overview.standardOutput.contains("bench capacity fanout --clients 100..20000"))
        let page = try BenchProcess.run(["capacity", "fanout", "--help"])
        #expect(page.exitCode == 0)
        for option in ["--slo <expr>", "--resolution <percent>", "--repeat <k>", "capacity>=5000", "--confidence <percent>",
            "--step-budget <runs|duration>", "(default: 60s)", "--accept <reasons>"]
        {
            #expect(page.standardOutput.contains(option), "\(option)")
        }
    }
}
