import Foundation
import Glibc
import Testing

@Suite(.timeLimit(.minutes(10))) struct ReportCommandTests {
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

    @Test func hgrmPercentilesAgreeWithSummaryCSV() throws {
        let run = try BenchProcess.run([
            "fanout", "--clients", "5", "--messages", "200", "--interval", "500us", "--quiet", "--out", temporaryFolderPath(),
        ])
        let folder = run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let summary = try String(contentsOfFile: folder + "/summary.csv", encoding: .utf8)
            .split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        for metric in ["delivery", "rtt", "spread"] {
            let row = try #require(summary.first { $0.first == metric })
            let hgrm = try String(contentsOfFile: "\(folder)/\(metric).hgrm", encoding: .utf8)
            let rows = hgrm.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
            for (column, percentile) in [(6, "0.500000000000"), (7, "0.900000000000")] {  // p50_us, p90_us
                let line = try #require(rows.first { $0.count > 1 && $0[1] == percentile }, "\(metric) \(percentile)")
                let exact = Double(row[column])!
                // The .hgrm shows the highest value of the percentile's bucket: at most 1/1024 above the exact value.
                #expect(Double(line[0])! >= exact && Double(line[0])! <= exact * 1.001 + 0.001, "\(metric) \(percentile)")
            }
            let last = try #require(rows.last)
            #expect(Double(last[0]) == Double(row[11]), "\(metric): the 100% row is the max")
            #expect(Int(last[2]) == Int(row[1]), "\(metric): its total count is the count")
        }
    }
}
