import Foundation
import Glibc
import Testing

/// Whole runs through the binary, as a user would start them.
@Suite(.timeLimit(.minutes(10))) struct RunCommandTests {
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
            "connect.hgrm", "connections.csv", "histogram.csv", "junit.xml", "lag.hgrm", "report.html", "rtt.hgrm",
            "run.csv", "samples.csv", "summary.csv", "summary.md", "timeline.csv",
        ])
        // Each client's connect time: a row each, and the connect metric counting them.
        let connections = try String(contentsOfFile: folder + "/connections.csv", encoding: .utf8)
            .split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(connections.map { $0.first } == ["client", "0", "1"])
        #expect(connections.dropFirst().allSatisfy { (UInt64($0[1]) ?? 0) > 0 })
        #expect(metrics.first { $0["metric"] as? String == "connect" }?["count"] as? Int == 2)
        #expect(contents(of: out) == [URL(fileURLWithPath: folder).lastPathComponent], "no temporary folder left")
    }

    /// The percent-under column is headed in µs, as every other time people read: `--under 300us` is `<300µs`.
    @Test func thePercentUnderColumnIsHeadedAsTimesAreShown() throws {
        let result = try BenchProcess.run([
            "roundtrip", "--count", "5", "--interval", "0", "--under", "300us", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        #expect(result.standardOutput.contains("  <300µs\n"), "\(result.standardOutput)")
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
        // No progress line when stderr is not a terminal (a loaded machine may add a saturation warning, and rightly).
        #expect(!result.standardError.contains("sent") && !result.standardError.contains("\r"), "\(result.standardError)")
    }

    @Test func kernelStampsOnSeveralClientThreadsFillTheirColumnsAndTheStackMetric() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "6", "--messages", "20", "--interval", "2ms", "--timestamps", "both",
            "--client-threads", "3", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
        for row in ["timestamps,both", "client_threads,3", "kernel_send_stamps_missing,0", "kernel_receive_stamps_missing,0"] {
            #expect(settings.contains("\r\n\(row)\r\n"), "\(row) in run.csv")
        }
        let samples = try String(contentsOfFile: folder + "/samples.csv", encoding: .utf8)
        #expect(samples.hasPrefix(
            "broadcast,client,t0_ns,write_ns,recv_ns,echo_ns,delivery_ns,rtt_ns,lost,outcome,"
                + "user_t0_ns,user_write_ns,user_recv_ns,user_echo_ns,kernel_stamps_missing,stack_ns,interval\r\n"))
        let summary = try String(contentsOfFile: folder + "/summary.csv", encoding: .utf8)
        #expect(summary.contains("\r\nstack,120,0,"))
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "a saved run with stack reads back: \(report.standardError)")
    }

    @Test func aPayloadListRunsOneStepPerSize() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "roundtrip", "--count", "10", "--interval", "0", "--payload", "64,1KiB", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        // One line per run folder, then the sweep folder that holds them.
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let folders = Array(lines.prefix(2))
        #expect(folders.map { ($0 as NSString).lastPathComponent } == ["payload-64B", "payload-1KiB"])
        #expect(folders.allSatisfy { $0.hasPrefix(lines[2] + "/") } && lines[2].hasPrefix(out + "/sweep-"))
        let payloads = try folders.map { folder in
            try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
                .split(whereSeparator: \.isNewline).first { $0.hasPrefix("payload_bytes,") }
        }
        #expect(payloads == ["payload_bytes,64", "payload_bytes,1024"])
    }

    /// A run whose server cannot be split over processes (here: two writing threads in one) and whose clients need
    /// more descriptors than one process has (the split: `ServerProcessesTests`).
    @Test func moreClientsThanDescriptorsFailsBeforeAnyLoadWithExitThree() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(["fanout", "--clients", "100000", "--server-threads", "2", "--out", out])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("file descriptors"))
        #expect(contents(of: out) == [], "the folder was made, but no run folder is left in it")
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
            "fanout", "--clients", "4", "--messages", "100000", "--interval", "5ms", "--warmup", "0",
            "--report-every", "100ms", "--quiet", "--out", out,
        ])
        #expect(waitForLines(2 + 4 * 10, in: "samples.csv", under: out), "the run measured more than 10 broadcasts")
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

    /// A second signal quits at once: the run's folder stays under its working name, and the run says where and how
    /// to have its reports (it said nothing on the old code). SIGINT then SIGTERM: two of one signal may arrive as one.
    @Test func aSecondSignalQuitsAtOnceAndNamesTheFolderLeft() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "fanout", "--clients", "4", "--messages", "100000", "--interval", "5ms", "--warmup", "0", "--quiet", "--out", out,
        ])
        #expect(waitForLines(2 + 4 * 10, in: "samples.csv", under: out), "the run measured more than 10 broadcasts")
        kill(process.processIdentifier, SIGINT)
        kill(process.processIdentifier, SIGTERM)
        let result = try BenchProcess.finish(process, timeout: 30)
        #expect(result.exitCode == 143, "stderr: \(result.standardError)")
        let left = try #require(contents(of: out)?.first, "the folder stays")
        #expect(left.hasPrefix(".bench-run-"))
        #expect(result.standardError.contains("quit: \(out)/\(left) holds what was written so far; 'bench report \(out)/\(left)' "
            + "rebuilds its reports"), "\(result.standardError)")
    }
}

/// The harness says when it is the bottleneck (its own thread's CPU, its timetable's slip), on stderr and in run.csv,
/// and keeps exit 0: the numbers are written, with the warning.
@Suite(.timeLimit(.minutes(10))) struct HarnessSaturationTests {
    @Test func aTimetableNoMachineKeepsIsSaidToBeTheHarnesssAndTheRunStillWritesItsFolder() throws {
        let out = temporaryFolderPath()
        // A broadcast to 100 clients every 10 µs: no machine sends that fast, so the timetable slips by construction.
        let result = try BenchProcess.run([
            "fanout", "--clients", "100", "--interval", "10us", "--messages", "300", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("Warning: the harness was saturated: "), "\(result.standardError)")
        #expect(result.standardError.contains("its timetable slipped: lag p99 "), "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["harness_saturated"] == "1")
        #expect(Double(settings["harness_cpu_busiest_pct"] ?? "") != nil)
        let markdown = try String(contentsOfFile: folder + "/summary.md", encoding: .utf8)
        #expect(markdown.contains("- harness saturated: ") && markdown.contains("its timetable slipped"), "\(markdown)")
    }

    @Test func anEasyRunIsNotSaturated() throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "3", "--interval", "100ms", "--messages", "5", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0)
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["harness_saturated"] == "0", "\(settings["harness_saturation"] ?? "")")
        #expect((Double(settings["harness_cpu_busiest_pct"] ?? "") ?? 100) < 50, "a thread that mostly waits")
        // Each role's figure, and the busiest of them is the larger.
        let measuring = try #require(Double(settings["harness_cpu_measuring_pct"] ?? ""))
        let clients = try #require(Double(settings["harness_cpu_clients_pct"] ?? ""))
        #expect(Double(settings["harness_cpu_busiest_pct"] ?? "") == max(measuring, clients))
    }
}
