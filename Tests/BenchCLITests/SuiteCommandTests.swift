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
        let result = try BenchProcess.run(["suite", suite, "--out", out, "--quiet"])
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
