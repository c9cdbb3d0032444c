import Foundation
import Glibc
import Testing

/// `bench report` on folders of runs killed outright at awkward moments, built by hand as a kill leaves them.
@Suite(.timeLimit(.minutes(10))) struct CutOffRunTests {
    /// `run.csv` as a fanout run against redis writes it when it starts (`status,running`, a process long gone).
    private static let startingRunCSV = [
        "key,value", "scenario,fanout", "command_line,bench fanout --target redis://127.0.0.1:6379/ch --duration 30s",
        "version,0.1.0", "status,running", "seed,1", "clients,2", "messages,", "warmup,0", "run_for_ns,30000000000",
        "interval,5ms", "interval_ns,5000000", "arrival,poisson", "payload_bytes,64", "under_ns,200000000",
        "timeout_ns,5000000000", "heartbeat_ns,5000000000", "dead_after_ns,15000000000", "max_queue_bytes,262144",
        "target,redis://127.0.0.1:6379/ch", "framing,", "transport,redis", "ws_path,", "timestamps,kernel",
        "client_threads,1", "server_threads,1", "busy_poll,0", "host,127.0.0.1", "cpus,2", "kernel,Linux",
        "report_every_ns,2000000000", "exact_budget_bytes,67108864", "pid,2147483646",
    ].map { $0 + "\r\n" }.joined()

    private static let samplesHeader = "broadcast,client,t0_ns,write_ns,recv_ns,echo_ns,delivery_ns,rtt_ns,lost,outcome,"
        + "user_t0_ns,user_write_ns,user_recv_ns,user_echo_ns,kernel_stamps_missing,interval\r\n"

    /// A hidden run folder in a fresh `out`, with `run.csv` and the streamed files holding `files` (name → text).
    private func cutOffFolder(_ files: [String: String]) throws -> (out: String, folder: String) {
        let out = temporaryFolderPath()
        let folder = out + "/.bench-run-cutoff1"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.startingRunCSV.write(toFile: folder + "/run.csv", atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        return (out, folder)
    }

    /// The folder of a run still going (its process alive) is not cut off: `bench report` leaves it alone. It used to
    /// truncate its files and rename the folder under the run, which then failed at its end (exit 3) with nothing saved.
    @Test func benchReportLeavesTheFolderOfARunStillGoingAlone() throws {
        let samples = Self.samplesHeader + "0,0,57291729,57291729,58175433,,883704,,0,echoed,57276106,57276106,58297003,,0,5\r\n"
        let (out, folder) = try cutOffFolder(["samples.csv": samples, "broadcasts.csv": "", "timeline.csv": ""])
        let live = Self.startingRunCSV.replacingOccurrences(of: "pid,2147483646", with: "pid,\(getpid())")
        try live.write(toFile: folder + "/run.csv", atomically: true, encoding: .utf8)
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode != 0, "stdout: \(report.standardOutput)")
        #expect(report.standardError.contains("still"), "stderr: \(report.standardError)")
        #expect(contents(of: out) == [".bench-run-cutoff1"])
        #expect(try String(contentsOfFile: folder + "/samples.csv", encoding: .utf8) == samples)
        #expect(try String(contentsOfFile: folder + "/run.csv", encoding: .utf8) == live)
    }

    private func rebuiltFolder(in out: String) throws -> String {
        out + "/" + (try #require(contents(of: out)?.first { $0.hasPrefix("fanout-incomplete-") }))
    }

    /// Killed before its first report interval ended: nothing synced, timeline.csv and broadcasts.csv not even their
    /// header (the writer's buffer had not reached the file), samples.csv some rows. It reads back as an empty run.
    @Test func aRunKilledBeforeItsFirstIntervalEndedIsRebuiltEmpty() throws {
        let row = "0,0,57291729,57291729,58175433,,883704,,0,echoed,57276106,57276106,58297003,,0,0\r\n"
        let (out, folder) = try cutOffFolder([
            "samples.csv": Self.samplesHeader + row + row.replacingOccurrences(of: "0,0,", with: "0,1,"),
            "broadcasts.csv": "", "timeline.csv": "",
        ])
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "stderr: \(report.standardError)")
        let rebuilt = try rebuiltFolder(in: out)
        let again = try BenchProcess.run(["report", rebuilt])
        #expect(again.exitCode == 0, "stderr: \(again.standardError)")
        // A cut-off run is no measurement of the server (and this one measured nothing): its verdict is inconclusive
        // unless that is accepted.
        let check = try BenchProcess.run(["check", rebuilt, "--threshold", "lost==0"])
        #expect(check.exitCode == 4, "stdout: \(check.standardOutput) stderr: \(check.standardError)")
        #expect(check.standardOutput.contains("the run was cut off and is incomplete"), "\(check.standardOutput)")
        let accepted = try BenchProcess.run(["check", rebuilt, "--threshold", "lost==0", "--accept", "incomplete,no-values"])
        #expect(accepted.exitCode == 0, "stdout: \(accepted.standardOutput) stderr: \(accepted.standardError)")
    }

    /// Killed during setup, before sending began: every streamed file is empty.
    @Test func aRunKilledDuringSetupIsRebuiltEmpty() throws {
        let (out, folder) = try cutOffFolder(["samples.csv": "", "broadcasts.csv": "", "timeline.csv": ""])
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "stderr: \(report.standardError)")
        let rebuilt = try rebuiltFolder(in: out)
        let again = try BenchProcess.run(["report", rebuilt])
        #expect(again.exitCode == 0, "stderr: \(again.standardError)")
    }

    /// Killed between writing run.csv and creating the streamed files: run.csv alone.
    @Test func aRunKilledBeforeItsStreamedFilesExistedIsRebuiltEmpty() throws {
        let (out, folder) = try cutOffFolder([:])
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "stderr: \(report.standardError)")
        let rebuilt = try rebuiltFolder(in: out)
        let again = try BenchProcess.run(["report", rebuilt])
        #expect(again.exitCode == 0, "stderr: \(again.standardError)")
    }

    /// A header cut off by the kill (no line end) is no header: the file holds nothing whole.
    @Test func aHeaderCutOffByTheKillReadsAsAnEmptyFile() throws {
        let (out, folder) = try cutOffFolder([
            "samples.csv": String(Self.samplesHeader.prefix(30)), "broadcasts.csv": "broadcast,t0", "timeline.csv": "",
        ])
        let report = try BenchProcess.run(["report", folder])
        #expect(report.exitCode == 0, "stderr: \(report.standardError)")
        let rebuilt = try rebuiltFolder(in: out)
        let again = try BenchProcess.run(["report", rebuilt])
        #expect(again.exitCode == 0, "stderr: \(again.standardError)")
    }
}
