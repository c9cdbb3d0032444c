import Foundation
import Glibc
import Testing

/// Thresholds from the command line: exit 1 on a breach, the breach line, thresholds.csv, and `bench check`.
@Suite(.timeLimit(.minutes(10))) struct ThresholdCommandTests {
    @Test func aBreachedThresholdExitsOneAndSaysWhatWasMeasured() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--count", "20", "--interval", "0", "--out", out,
            "--threshold", "rtt.p50<1ns", "--threshold", "lost==0",
        ])
        #expect(result.exitCode == 1, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("threshold breached: rtt.p50<1ns (measured "))
        #expect(result.standardOutput.contains(", limit 1ns; 95%: "), "the p50's 95% interval")
        #expect(result.standardOutput.contains(" of 20 values)"))
        // Every verdict line names the metric it judged: lost, like pct_under, counts every sent message (rtt here).
        #expect(result.standardOutput.contains("threshold held: lost==0 on rtt (measured 0, limit 0)"))
        let folder = try #require(contents(of: out)?.first)
        let csv = try String(contentsOfFile: "\(out)/\(folder)/thresholds.csv", encoding: .utf8)
        #expect(csv.hasPrefix("expression,metric,stat,op,limit,measured,held,source,verdict,values,beyond_limit,"
            + "ci95_low_us,ci95_high_us,decision,confidence_pct,inconclusive,limit_us,measured_us,limit_pct,measured_pct,"
            + "limit_count,measured_count\r\nrtt.p50<1ns,rtt,p50,<,1ns,"))
        #expect(csv.hasSuffix("lost==0,rtt,lost,==,0,0,1,run,held,20,,,,pass,95.0,,,,,,0.000,0.000\r\n"))
        // The p50's 95% interval and the count over its limit: every one of the 20 round trips is 1 ns or more.
        let p50 = try #require(try csvRows("\(out)/\(folder)/thresholds.csv").first)
        #expect(p50["values"] == "20" && p50["beyond_limit"] == "20" && p50["decision"] == "fail")
        // The limit and the measured value as numbers in their unit's columns: 1 ns is 0.001 µs.
        #expect(p50["limit_us"] == "0.001" && Double(p50["measured_us"] ?? "").map { $0 > 0 } == true && p50["limit_pct"] == "")
        #expect(Double(p50["ci95_low_us"] ?? "").map { $0 > 0 } == true, "\(p50)")
    }

    @Test func thresholdsThatHoldExitZero() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--quiet",
            "--out", temporaryFolderPath(), "--threshold", "spread.p99<5s", "--threshold", "pct_under>=99%",
            "--accept", "saturated,disturbed",  // a busy machine may slip a 1 ms timetable: the verdicts are judged all the same
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(!result.standardError.contains("threshold"), "no breach said: \(result.standardError)")
    }

    @Test(arguments: ["spread.p99<1ms", "p99<5%", "lost<1ms", "pct_under>=99", "rtt.p100<1ms", "p99"])
    func aMisspelledThresholdIsAUsageErrorBeforeAnythingRuns(expression: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["roundtrip", "--out", out, "--threshold", expression])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("Error: The value '\(expression)' is invalid for '--threshold <expr>'"))
        #expect(contents(of: out) == nil)
    }

    @Test func checkEvaluatesASavedRunWithoutRunningIt() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run(["fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--quiet", "--out", out])
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        // --accept saturated: a busy machine may slip the 1 ms timetable; what is checked here is the verdicts.
        let held = try BenchProcess.run([
            "check", folder, "--threshold", "spread.p99<10s", "--threshold", "rtt.lost==0", "--accept", "saturated,disturbed",
        ])
        #expect(held.exitCode == 0, "stderr: \(held.standardError)")
        #expect(held.standardOutput.contains("threshold held: spread.p99<10s"))

        // No duration is below 0: a breach whatever was measured (delivery.min can be 0 when a kernel receive stamp
        // lands within the clock mapping's uncertainty of t0, so min<1ns was not a sure breach).
        let breached = try BenchProcess.run(["check", folder, "--threshold", "delivery.max<0ns", "--json", "--accept", "saturated,disturbed"])
        #expect(breached.exitCode == 1)
        let verdicts = try #require(
            try JSONSerialization.jsonObject(with: Data(breached.standardOutput.utf8)) as? [[String: Any]])
        #expect(verdicts.first?["held"] as? Bool == false)
        let csv = try String(contentsOfFile: folder + "/thresholds.csv", encoding: .utf8)
        #expect(csv.contains("delivery.max<0ns,delivery,max,<,0,"))
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent], "no new run")
    }

    @Test func checkKeepsTheRunsOwnVerdictsAddsItsOwnAndJudgesTheRunsAgainWhenGivenNone() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--quiet", "--out", out,
            "--threshold", "lost==0", "--accept", "saturated,disturbed",  // a busy machine may slip the 1 ms timetable
        ])
        #expect(run.exitCode == 0, "stderr: \(run.standardError)")
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        func file(_ name: String) throws -> String { try String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8) }

        let first = try BenchProcess.run(["check", folder, "--threshold", "delivery.max<0ns", "--accept", "saturated,disturbed"])
        #expect(first.exitCode == 1, "the check's own verdict decides")
        var csv = try file("thresholds.csv")
        #expect(csv.contains("\r\nlost==0,delivery,lost,==,0,0,1,run,held,30,,,,pass,95.0,,,,,,0.000,0.000\r\n"),
            "the run's verdict stays (every delivery of every broadcast counted): \(csv)")
        #expect(csv.contains("\r\ndelivery.max<0ns,delivery,max,<,0,"))
        #expect(csv.contains(",0,check,breached,30,,,,fail,95.0,,0.000,"), "\(csv)")
        let junit = try file("junit.xml")
        #expect(junit.contains("name=\"lost==0\"/>") && junit.contains("name=\"check: delivery.max&lt;0ns\""))
        #expect(try file("summary.md").contains("`delivery.max<0ns` (added by bench check)"))

        let second = try BenchProcess.run(["check", folder, "--threshold", "spread.p99<10s", "--accept", "saturated,disturbed"])
        #expect(second.exitCode == 0)
        csv = try file("thresholds.csv")
        #expect(!csv.contains("delivery.max"), "a new check replaces the last check's verdicts")
        #expect(csv.contains("lost==0") && csv.contains("spread.p99<10s"))

        let again = try BenchProcess.run(["check", folder, "--accept", "saturated,disturbed"])
        #expect(again.exitCode == 0, "stderr: \(again.standardError)")
        #expect(again.standardOutput == "threshold held: lost==0 on delivery (measured 0, limit 0)\n")
        #expect(try file("thresholds.csv") == csv, "judged again, the same verdicts")
    }

    @Test func checkWithoutThresholdsOnARunThatHadNoneIsAUsageError() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run(["roundtrip", "--count", "5", "--interval", "0", "--quiet", "--out", out])
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try BenchProcess.run(["check", folder])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("was run without thresholds: give one or more '--threshold <expr>'"))
    }

    @Test func checkRefusesAFolderThatIsNotARun() throws {
        let result = try BenchProcess.run(["check", temporaryFolderPath(), "--threshold", "p99<1ms"])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("Cannot read run folder"))
    }
}
