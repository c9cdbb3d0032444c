import Foundation
import Glibc
import Testing

/// A user's server with each placement of its clients: one thread, `--client-threads 2`, `--client-procs 2`, more
/// clients than one process's descriptors hold (split over child processes by itself), and two agents of `bench serve
/// fanout|roundtrip --target`. In fanout a line relay and its subscribers; in roundtrip an echo server, each send
/// ordered by the measuring thread and stamped (write and echo) wherever its client runs. Each completes with every
/// message measured, read back from samples.csv and checked against its own times.
@Suite(.timeLimit(.minutes(10))) struct TargetCompositionTests {
    enum Placement: String, CaseIterable, Sendable {
        case oneThread, twoThreads, twoProcesses, automaticSplit, serveAndAgents
    }

    @Test(
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: ["fanout", "roundtrip"], Placement.allCases)
    func aUsersServerWithEachPlacementOfItsClientsLosesNothing(_ scenario: String, _ placement: Placement) throws {
        let fanout = scenario == "fanout"
        let (server, port) = try Self.startFixture(fanout ? "slow_relay_server.py" : "framed_echo_server.py", ["0"])
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let clients = placement == .automaticSplit ? 250 : 6
        let messages = fanout ? 10 : 30
        let out = temporaryFolderPath()
        // The run lasts 2.4 s: the clients' threads report their load a second after their clients are all ready.
        var arguments = fanout
            ? ["fanout", "--target", "tcp://127.0.0.1:\(port)", "--framing", "line", "--subscribe", "JOIN", "--messages", "10",
                "--warmup", "50", "--interval", "40ms"]
            : ["roundtrip", "--target", "tcp://127.0.0.1:\(port)", "--framing", "stx", "--count", "30", "--interval", "80ms"]
        arguments += ["--clients", "\(clients)", "--quiet", "--out", out]
        let result: BenchProcess
        switch placement {
        case .oneThread, .twoThreads, .twoProcesses, .automaticSplit:
            arguments += placement == .twoThreads ? ["--client-threads", "2"] : placement == .twoProcesses ? ["--client-procs", "2"] : []
            // 64 descriptors in reserve: 250 clients do not fit one process under a limit of 256.
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
        #expect(samples.count == messages * clients)
        let measured = fanout ? "delivered" : "echoed"  // a target's subscribers only read
        #expect(samples.allSatisfy { $0["lost"] == "0" && $0["outcome"] == measured }, "\(samples.filter { $0["lost"] != "0" }.prefix(3))")
        #expect(Set(samples.compactMap { $0["client"].flatMap(Int.init) }) == Set(0..<clients))
        for row in samples {
            if fanout {
                let t0 = try #require(row["t0_ns"].flatMap(Int.init)), received = try #require(row["recv_ns"].flatMap(Int.init))
                #expect(received >= t0 && row["delivery_ns"].flatMap(Int.init) == received - t0, "\(row)")
            } else {
                let scheduled = try #require(row["scheduled_ns"].flatMap(Int.init))
                let sent = try #require(row["user_sent_ns"].flatMap(Int.init)), echo = try #require(row["user_echo_ns"].flatMap(Int.init))
                #expect(sent >= scheduled && echo > sent, "the write after its turn, the echo after the write: \(row)")
                let kernelSent = try #require(row["sent_ns"].flatMap(Int.init)), kernelEcho = try #require(row["echo_ns"].flatMap(Int.init))
                #expect(row["rtt_ns"].flatMap(Int.init) == kernelEcho - kernelSent && row["lag_ns"].flatMap(Int.init) == sent - scheduled, "\(row)")
            }
        }
        // The clients' threads' load, wherever they ran (a thread here, a child, an agent), is in run.csv.
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(Double(settings["harness_cpu_clients_pct"] ?? "") != nil, "\(settings["harness_cpu_clients_pct"] ?? "nil")")
        let log = (try? String(contentsOfFile: folder + "/agents.log", encoding: .utf8)) ?? ""
        let noun = fanout ? "subscribers" : "clients"
        switch placement {
        case .oneThread, .twoThreads:
            #expect(log.isEmpty, "no child process: \(log)")
        case .twoProcesses:
            #expect(log.contains("\(noun) 0 to 2: the run ended") && log.contains("\(noun) 3 to 5: the run ended"), "\(log)")
            // The children are listed as agents are, with their share, their messages and losses, and their pid.
            let children = try csvRows(folder + "/agents.csv")
            #expect(children.map { $0["first_client"]! } == ["0", "3"] && children.map { $0["clients"]! } == ["3", "3"], "\(children)")
            #expect(children.allSatisfy { $0["messages"] == "\(3 * messages)" && $0["lost"] == "0" }, "\(children)")
            #expect(children.allSatisfy { Int($0["pid"] ?? "").map { $0 > 0 } == true && $0["same_boot"] == "1" }, "\(children)")
        case .automaticSplit:
            #expect(log.contains("\(noun) 0 to "), "\(log)")
            let children = try csvRows(folder + "/agents.csv")
            #expect(children.count >= 2 && children.compactMap { Int($0["clients"]!) }.reduce(0, +) == clients, "\(children)")
        case .serveAndAgents:
            let agents = try csvRows(folder + "/agents.csv")
            #expect(agents.map { $0["first_client"]! } == ["0", "3"] && agents.map { $0["clients"]! } == ["3", "3"], "\(agents)")
            #expect(agents.allSatisfy { $0["messages"] == "\(3 * messages)" && $0["lost"] == "0" }, "\(agents)")
        }
    }

    /// `Tests/Fixtures/slow_relay_server.py` (its i-th subscriber gets each line i × `delayMilliseconds` late) on a free
    /// port of its own choosing. It does not confirm a JOIN, so the first broadcasts may race the joins: the runs above
    /// keep half a second of warmup. The caller kills it (SIGKILL).
    static func startRelay(delayMilliseconds: Int) throws -> (Process, Int) {
        try startFixture("slow_relay_server.py", ["\(delayMilliseconds)"])
    }

    /// A server of Tests/Fixtures that writes the port it listens on to the file named after its `arguments`: started,
    /// and its port read (a bound only a hang reaches). The caller kills it (SIGKILL).
    static func startFixture(_ script: String, _ arguments: [String]) throws -> (Process, Int) {
        let portFile = temporaryFolderPath()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [CapacityCommandTests.fixtures + "/" + script] + arguments + [portFile]
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
