import Foundation
import Glibc
import Testing

/// Runs sized by time, whose results stream while they run: `--duration`, `timeline.csv`, `--exact-budget`, and a
/// folder that survives the process being killed outright.
@Suite(.timeLimit(.minutes(10))) struct LongRunTests {
    private func table(_ path: String) throws -> [[String: String]] { try csvRows(path) }

    private func settings(_ folder: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try table(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
    }

    @Test func aDurationRunStreamsThroughItsRingAndItsTimelineAddsUpToItsSummary() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "5", "--duration", "2500ms", "--interval", "10ms", "--timeout", "200ms",
            "--report-every", "500ms", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folder = try #require(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("run folder: ") })
            .dropFirst("run folder: ".count)
        let run = try settings(String(folder))
        #expect(run["status"] == "complete" && run["run_for_ns"] == "2500000000" && run["messages"] == "")
        let seconds = try #require(Double(run["duration_s"] ?? ""))
        // It sends for 2.5 s, then waits for the last echoes (200 ms at most) and ends: the upper bound is one only a
        // run that forgot to end reaches, however busy the machine.
        #expect(seconds >= 2.49 && seconds < 30, "sends for 2.5 s, then waits for the last echoes")
        let broadcasts = try table(folder + "/broadcasts.csv")
        let window = try #require(Int(run["window_sequences"] ?? ""))
        #expect(broadcasts.count > 3 * window, "the ring of \(window) rows went round (\(broadcasts.count) broadcasts)")
        // Waits for the ring or the writer are reported (a machine stalled for longer than the ring's span has some).
        #expect(Int(run["window_waits"] ?? "") != nil && Int(run["writer_waits"] ?? "") != nil)

        let summary = Dictionary(uniqueKeysWithValues: try table(folder + "/summary.csv").map { ($0["metric"]!, $0) })
        let timeline = try table(folder + "/timeline.csv")
        #expect(Set(timeline.map { $0["interval"]! }).count >= 5, "one interval per 500 ms")
        for metric in ["delivery", "spread", "completion", "rtt", "lag"] {
            let rows = timeline.filter { $0["metric"] == metric }
            let counted = rows.reduce(0) { $0 + Int($1["count"]!)! }
            let lost = rows.reduce(0) { $0 + Int($1["lost"]!)! }
            #expect(counted == Int(summary[metric]!["count"]!), "\(metric): the intervals hold every value")
            #expect(lost == Int(summary[metric]!["lost"]!), "\(metric): and every loss")
        }
        let samples = try table(folder + "/samples.csv")
        #expect(samples.count == 5 * broadcasts.count, "a row per client and broadcast")
        #expect(samples.map { Int($0["interval"]!)! } == samples.map { Int($0["interval"]!)! }.sorted(), "in order")
        // Every interval but the last printed its line, on stderr, where CI logs keep it.
        let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("[") && $0.contains("delivery:") }
        #expect(lines.count >= 4, "stderr: \(result.standardError)")
        // The saved folder's reports are the run's own, byte for byte.
        let page = try String(contentsOfFile: folder + "/report.html", encoding: .utf8)
        #expect(page.contains("delivery over time"))
        let report = try BenchProcess.run(["report", String(folder)])
        #expect(report.exitCode == 0)
        #expect(try String(contentsOfFile: folder + "/report.html", encoding: .utf8) == page)
    }

    @Test func aRunPastItsExactBudgetReadsPercentilesFromHistogramsWithinTheirError() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--clients", "4", "--count", "2500", "--interval", "500us", "--exact-budget", "64KiB",
            "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let summary = Dictionary(uniqueKeysWithValues: try table(folder + "/summary.csv").map { ($0["metric"]!, $0) })
        let rtt = try #require(summary["rtt"])
        #expect(rtt["precision"]?.hasPrefix("histogram") == true, "20,000 values do not fit 64 KiB")
        let values = try table(folder + "/samples.csv").compactMap { Int($0["rtt_ns"]!) }.sorted()
        #expect(values.count == Int(rtt["count"]!))
        for (column, percentile) in [("p50_us", 50.0), ("p90_us", 90), ("p99_us", 99), ("p999_us", 99.9)] {
            let exact = Double(exactPercentile(values, percentile))
            let read = try #require(Double(rtt[column]!)) * 1000
            #expect(abs(read - exact) <= exact * 0.001 + 1, "\(column): \(read) ns vs exact \(exact) ns")
        }
        #expect((Double(rtt["min_us"]!)! * 1000).rounded() == Double(values.first!), "min stays exact")
        #expect((Double(rtt["max_us"]!)! * 1000).rounded() == Double(values.last!), "max stays exact")
        // Thresholds judge the same figure: it holds at exactly the summary's p99 and breaches a nanosecond below.
        let p99 = Int((Double(rtt["p99_us"]!)! * 1000).rounded())
        // --accept saturated: a busy machine may slip the 500 µs timetable; what is checked here is the figure judged.
        let holds = try BenchProcess.run(["check", folder, "--threshold", "rtt.p99<=\(p99)ns", "--accept", "saturated,disturbed"])
        #expect(holds.exitCode == 0, "\(holds.standardOutput)\(holds.standardError)")
        let breaches = try BenchProcess.run(["check", folder, "--threshold", "rtt.p99<=\(p99 - 1)ns", "--accept", "saturated,disturbed"])
        #expect(breaches.exitCode == 1, "\(breaches.standardOutput)")
    }

    @Test func aRunKilledOutrightLeavesAFolderThatBenchReportRebuilds() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "fanout", "--clients", "10", "--interval", "10ms", "--duration", "60s", "--report-every", "300ms",
            "--quiet", "--out", out,
        ])
        // Wait for three intervals in the hidden folder it is writing, then kill it outright.
        var hidden: String?
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            hidden = contents(of: out)?.first { $0.hasPrefix(".bench-run-") }.map { out + "/" + $0 }
            if let hidden, let text = try? String(contentsOfFile: hidden + "/timeline.csv", encoding: .utf8),
                text.contains("\r\n2,")
            {
                break
            }
            usleep(50_000)
        }
        kill(process.processIdentifier, SIGKILL)
        _ = try BenchProcess.finish(process, timeout: 10)
        let folder = try #require(hidden)
        #expect(try settings(folder)["status"] == "running")

        let next = try BenchProcess.run(["fanout", "--clients", "1", "--messages", "1", "--quiet", "--out", out])
        #expect(next.standardError.contains("\(folder) holds a run that was cut off"), "\(next.standardError)")

        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "stderr: \(report.standardError)")
        #expect(report.standardOutput.contains("the run was cut off"))
        let name = try #require(contents(of: out)?.first { $0.hasPrefix("fanout-incomplete-") })
        let rebuilt = out + "/" + name
        let run = try settings(rebuilt)
        #expect(run["status"] == "incomplete")
        // What was read back is what its files held whole: the rows up to its last synced interval, kept, and no more.
        let timeline = try table(rebuilt + "/timeline.csv")
        let lastInterval = try #require(timeline.map { Int($0["interval"]!)! }.max())
        #expect(lastInterval >= 2)
        let samples = try table(rebuilt + "/samples.csv")
        #expect(samples.allSatisfy { $0.count == samples[0].count && Int($0["interval"]!)! <= lastInterval })
        let broadcasts = try table(rebuilt + "/broadcasts.csv")
        #expect(broadcasts.allSatisfy { Int($0["interval"]!)! <= lastInterval })
        let summary = Dictionary(uniqueKeysWithValues: try table(rebuilt + "/summary.csv").map { ($0["metric"]!, $0) })
        let delivery = try #require(summary["delivery"])
        #expect(Int(delivery["count"]!)! + Int(delivery["lost"]!)! == samples.count, "every row read back")
        #expect(Int(summary["spread"]!["count"]!)! + Int(summary["spread"]!["lost"]!)! == broadcasts.count)
        #expect(Int(delivery["count"]!)! >= 10 * 50, "at least the first 600 ms of broadcasts")
        // Read back again, the folder gives the same pages.
        let page = try String(contentsOfFile: rebuilt + "/report.html", encoding: .utf8)
        let again = try BenchProcess.run(["report", rebuilt])
        #expect(again.exitCode == 0 && !again.standardOutput.contains("cut off"))
        #expect(try String(contentsOfFile: rebuilt + "/report.html", encoding: .utf8) == page)
        let timelineCount = timeline.filter { $0["metric"] == "delivery" }.reduce(0) { $0 + Int($1["count"]!)! }
        #expect(timelineCount == Int(delivery["count"]!))
        for page in ["report.html", "summary.md", "delivery.hgrm"] {
            #expect(contents(of: rebuilt)?.contains(page) == true, "\(page)")
        }
    }
}

/// The nearest-rank percentile of sorted values, computed independently of the harness.
private func exactPercentile(_ sorted: [Int], _ percentile: Double) -> Int {
    let thousandths = Int((percentile * 1000).rounded())
    let rank = max(1, (thousandths * sorted.count + 99_999) / 100_000)
    return sorted[rank - 1]
}
