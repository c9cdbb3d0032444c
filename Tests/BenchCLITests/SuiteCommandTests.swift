import Foundation
import Glibc
import Testing

@Suite(.timeLimit(.minutes(10))) struct SuiteCommandTests {
    private func suiteFile(_ text: String) throws -> String {
        let path = temporaryFolderPath() + ".suite"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aSuiteRunsEveryLineInOrderAndSummarizesThem() throws {
        let suite = try suiteFile("""
            # two quick runs
            pings   roundtrip --count 20 --interval 0 --threshold 'rtt.p99<10s' --threshold lost==0

            fans    fanout --clients 3 --messages 10 --interval 1ms --payload 64,128 --threshold "spread.p99 < 10s"
            strict  roundtrip --count 10 --interval 0 --threshold 'rtt.min<1ns'
            """)
        let out = temporaryFolderPath()
        // No second attempts: a busy machine may slip fans' 1 ms timetable (inconclusive), and the rows are the point.
        let result = try BenchProcess.run(["suite", suite, "--out", out, "--quiet", "--retries", "0"])
        #expect(result.exitCode == 1, "strict breaks its threshold; stderr: \(result.standardError)")
        let folder = try #require(contents(of: out)?.first)
        #expect(folder.hasPrefix("suite-"))
        let rows = try String(contentsOfFile: "\(out)/\(folder)/suite.csv", encoding: .utf8)
            .split(separator: "\r\n").map { $0.split(separator: ",").first.map(String.init) ?? "" }
        #expect(rows == ["name", "pings", "fans@payload-64B", "fans@payload-128B", "strict"])
        // Each run folder is named after its entry; the payload list is a sweep folder with a folder per size.
        let runFolders = try #require(contents(of: "\(out)/\(folder)"))
        #expect(Set(runFolders) == ["fans", "pings", "strict", "suite.csv", "suite.md", "junit.xml"])
        let sweep = try #require(contents(of: "\(out)/\(folder)/fans"))
        #expect(Set(sweep) == ["payload-64B", "payload-128B", "sweep.csv", "sweep.md", "sweep.html"])
        // suite.md carries the numbers next to the verdicts.
        let markdown = try String(contentsOfFile: "\(out)/\(folder)/suite.md", encoding: .utf8)
        #expect(markdown.contains("| pings | rtt |") && markdown.contains("| fans@payload-128B | spread |"))
        #expect(result.standardOutput.contains("strict: threshold breached: rtt.min<1ns"))
    }

    /// A line whose verdict is inconclusive for a reason that may pass (here a harness that cannot keep a broadcast to
    /// 50 clients every microsecond: saturated every time) is run again after a pause; every attempt is listed, the
    /// last one counts (exit 4), and a line inconclusive for a reason that cannot pass (no values) is not tried again.
    @Test func anInconclusiveLineIsTriedAgainAndEveryAttemptReported() throws {
        let suite = try suiteFile("""
            flood     fanout --clients 50 --messages 300 --interval 1us --threshold 'spread.p99<30s'
            novalues  fanout --clients 2 --messages 10 --interval 1ms --reconnect --threshold 'reconnect.p99<1s' --accept saturated,disturbed
            """)
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["suite", suite, "--out", out, "--quiet"])
        #expect(result.exitCode == 4, "\(result.standardOutput) \(result.standardError)")
        #expect(result.standardOutput.contains("== flood: inconclusive; trying again in 5s (try 2 of 2)"), "\(result.standardOutput)")
        let folder = try #require(contents(of: out)?.first.map { out + "/" + $0 })
        let rows = try csvRows(folder + "/suite.csv")
        #expect(rows.map { $0["name"]! } == ["flood (try 1)", "flood (try 2)", "novalues"], "\(rows)")
        #expect(rows.map { $0["tried_again"]! } == ["1", "0", "0"] && rows.map { $0["exit_code"]! } == ["4", "4", "4"])
        #expect(Set(try #require(contents(of: folder))).isSuperset(of: ["flood", "flood-try2", "novalues"]))
        let markdown = try String(contentsOfFile: folder + "/suite.md", encoding: .utf8)
        #expect(markdown.contains("| flood (try 1) | ↻ inconclusive ("), "\(markdown)")
        let junit = try String(contentsOfFile: folder + "/junit.xml", encoding: .utf8)
        #expect(!junit.contains("flood (try 1)") && junit.contains("flood (try 2)"), "\(junit)")
    }

    @Test(arguments: [
        ("x fanout --clients 0", "x.suite:1: The value '0' is invalid for '--clients <n>'"),
        ("x fanout\nx roundtrip", "x.suite:2: the name 'x' is used twice"),
        ("x broadcast", "x.suite:1: expected a name, then fanout, roundtrip or chat"),
        ("x fanout --out /tmp", "x.suite:1: --out, --json and --help belong to bench suite"),
        ("x fanout --threshold 'p99<1ms", "x.suite:1: a quote is not closed"),
        ("# nothing", "lists no runs"),
    ])
    func aBadSuiteIsRefusedBeforeAnythingRuns(text: String, message: String) throws {
        let directory = temporaryFolderPath()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/x.suite"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["suite", path, "--out", out])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message.replacingOccurrences(of: "x.suite", with: path)))
        #expect(contents(of: out) == nil)
    }

    @Test func aSuiteFileWithWindowsLineEndsReadsLikeAnyOther() throws {
        let suite = try suiteFile("# saved on Windows\r\none  roundtrip --count 5 --interval 0\r\ntwo  roundtrip --count 5 --interval 0\r\n")
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["suite", suite, "--out", out, "--quiet"])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("one ") && result.standardOutput.contains("two "))
    }

    @Test func anEndlessSuiteFileIsRefusedNotReadForever() throws {
        let result = try BenchProcess.run(["suite", "/dev/zero"], timeout: 30)
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("Cannot read suite file: read /dev/zero (more than 16 MiB): File too large"))
    }
}
