import Foundation
import Testing

/// `bench check` and `bench report` on a folder of runs (`results/`, a sweep): every run is read (and judged) before
/// anything is written, so a usage error leaves every folder as it was, and a run the thresholds do not apply to is
/// skipped by name.
@Suite(.timeLimit(.minutes(10))) struct FolderOfRunsTests {
    /// Every file under `folder`, with its bytes and its inode: a file rewritten with the same bytes (reports are
    /// written to a temporary file, then renamed over the old one) shows as changed too.
    private func snapshot(_ folder: String) -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            let full = folder + "/" + path
            let inode = (try? FileManager.default.attributesOfItem(atPath: full))?[.systemFileNumber] as? Int ?? -1
            let bytes = FileManager.default.contents(atPath: full)?.base64EncodedString() ?? "(folder)"
            files[path] = "\(inode):\(bytes)"
        }
        return files
    }

    /// A results folder like a user's: two fanouts and a roundtrip, run in that order.
    private func results() throws -> (out: String, fanouts: [String], roundtrip: String) {
        let out = temporaryFolderPath()
        var folders: [String] = []
        for arguments in [
            ["fanout", "--clients", "2", "--messages", "5", "--interval", "1ms"],
            ["fanout", "--clients", "2", "--messages", "5", "--interval", "1ms"],
            ["roundtrip", "--count", "5", "--interval", "1ms"],
        ] {
            let result = try BenchProcess.run(arguments + ["--quiet", "--out", out])
            try #require(result.exitCode == 0, "\(result.standardError)")
            folders.append(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return (out, Array(folders.prefix(2)), folders[2])
    }

    @Test func aFolderOfUnrelatedRunsJudgesThoseWithTheMetricAndNamesTheRestSkipped() throws {
        let (out, fanouts, roundtrip) = try results()
        let before = snapshot(roundtrip)
        let result = try BenchProcess.run(["check", out, "--threshold", "spread.p99<60s", "--accept", "saturated,disturbed"])
        #expect(result.exitCode == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardError.contains("skipped \(roundtrip): "), "\(result.standardError)")
        #expect(result.standardError.contains("spread"), "the reason names the metric: \(result.standardError)")
        for fanout in fanouts {
            #expect(result.standardOutput.contains("== \(fanout)\nthreshold held: spread.p99<60s"))
            let csv = try String(contentsOfFile: fanout + "/thresholds.csv", encoding: .utf8)
            #expect(csv.contains("spread.p99<60s,spread,p99,<,60s,"), "\(csv)")
        }
        #expect(snapshot(roundtrip) == before, "the roundtrip run is left as it was")
    }

    @Test func aThresholdNoRunCanTakeIsAUsageErrorThatWritesNothing() throws {
        let (out, _, _) = try results()
        try expectRefusedWritingNothing(
            ["check", out, "--threshold", "reconnect.p99<2s"], in: out, saying: "no run in '\(out)' can be judged")
    }

    @Test func aRunThatDoesNotReadRefusesTheWholeCheckBeforeAnythingIsWritten() throws {
        let (out, fanouts, _) = try results()
        // The second fanout's samples lose their header: it no longer reads, and it sorts after the first one.
        let samples = fanouts[1] + "/samples.csv"
        let text = try String(contentsOfFile: samples, encoding: .utf8)
        try String(text.drop { $0 != "\n" }.dropFirst()).write(toFile: samples, atomically: true, encoding: .utf8)
        try expectRefusedWritingNothing(
            ["check", out, "--threshold", "spread.p99<60s"], in: out, saying: "Cannot read run folder '\(fanouts[1])'")
    }

    /// `arguments` exit 2 saying `message`, and no file under `folder` changed (not even rewritten with its bytes).
    private func expectRefusedWritingNothing(
        _ arguments: [String], in folder: String, saying message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = snapshot(folder)
        let result = try BenchProcess.run(arguments)
        let printed = "\(result.standardOutput) \(result.standardError)"
        #expect(result.exitCode == 2, "\(printed)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains(message), "\(result.standardError)", sourceLocation: sourceLocation)
        #expect(snapshot(folder) == before, "nothing written", sourceLocation: sourceLocation)
    }

    @Test func aSweepWithAStepThatDoesNotReadIsReportedOnByNoStep() throws {
        let out = temporaryFolderPath()
        let sweep = try BenchProcess.run([
            "roundtrip", "--payload", "64,128", "--count", "5", "--interval", "1ms", "--quiet", "--out", out,
        ])
        try #require(sweep.exitCode == 0, "\(sweep.standardError)")
        let folder = try #require(sweep.standardOutput.split(separator: "\n").last.map(String.init))
        let steps = try #require(
            contents(of: folder)?.filter { FileManager.default.fileExists(atPath: "\(folder)/\($0)/run.csv") })
        try #require(steps.count == 2)
        try "garbage\r\n".write(toFile: "\(folder)/\(steps[1])/samples.csv", atomically: true, encoding: .utf8)
        // The first step's reports are not rewritten either.
        try expectRefusedWritingNothing(["report", folder], in: folder, saying: "Cannot read run folder")
    }
}
