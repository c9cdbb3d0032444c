import Foundation
import Glibc
import Testing

@Suite struct ReportCommandTests {
    @Test func reportRegeneratesTheDerivedFilesByteForByteFromTheCSVFiles() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.run([
            "fanout", "--clients", "4", "--messages", "30", "--interval", "1ms", "--quiet", "--out", out,
            "--threshold", "spread.p99<10s",
        ])
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let derived = ["summary.md", "junit.xml", "report.html", "delivery.hgrm", "spread.hgrm", "completion.hgrm",
            "rtt.hgrm", "lag.hgrm"]
        let original = try derived.map { try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0)")) }
        for name in derived { try FileManager.default.removeItem(atPath: "\(folder)/\(name)") }

        let result = try BenchProcess.run(["report", folder])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let regenerated = try derived.map { try Data(contentsOf: URL(fileURLWithPath: "\(folder)/\($0)")) }
        #expect(regenerated == original)
    }

    @Test func aRunAppendsItsSummaryToTheGitHubJobSummary() throws {
        let summaryFile = temporaryFolderPath() + ".md"
        try "# earlier step\n".write(toFile: summaryFile, atomically: true, encoding: .utf8)
        let result = try BenchProcess.run(
            ["roundtrip", "--count", "10", "--interval", "0", "--quiet", "--out", temporaryFolderPath()],
            environment: ["GITHUB_STEP_SUMMARY": summaryFile])
        #expect(result.exitCode == 0)
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let written = try String(contentsOfFile: folder + "/summary.md", encoding: .utf8)
        #expect(try String(contentsOfFile: summaryFile, encoding: .utf8) == "# earlier step\n" + written + "\n")
    }
}
