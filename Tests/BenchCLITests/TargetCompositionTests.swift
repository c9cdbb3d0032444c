import Foundation
import Glibc
import Testing

/// A user's fan-out server with each placement of its subscribers: one thread, `--client-threads 2`, `--client-procs 2`,
/// more subscribers than one process's descriptors hold (split over child processes by itself), and two agents of
/// `bench serve fanout --target`. Each completes with every broadcast delivered to every subscriber, read back from
/// samples.csv.
@Suite(.timeLimit(.minutes(3))) struct TargetCompositionTests {
    enum Placement: String, CaseIterable, Sendable {
        case oneThread, twoThreads, twoProcesses, automaticSplit, serveAndAgents
    }

    @Test(
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: Placement.allCases)
    func aUsersRelayWithEachPlacementOfItsSubscribersLosesNothing(_ placement: Placement) throws {
        let (relay, port) = try Self.startRelay(delayMilliseconds: 0)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        let subscribers = placement == .automaticSplit ? 250 : 6
        let out = temporaryFolderPath()
        var arguments = [
            "fanout", "--target", "tcp://127.0.0.1:\(port)", "--framing", "line", "--subscribe", "JOIN",
            "--clients", "\(subscribers)", "--messages", "10", "--warmup", "50", "--interval", "40ms", "--quiet",
            "--out", out,
        ]
        let result: BenchProcess
        switch placement {
        case .oneThread, .twoThreads, .twoProcesses, .automaticSplit:
            arguments += placement == .twoThreads ? ["--client-threads", "2"] : placement == .twoProcesses ? ["--client-procs", "2"] : []
            // 64 descriptors in reserve: 250 subscribers do not fit one process under a limit of 256.
            let process = try BenchProcess.start(arguments, descriptorLimit: placement == .automaticSplit ? 256 : nil)
            result = try BenchProcess.finish(process, timeout: 120)
        case .serveAndAgents:
            let (server, listening) = try startServe(arguments + ["--token", "t"])
            let agents = try (0..<2).map { _ in
                try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(listening)", "--clients", "3", "--token", "t"])
            }
            result = try BenchProcess.finish(server, timeout: 120)
            for agent in agents {
                let ended = try BenchProcess.finish(agent, timeout: 30)
                #expect(ended.exitCode == 0, "\(ended.standardError)")
            }
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 10 * subscribers)
        #expect(samples.allSatisfy { $0["lost"] == "0" && $0["outcome"] == "echoed" }, "\(samples.filter { $0["lost"] != "0" }.prefix(3))")
        #expect(Set(samples.compactMap { $0["client"].flatMap(Int.init) }) == Set(0..<subscribers))
        for row in samples {
            let t0 = try #require(row["t0_ns"].flatMap(Int.init)), received = try #require(row["recv_ns"].flatMap(Int.init))
            #expect(received >= t0 && row["delivery_ns"].flatMap(Int.init) == received - t0, "\(row)")
        }
        // The subscribers' threads' load, wherever they ran (a thread here, a child, an agent), is in run.csv: each reports
        // a second after its subscribers are all subscribed, and the run lasts 2.4 s.
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(Double(settings["harness_cpu_clients_pct"] ?? "") != nil, "\(settings["harness_cpu_clients_pct"] ?? "nil")")
        let log = (try? String(contentsOfFile: folder + "/agents.log", encoding: .utf8)) ?? ""
        switch placement {
        case .oneThread, .twoThreads:
            #expect(log.isEmpty, "no child process: \(log)")
        case .twoProcesses:
            #expect(log.contains("subscribers 0 to 2: the run ended") && log.contains("subscribers 3 to 5: the run ended"), "\(log)")
        case .automaticSplit:
            #expect(log.contains("subscribers 0 to "), "\(log)")
        case .serveAndAgents:
            let agents = try csvRows(folder + "/agents.csv")
            #expect(agents.map { $0["first_client"]! } == ["0", "3"] && agents.map { $0["clients"]! } == ["3", "3"], "\(agents)")
            #expect(agents.allSatisfy { $0["messages"] == "30" && $0["lost"] == "0" }, "\(agents)")
        }
    }

    /// `Tests/Fixtures/slow_relay_server.py` (its i-th subscriber gets each line i × `delayMilliseconds` late) on a free
    /// port of its own choosing. It does not confirm a JOIN, so the first broadcasts may race the joins: the runs above
    /// keep half a second of warmup. The caller kills it (SIGKILL).
    static func startRelay(delayMilliseconds: Int) throws -> (Process, Int) {
        let portFile = temporaryFolderPath()
        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        relay.arguments = [CapacityCommandTests.fixtures + "/slow_relay_server.py", "\(delayMilliseconds)", portFile]
        relay.standardOutput = FileHandle.nullDevice
        relay.standardError = FileHandle.nullDevice
        try relay.run()
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: portFile) && relay.isRunning && Date() < deadline { usleep(20_000) }
        guard let port = Int((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "") else {
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
            throw CocoaError(.fileReadNoSuchFile)
        }
        return (relay, port)
    }
}
