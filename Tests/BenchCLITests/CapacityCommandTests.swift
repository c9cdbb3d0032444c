import Foundation
import Glibc
import Testing

/// `bench capacity`: a search for the most clients a server holds within its objective, run as a user runs it.
@Suite(.timeLimit(.minutes(3))) struct CapacityCommandTests {
    static let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures").path

    /// A relay whose i-th subscriber gets each broadcast i × 20 ms late: its spread is (n − 1) × 20 ms, so
    /// `spread.p99<195ms` holds for 10 subscribers and breaks for 11. The search must find exactly 10, and its
    /// reports must agree with the run folders they list.
    @Test(.enabled(if: hasPython, "python3 is not installed: apt-get install -y python3"))
    func theSearchFindsTheCapacityOfAServerBuiltToHaveOne() throws {
        let (relay, port) = try TargetCompositionTests.startRelay(delayMilliseconds: 20)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "fanout", "--target", "tcp://127.0.0.1:\(port)", "--framing", "line", "--subscribe", "JOIN",
            "--clients", "2..40", "--messages", "8", "--interval", "100ms", "--warmup", "1", "--slo", "spread.p99<195ms",
            "--json", "--out", out,
        ], timeout: 150)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardOutput)")
        #expect(json["capacity"] as? Int == 10 && json["first_fail"] as? Int == 11, "\(json["line"] ?? "")")
        #expect(json["ending"] as? String == "found")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        let rows = try csvRows(folder + "/capacity.csv")
        #expect(rows.map { $0["clients"]! } == ["2", "4", "8", "16", "12", "10", "11"], "doubling, then bisection")
        for row in rows {
            // Each row's figure is its run's spread p99, and its verdict the objective applied to it.
            let summary = try csvRows(folder + "/" + row["run_folder"]! + "/summary.csv").first { $0["metric"] == "spread" }
            let p99 = try #require(Double(summary?["p99_us"] ?? ""))
            #expect(Double(row["spread.p99<195ms measured (µs)"]!) == p99, "\(row)")
            #expect(row["verdict"] == (p99 < 195_000 ? "pass" : "fail"), "\(row)")
        }
        for name in ["capacity.md", "capacity.html"] {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(text.contains("capacity: 10 clients"), "\(name)")
        }
    }

    /// The low end already breaks the objective: one step, exit 1, and the reports say so.
    @Test func aLowEndThatBreaksExitsOne() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "fanout", "--clients", "2..64", "--messages", "5", "--interval", "5ms",
            "--slo", "delivery.p50>10s", "--out", out,
        ])
        #expect(result.exitCode == 1, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("capacity: below 2 clients"), "\(result.standardOutput)")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        #expect(try csvRows(folder + "/capacity.csv").map { $0["verdict"]! } == ["fail"])
    }

    /// The high end holds: the capacity is at least it; a threshold on the capacity makes the search a CI gate.
    @Test func aHighEndThatHoldsIsAtLeastItAndAThresholdOnTheCapacityGates() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "capacity", "roundtrip", "--clients", "1..4", "--count", "5", "--interval", "5ms",
            "--slo", "rtt.p50<10s", "--threshold", "capacity>=5", "--out", out,
        ])
        #expect(result.exitCode == 1, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("capacity: at least 4 clients"), "\(result.standardOutput)")
        #expect(result.standardError.contains("threshold breached: capacity>=5 (capacity 4 clients)"), "\(result.standardError)")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        #expect(try csvRows(folder + "/capacity.csv").map { $0["clients"]! } == ["1", "2", "4"])
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
        for option in ["--slo <expr>", "--resolution <percent>", "--repeat <k>", "capacity>=5000"] {
            #expect(page.standardOutput.contains(option), "\(option)")
        }
    }
}
