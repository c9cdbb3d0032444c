import Foundation
import Glibc
import Testing

/// A gate never passes what is not a measurement of the server: a run interrupted, cut off (incomplete), whose harness
/// was saturated, or whose judged metric has no values gets exit 4 from `--threshold`, `bench check` and `bench suite`,
/// said on stderr and in thresholds.csv, summary.md and junit.xml (an error, not a failure), unless `--accept` names
/// the reason.
@Suite(.timeLimit(.minutes(10))) struct InconclusiveGateTests {
    /// A complete run, judged held, whose run.csv is then changed as a run that ended otherwise writes it.
    static func savedRun(setting key: String, to value: String) throws -> String {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "20", "--interval", "1ms", "--quiet", "--out", out,
            "--threshold", "spread.p99<10s", "--accept", "saturated,disturbed",
        ])
        #expect(run.exitCode == 0, "\(run.standardError)")
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let path = folder + "/run.csv"
        // The harness kept up and the machine was quiet but where the test says otherwise (a busy machine may slip the
        // 1 ms timetable).
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n").map { line in
            line.hasPrefix(key + ",") ? key + "," + value : line.hasPrefix("harness_saturated,") ? "harness_saturated,0"
                : line.hasPrefix("machine_disturbed,") ? "machine_disturbed,0" : line
        }
        try lines.joined(separator: "\r\n").write(toFile: path, atomically: true, encoding: .utf8)
        return folder
    }

    @Test(arguments: [
        ("status", "interrupted", "interrupted", "the run was interrupted before its end"),
        ("status", "running", "incomplete", "the run was cut off and is incomplete"),
        ("harness_saturated", "1", "saturated", "the harness was saturated"),
    ])
    func checkCallsARunThatWasNoMeasurementInconclusive(key: String, value: String, reason: String, says: String) throws {
        let folder = try Self.savedRun(setting: key, to: value)
        for arguments in [[], ["--threshold", "spread.p99<20s"]] {
            let result = try BenchProcess.run(["check", folder] + arguments)
            #expect(result.exitCode == 4, "\(arguments): \(result.standardOutput) \(result.standardError)")
            #expect(result.standardOutput.contains("threshold inconclusive: spread.p99<"), "\(result.standardOutput)")
            #expect(result.standardOutput.contains(says), "\(result.standardOutput)")
        }
        let thresholds = try csvRows(folder + "/thresholds.csv")
        #expect(thresholds.map { $0["verdict"] } == ["inconclusive", "inconclusive"], "\(thresholds)")
        #expect(thresholds.map { $0["inconclusive"] } == [reason, reason])
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("<error message=\"threshold inconclusive: spread.p99&lt;20s") && !junit.contains("<failure"))
        let summary = try String(contentsOfFile: folder + "/summary.md", encoding: .utf8)
        #expect(summary.contains("⚠️ inconclusive: `spread.p99<20s`"), "\(summary)")
        // Accepted, the same verdicts are judged as measured.
        let accepted = try BenchProcess.run(["check", folder, "--accept", reason, "--threshold", "spread.p99<20s"])
        #expect(accepted.exitCode == 0, "\(accepted.standardOutput) \(accepted.standardError)")
        #expect(accepted.standardOutput.contains("threshold held: spread.p99<20s"))
    }

    /// The case that passed a gate before: a run stopped by Ctrl-C, then checked. Its own thresholds and a check's are
    /// inconclusive (exit 4), not held.
    @Test func aRunStoppedByCtrlCIsNoPassForCheck() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "fanout", "--clients", "3", "--messages", "100000", "--interval", "2ms", "--report-every", "100ms",
            "--threshold", "spread.p99<200ms", "--quiet", "--out", out,
        ])
        #expect(waitForLines(2, in: "samples.csv", under: out), "the run measured something")
        kill(process.processIdentifier, SIGINT)
        let run = try BenchProcess.finish(process, timeout: 30)
        #expect(run.exitCode == 130, "a signal still exits as one: \(run.standardError)")
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        // Interrupted (and, on a busy machine, maybe saturated as well).
        let reasons = try csvRows(folder + "/thresholds.csv").map { $0["inconclusive"] ?? "" }
        #expect(reasons.count == 1 && reasons[0].split(separator: ";").contains("interrupted"), "\(reasons)")
        let check = try BenchProcess.run(["check", folder, "--threshold", "spread.p99<200ms"])
        #expect(check.exitCode == 4, "\(check.standardOutput) \(check.standardError)")
        #expect(check.standardOutput.contains("threshold inconclusive: spread.p99<200ms"), "\(check.standardOutput)")
    }

    /// A harness that cannot keep a timetable of a broadcast to 50 clients every microsecond measures itself: the
    /// run's own thresholds are inconclusive (exit 4), not held, unless the user accepts a saturated harness.
    @Test func aSaturatedRunsThresholdsAreInconclusiveUnlessAccepted() throws {
        let arguments = [
            "fanout", "--clients", "50", "--messages", "300", "--interval", "1us", "--threshold", "spread.p99<30s",
            "--threshold", "delivery.lost==0", "--quiet",
        ]
        let result = try BenchProcess.run(arguments + ["--out", temporaryFolderPath()])
        #expect(result.exitCode == 4, "\(result.standardError)")
        #expect(result.standardError.contains("threshold inconclusive: spread.p99<30s"), "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try csvRows(folder + "/thresholds.csv").allSatisfy { $0["inconclusive"] == "saturated" })
        let accepted = try BenchProcess.run(arguments + ["--accept", "saturated", "--out", temporaryFolderPath()])
        #expect(accepted.exitCode == 0, "\(accepted.standardError)")
        #expect(accepted.standardError.contains("Warning: the harness was saturated"), "still said")
    }

    /// `reconnect.p99` of a run where no client ever came back has no values: inconclusive, not held and not breached.
    @Test func aMetricWithNoValuesIsInconclusive() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--messages", "10", "--interval", "1ms", "--reconnect", "--quiet",
            "--threshold", "reconnect.p99<1s", "--threshold", "spread.p99<10s", "--out", temporaryFolderPath(),
            "--accept", "saturated,disturbed",  // a busy machine may slip the 1 ms timetable: the metric without values is the point
        ])
        #expect(result.exitCode == 4, "\(result.standardError)")
        #expect(result.standardError.contains("threshold inconclusive: reconnect.p99<1s"), "\(result.standardError)")
        #expect(result.standardError.contains("the metric has no values"))
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rows = try csvRows(folder + "/thresholds.csv")
        #expect(rows.map { $0["verdict"] } == ["inconclusive", "held"] && rows[0]["inconclusive"] == "no-values")
    }

    /// A suite whose every run completed but one gave an inconclusive verdict exits 4 and marks that entry.
    @Test func aSuiteWithAnInconclusiveEntryExitsFourAndMarksIt() throws {
        let file = temporaryFolderPath() + ".suite"
        try """
            held         roundtrip --count 10 --interval 0 --threshold 'rtt.p99<10s'
            no-values    fanout --clients 2 --messages 10 --interval 1ms --reconnect --threshold 'reconnect.p99<1s'
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["suite", file, "--quiet", "--out", out])
        #expect(result.exitCode == 4, "\(result.standardOutput) \(result.standardError)")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        let markdown = try String(contentsOfFile: folder + "/suite.md", encoding: .utf8)
        #expect(markdown.contains("| held | ✅ ok |") && markdown.contains("| no-values | ⚠️ inconclusive (no-values"), "\(markdown)")
        #expect(markdown.contains("- no-values: threshold inconclusive: reconnect.p99<1s"))
        let rows = try csvRows(folder + "/suite.csv")
        #expect(rows.map { $0["inconclusive"] } == ["0", "1"] && rows.map { $0["exit_code"] } == ["0", "4"])
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(junit.contains("errors=\"1\""), "\(junit)")
    }

    @Test func acceptIsRefusedWhereNothingIsJudgedAndForAWordThatIsNoReason() throws {
        let out = temporaryFolderPath()
        let without = try BenchProcess.run(["fanout", "--accept", "saturated,disturbed", "--out", out])
        #expect(without.exitCode == 2 && without.standardError.contains("--accept applies to the verdicts of --threshold"))
        let unknown = try BenchProcess.run(["fanout", "--threshold", "p99<1s", "--accept", "slow", "--out", out])
        #expect(unknown.exitCode == 2 && unknown.standardError.contains("'slow' is none of interrupted, incomplete"))
        #expect(contents(of: out) == nil, "nothing written")
    }
}
