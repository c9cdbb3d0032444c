import Foundation
import Glibc
import Testing

/// A user's echo server with each placement of its clients: one thread, `--client-threads 2`, `--client-procs 2`, more
/// clients than one process's descriptors hold (split over child processes by itself), and two agents of
/// `bench serve roundtrip --target`. The measuring thread orders every send; wherever a client runs, it stamps its own
/// write and the read of the echo. Each run completes with every message echoed, and every rtt is the echo's read minus
/// the write, read back from samples.csv.
@Suite(.timeLimit(.minutes(3))) struct TargetRoundtripCompositionTests {
    @Test(
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: TargetCompositionTests.Placement.allCases)
    func aUsersEchoServerWithEachPlacementOfItsClientsLosesNothing(_ placement: TargetCompositionTests.Placement) throws {
        let (server, port) = try Self.startEchoServer()
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let clients = placement == .automaticSplit ? 250 : 6
        let out = temporaryFolderPath()
        var arguments = [
            "roundtrip", "--target", "tcp://127.0.0.1:\(port)", "--framing", "stx", "--clients", "\(clients)",
            "--count", "30", "--interval", "80ms", "--quiet", "--out", out,
        ]
        let result: BenchProcess
        switch placement {
        case .oneThread, .twoThreads, .twoProcesses, .automaticSplit:
            arguments += placement == .twoThreads ? ["--client-threads", "2"] : placement == .twoProcesses ? ["--client-procs", "2"] : []
            let process = try BenchProcess.start(arguments, descriptorLimit: placement == .automaticSplit ? 256 : nil)
            result = try BenchProcess.finish(process, timeout: 120)
        case .serveAndAgents:
            let (serve, listening) = try startServe(arguments + ["--token", "t"])
            let agents = try (0..<2).map { _ in
                try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(listening)", "--clients", "3", "--token", "t"])
            }
            result = try BenchProcess.finish(serve, timeout: 120)
            for agent in agents {
                let ended = try BenchProcess.finish(agent, timeout: 30)
                #expect(ended.exitCode == 0, "\(ended.standardError)")
            }
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 30 * clients)
        #expect(samples.allSatisfy { $0["lost"] == "0" && $0["outcome"] == "echoed" }, "\(samples.filter { $0["lost"] != "0" }.prefix(3))")
        #expect(Set(samples.compactMap { $0["client"].flatMap(Int.init) }) == Set(0..<clients))
        for row in samples {
            let scheduled = try #require(row["scheduled_ns"].flatMap(Int.init))
            let sent = try #require(row["user_sent_ns"].flatMap(Int.init)), echo = try #require(row["user_echo_ns"].flatMap(Int.init))
            #expect(sent >= scheduled && echo > sent, "the write after its turn, the echo after the write: \(row)")
            let kernelSent = try #require(row["sent_ns"].flatMap(Int.init)), kernelEcho = try #require(row["echo_ns"].flatMap(Int.init))
            #expect(row["rtt_ns"].flatMap(Int.init) == kernelEcho - kernelSent, "\(row)")
            #expect(row["lag_ns"].flatMap(Int.init) == sent - scheduled, "\(row)")
        }
        // The clients' threads' load, wherever they ran, is in run.csv: each reports a second after its clients are all
        // connected, and the run lasts 2.4 s.
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(Double(settings["harness_cpu_clients_pct"] ?? "") != nil, "\(settings["harness_cpu_clients_pct"] ?? "nil")")
        let log = (try? String(contentsOfFile: folder + "/agents.log", encoding: .utf8)) ?? ""
        switch placement {
        case .oneThread, .twoThreads:
            #expect(log.isEmpty, "no child process: \(log)")
        case .twoProcesses, .automaticSplit:
            #expect(log.contains("clients 0 to "), "\(log)")
        case .serveAndAgents:
            let agents = try csvRows(folder + "/agents.csv")
            #expect(agents.map { $0["first_client"]! } == ["0", "3"] && agents.map { $0["clients"]! } == ["3", "3"], "\(agents)")
            #expect(agents.allSatisfy { $0["messages"] == "90" && $0["lost"] == "0" }, "\(agents)")
        }
    }

    /// `Tests/Fixtures/framed_echo_server.py` on a free port of its own choosing. The caller kills it (SIGKILL).
    static func startEchoServer() throws -> (Process, Int) {
        let portFile = temporaryFolderPath()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [CapacityCommandTests.fixtures + "/framed_echo_server.py", "0", portFile]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: portFile) && server.isRunning && Date() < deadline { usleep(20_000) }
        guard let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
            throw CocoaError(.fileReadNoSuchFile)
        }
        return (server, port)
    }
}
