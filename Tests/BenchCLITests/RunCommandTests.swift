import Foundation
import Glibc
import Testing

/// Whole runs through the binary, as a user would start them.
@Suite struct RunCommandTests {
    @Test func aRoundtripRunPrintsJSONAndWritesItsFolder() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--clients", "2", "--count", "50", "--interval", "0", "--seed", "5", "--json", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["scenario"] as? String == "roundtrip")
        #expect(json["status"] as? String == "complete")
        #expect(json["seed"] as? Int == 5)
        let metrics = try #require(json["metrics"] as? [[String: Any]])
        #expect(metrics.first?["metric"] as? String == "rtt")
        #expect(metrics.first?["count"] as? Int == 100)
        #expect(metrics.first?["lost"] as? Int == 0)
        let folder = try #require(json["run_folder"] as? String)
        #expect(folder.hasPrefix(out + "/roundtrip-"))
        #expect(contents(of: folder) == [
            "histogram.csv", "junit.xml", "lag.hgrm", "report.html", "rtt.hgrm", "run.csv", "samples.csv", "summary.csv",
            "summary.md",
        ])
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent], "no temporary folder left")
    }

    @Test func aFanoutRunPrintsItsTableAndFolder() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "5", "--messages", "20", "--interval", "1ms", "--warmup", "2", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        for metric in ["delivery", "spread", "completion", "rtt", "lag"] {
            #expect(result.standardOutput.contains("\n\(metric) "), "table row for \(metric)")
        }
        #expect(result.standardOutput.contains("<200ms"))
        #expect(result.standardOutput.contains("run folder: \(out)/fanout-"))
        #expect(result.standardError.isEmpty, "no progress line when stderr is not a terminal")
    }

    @Test func aPayloadListRunsOneStepPerSize() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--count", "10", "--interval", "0", "--payload", "64,1KiB", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folders = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(folders.count == 2)
        let payloads = try folders.map { folder in
            try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
                .split(whereSeparator: \.isNewline).first { $0.hasPrefix("payload_bytes,") }
        }
        #expect(payloads == ["payload_bytes,64", "payload_bytes,1024"])
    }

    @Test func moreClientsThanDescriptorsFailsBeforeAnyLoadWithExitThree() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["fanout", "--clients", "100000", "--out", out])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("file descriptors"))
        #expect(contents(of: out) == [], "the folder was made, but no run folder is left in it")
    }

    @Test func moreMessagesThanMemoryFailsBeforeAnyLoadWithExitThree() throws {
        let result = try BenchProcess.run(["roundtrip", "--clients", "1000", "--count", "100000000", "--out", temporaryFolderPath()])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("more than half of this machine's memory"))
    }

    @Test func aPortInUseFailsWithExitThree() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(listener, $0, length)
                _ = listen(listener, 1)
                _ = getsockname(listener, $0, &length)
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let result = try BenchProcess.run(["roundtrip", "--port", "\(port)", "--out", temporaryFolderPath()])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot listen on 127.0.0.1:\(port)"))
        #expect(result.standardError.contains("Address already in use"))
    }

    @Test func anUnwritableOutputFolderFailsWithExitThree() throws {
        let result = try BenchProcess.run(["roundtrip", "--out", "/proc/bench-cannot-write-here"])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot write to --out /proc/bench-cannot-write-here"))
    }

    @Test func sigintStopsTheRunWritesWhatWasMeasuredAndExits130() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "fanout", "--clients", "4", "--messages", "100000", "--interval", "5ms", "--warmup", "0", "--quiet",
            "--out", out,
        ])
        usleep(1_500_000)
        kill(process.processIdentifier, SIGINT)
        let result = try BenchProcess.finish(process, timeout: 30)
        #expect(result.exitCode == 130, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
        #expect(settings.contains("status,interrupted"))
        let samples = try String(contentsOfFile: folder + "/samples.csv", encoding: .utf8)
            .split(whereSeparator: \.isNewline)
        #expect(samples.count > 1 + 4 * 10, "broadcasts sent before the signal are in the file")
        #expect(samples.count < 1 + 4 * 100_000)
    }
}

/// Thresholds from the command line: exit 1 on a breach, the breach line, thresholds.csv, and `bench check`.
@Suite struct ThresholdCommandTests {
    @Test func aBreachedThresholdExitsOneAndSaysWhatWasMeasured() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--count", "20", "--interval", "0", "--out", out,
            "--threshold", "rtt.p50<1ns", "--threshold", "lost==0",
        ])
        #expect(result.exitCode == 1, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("threshold breached: rtt.p50<1ns (measured "))
        #expect(result.standardOutput.contains(", limit 1ns)"))
        #expect(result.standardOutput.contains("threshold held: lost==0 (measured 0, limit 0)"))
        let folder = try #require(contents(of: out)?.first)
        let csv = try String(contentsOfFile: "\(out)/\(folder)/thresholds.csv", encoding: .utf8)
        #expect(csv.hasPrefix("expression,metric,stat,op,limit,measured,held\r\nrtt.p50<1ns,rtt,p50,<,1ns,"))
        #expect(csv.hasSuffix("lost==0,rtt,lost,==,0,0,1\r\n"))
    }

    @Test func thresholdsThatHoldExitZero() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--quiet",
            "--out", temporaryFolderPath(), "--threshold", "spread.p99<5s", "--threshold", "pct_under>=99%",
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty)
    }

    @Test(arguments: ["spread.p99<1ms", "p99<5%", "lost<1ms", "pct_under>=99", "rtt.p98<1ms", "p99"])
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

        let held = try BenchProcess.run(["check", folder, "--threshold", "spread.p99<10s", "--threshold", "rtt.lost==0"])
        #expect(held.exitCode == 0, "stderr: \(held.standardError)")
        #expect(held.standardOutput.contains("threshold held: spread.p99<10s"))

        let breached = try BenchProcess.run(["check", folder, "--threshold", "delivery.min<1ns", "--json"])
        #expect(breached.exitCode == 1)
        let verdicts = try #require(
            try JSONSerialization.jsonObject(with: Data(breached.standardOutput.utf8)) as? [[String: Any]])
        #expect(verdicts.first?["held"] as? Bool == false)
        let csv = try String(contentsOfFile: folder + "/thresholds.csv", encoding: .utf8)
        #expect(csv.contains("delivery.min<1ns,delivery,min,<,1ns,"))
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent], "no new run")
    }

    @Test func checkRefusesAFolderThatIsNotARun() throws {
        let result = try BenchProcess.run(["check", temporaryFolderPath(), "--threshold", "p99<1ms"])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("Cannot read run folder"))
    }
}

@Suite struct CompareCommandTests {
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

    @Test func runsWithDifferentSettingsAreRefused() throws {
        let (first, _, other) = try runs()
        let result = try BenchProcess.run(["compare", first, other])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("not comparable: clients is 3 in the baseline and 4 in the current run"))
    }

    @Test(arguments: ["spread.p99=25%", "spread.p99<25%", "spread.p98=+1%", "spred.p99=+1%", "lost=+1", "p99=+1%"])
    func aMalformedLimitIsAUsageError(expression: String) throws {
        let (first, _, _) = try runs()
        let result = try BenchProcess.run(["compare", first, first, "--max-regression", expression])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("is invalid for '--max-regression <expr>'"))
    }
}

@Suite struct SuiteCommandTests {
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
        #expect(rows == ["name", "pings", "fans@64B", "fans@128B", "strict"])
        let runFolders = try #require(contents(of: "\(out)/\(folder)"))
        #expect(runFolders.filter { $0.hasPrefix("fanout-") }.count == 2)
        #expect(runFolders.filter { $0.hasPrefix("roundtrip-") }.count == 2)
        #expect(runFolders.contains("suite.md"))
        #expect(result.standardOutput.contains("strict: threshold breached: rtt.min<1ns"))
    }

    @Test(arguments: [
        ("x fanout --clients 0", "x.suite:1: The value '0' is invalid for '--clients <n>'"),
        ("x fanout\nx roundtrip", "x.suite:2: the name 'x' is used twice"),
        ("x broadcast", "x.suite:1: expected a name, then fanout or roundtrip"),
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
}

@Suite struct InterruptionAndFailureTests {
    @Test func sigtermStopsTheRunWritesWhatWasMeasuredAndExits143() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "roundtrip", "--clients", "2", "--count", "100000", "--interval", "2ms", "--quiet", "--out", out,
        ])
        usleep(1_000_000)
        kill(process.processIdentifier, SIGTERM)
        let result = try BenchProcess.finish(process, timeout: 30)
        #expect(result.exitCode == 143, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
        #expect(settings.contains("status,interrupted"))
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent])
    }

    @Test func anAddressNotOnThisMachineFailsBeforeAnyLoadWithExitThree() throws {
        let result = try BenchProcess.run(["fanout", "--host", "192.0.2.1", "--out", temporaryFolderPath()])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot listen on 192.0.2.1:0: bind: Cannot assign requested address"))
    }
}

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
}
