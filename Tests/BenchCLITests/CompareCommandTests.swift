import Foundation
import Glibc
import Testing

@Suite(.timeLimit(.minutes(10))) struct CompareCommandTests {
    /// Two quick fanout runs with the same settings, and one with another client count.
    private func runs() throws -> (first: String, second: String, other: String) {
        let out = temporaryFolderPath()
        func run(_ clients: Int) throws -> String {
            let result = try BenchProcess.run([
                "fanout", "--clients", "\(clients)", "--messages", "15", "--interval", "1ms", "--arrival", "fixed",
                "--quiet", "--out", out,
            ])
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (try run(3), try run(3), try run(4))
    }

    @Test func aRunComparedWithItselfHasNoRegression() throws {
        let (first, _, _) = try runs()
        let result = try BenchProcess.run(["compare", first, first, "--max-regression", "spread.p99=+0%"])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("no regression beyond the limits"))
        let spreadP99 = result.standardOutput.split(separator: "\n").first { $0.hasPrefix("spread ") && $0.contains(" p99 ") }
        let cells = try #require(spreadP99).split(separator: " ")
        #expect(cells.count == 6)
        #expect(cells[2] == cells[3], "the same value twice")
        #expect(cells[4] == "+0ns" && cells[5] == "+0.0%")
    }

    @Test func aLimitOfMinusNothingIsBrokenByAnyIncreaseAboveTheNoiseFloor() throws {
        let (first, second, _) = try runs()
        // One of the two directions is an increase of rtt.max, unless both are exactly equal.
        let forward = try BenchProcess.run(["compare", first, second, "--max-regression", "rtt.max=+0%"])
        let backward = try BenchProcess.run(["compare", second, first, "--max-regression", "rtt.max=+0%"])
        #expect([forward.exitCode, backward.exitCode].sorted() == [0, 1])
        let broken = forward.exitCode == 1 ? forward : backward
        #expect(broken.standardOutput.contains("regression: rtt.max=+0% broken: "))

        let quiet = try BenchProcess.run([
            "compare", first, second, "--max-regression", "rtt.max=+0%", "--noise-floor", "10s",
        ])
        #expect(quiet.exitCode == 0, "a change under the noise floor never fails")
    }

    @Test func runsWithOtherClientsAreComparedAndTheDifferenceIsSaidAboveTheTable() throws {
        let (first, _, other) = try runs()
        let result = try BenchProcess.run(["compare", first, other, "--noise-floor", "60s"])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.hasPrefix("note: the runs differ in clients 3 → 4\nbaseline: \(first)\n"))
    }

    /// What changes the measurement without changing the server is said: the percent-under threshold, the timeout
    /// that decides what is lost, and a target's protocol settings such as MQTT's QoS (written into run.csv here, as a
    /// run against an MQTT broker writes it: `qos,1`).
    @Test func settingsThatChangeWhatIsMeasuredAreSaidAboveTheTable() throws {
        let out = temporaryFolderPath()
        func run(_ extra: [String]) throws -> String {
            let result = try BenchProcess.run([
                "fanout", "--clients", "3", "--messages", "15", "--interval", "1ms", "--arrival", "fixed", "--quiet",
                "--out", out,
            ] + extra)
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let (baseline, current) = (try run([]), try run(["--under", "1ms", "--timeout", "2s"]))
        let settings = try String(contentsOfFile: baseline + "/run.csv", encoding: .utf8)
        #expect(settings.contains("\r\nqos,\r\n") && settings.contains("\r\npublish_template,\r\n"), "recorded, empty here")
        for (folder, qos) in [(baseline, "0"), (current, "1")] {
            let path = folder + "/run.csv"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            try text.replacingOccurrences(of: "\r\nqos,\r\n", with: "\r\nqos,\(qos)\r\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        let result = try BenchProcess.run(["compare", baseline, current, "--noise-floor", "60s"])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.hasPrefix(
            "note: the runs differ in under_ns 200ms → 1ms, timeout_ns 5s → 2s, qos 0 → 1\n"), "\(result.standardOutput)")
    }

    /// A baseline written before run.csv had `transport` and `target` is a tcp run of the built-in server: a stored CI
    /// baseline of that age still compares.
    @Test func aBaselineWithoutTransportOrTargetIsTakenForTCPOnTheBuiltInServer() throws {
        let (first, second, _) = try runs()
        let old = first + "-old"
        try FileManager.default.copyItem(atPath: first, toPath: old)
        let settings = try String(contentsOfFile: old + "/run.csv", encoding: .utf8).components(separatedBy: "\r\n")
            .filter { !$0.hasPrefix("transport,") && !$0.hasPrefix("target,") }
        try settings.joined(separator: "\r\n").write(toFile: old + "/run.csv", atomically: true, encoding: .utf8)
        let result = try BenchProcess.run(["compare", old, second, "--noise-floor", "60s"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(!result.standardOutput.hasPrefix("note:"), "\(result.standardOutput)")
    }

    @Test func runsOfAnotherTransportAreRefusedNamingIt() throws {
        let (first, _, _) = try runs()
        let out = temporaryFolderPath()
        let ws = try BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "15", "--interval", "1ms", "--arrival", "fixed", "--transport",
            "ws", "--quiet", "--out", out,
        ])
        try #require(ws.exitCode == 0, "\(ws.standardError)")
        let result = try BenchProcess.run(["compare", first, ws.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("not comparable: transport is tcp in the baseline and ws in the current run"),
                "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "no table")
    }

    @Test(arguments: ["spread.p99=25%", "spread.p99<25%", "spread.p98=+1%", "spred.p99=+1%", "lost=+1", "p99=+1%", "rtt.p99=+inf%", "rtt.p99=+1e400%", "rtt.p99=+nan%"])
    func aMalformedLimitIsAUsageError(expression: String) throws {
        let (first, _, _) = try runs()
        let result = try BenchProcess.run(["compare", first, first, "--max-regression", expression])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("is invalid for '--max-regression <expr>'"))
    }
}
