import BenchCore
import Foundation
import Glibc
import Testing

/// `bench serve` and `bench clients`: the server and collector in one process, the clients in agents.
@Suite(.timeLimit(.minutes(10))) struct ServeAndClientsTests {
    private func serve(_ arguments: [String]) throws -> (BenchProcess.Running, Int) { try startServe(arguments) }

    private func rows(_ path: String) throws -> [[String: String]] { try csvRows(path) }

    /// Ctrl-C while the server waits for its agents: nothing was sent, so the run lasted 0 s (it used to report the
    /// machine's uptime, the end time less a start that never was).
    @Test func aServeInterruptedWhileWaitingForAgentsRanForNoTimeAtAll() throws {
        let out = temporaryFolderPath()
        let (server, _) = try serve(["fanout", "--clients", "4", "--token", "t", "--quiet", "--out", out])
        kill(server.processIdentifier, SIGINT)
        let result = try BenchProcess.finish(server, timeout: 60)
        #expect(result.exitCode == 130, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = Dictionary(uniqueKeysWithValues: try rows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["status"] == "interrupted")
        #expect(settings["duration_s"] == "0.000", "\(settings["duration_s"] ?? "")")
    }

    @Test func twoAgentsBringTheClientsOfAFanoutAndAWrongTokenIsTurnedAway() throws {
        let out = temporaryFolderPath()
        let (server, port) = try serve([
            "fanout", "--clients", "6", "--messages", "30", "--interval", "5ms", "--token", "s3cret", "--quiet",
            "--out", out,
        ])
        let intruder = try BenchProcess.run(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "guess"])
        #expect(intruder.exitCode == 3)
        #expect(intruder.standardError.contains("instead of welcoming this agent"), "\(intruder.standardError)")
        // It had connected: no "Connection refused (errno: 111)" after the words (the old message ended so).
        #expect(!intruder.standardError.contains("errno"), "\(intruder.standardError)")
        let agents = try (0..<2).map { _ in
            try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "3", "--token", "s3cret"])
        }
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0, "\(served.standardError)")
        for agent in agents {
            let result = try BenchProcess.finish(agent, timeout: 30)
            #expect(result.exitCode == 0, "\(result.standardError)")
            #expect(result.standardError.contains("the run ended"))
        }
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let joined = try rows(folder + "/agents.csv")
        #expect(joined.map { $0["clients"] } == ["3", "3"])
        #expect(Set(joined.map { $0["first_client"]! }) == ["0", "3"])
        let samples = try rows(folder + "/samples.csv")
        #expect(samples.count == 6 * 30 && samples.allSatisfy { $0["lost"] == "0" }, "every client of both agents echoed")
        #expect(Set(samples.map { $0["client"]! }).count == 6)
        // The agents measured their clients' connects and sent them: the connect metric has all six.
        let connects = try rows(folder + "/connections.csv")
        #expect(connects.map { $0["client"]! }.sorted() == ["0", "1", "2", "3", "4", "5"])
        #expect(connects.allSatisfy { Int($0["connect_ns"]!)! > 0 })
        let events = try rows(folder + "/events.csv")
        #expect(events.contains { $0["reason"]!.contains("does not know this run's --token") })
    }

    /// The agent frames are 48 bytes: a run of the smallest payload (40) still reads them (it refused every agent).
    @Test func aRunOfTheSmallestPayloadTakesItsAgents() throws {
        let (server, port) = try serve([
            "fanout", "--clients", "2", "--messages", "20", "--interval", "5ms", "--payload", "40", "--token", "t",
            "--quiet", "--out", temporaryFolderPath(),
        ])
        let agent = try BenchProcess.run(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        let served = try BenchProcess.finish(server, timeout: 30)
        #expect(agent.exitCode == 0, "\(agent.standardError)")
        #expect(served.exitCode == 0, "\(served.standardError)")
    }

    @Test func aServerWhoseAgentsDoNotAllComeSaysWhoIsMissingAndExitsThree() throws {
        let out = temporaryFolderPath()
        let (server, port) = try serve([
            "roundtrip", "--clients", "5", "--count", "10", "--token", "t", "--join-timeout", "2s", "--quiet",
            "--out", out,
        ])
        let agent = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        let served = try BenchProcess.finish(server, timeout: 30)
        #expect(served.exitCode == 3)
        #expect(served.standardError.contains("2 of 5 clients connected"), "\(served.standardError)")
        #expect(served.standardError.contains("3 client ids not taken by any agent"))
        _ = try BenchProcess.finish(agent, timeout: 10)
        #expect(contents(of: out)?.filter { !$0.hasPrefix(".") } ?? [] == [], "no run folder")
    }

    /// An agent that tries a client id it was not given is turned away; when it then leaves before the run, the setup
    /// fails at once, naming it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func anAgentCannotTakeIdsItWasNotGivenAndLeavingFailsTheSetupAtOnce() throws {
        let (server, port) = try serve([
            "fanout", "--clients", "4", "--messages", "5", "--token", "t", "--join-timeout", "20s", "--quiet",
            "--out", temporaryFolderPath(),
        ])
        let rogue = Process()
        rogue.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        rogue.arguments = ["-c", """
            import hashlib, os, socket, struct, sys
            h = lambda text: int.from_bytes(hashlib.sha1(text.encode()).digest()[:8], "big")
            boot = open("/proc/sys/kernel/random/boot_id").read().strip()
            version = int(sys.argv[2])
            control = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
            control.sendall(struct.pack(">IBBHIQIQ16s", 44, 5, version, 0, 2, h("t"), os.getpid(), h(boot), b"rogue"))
            welcome = b""
            while len(welcome) < 48:
                part = control.recv(48 - len(welcome))
                if not part: sys.exit("no welcome: the server closed")
                welcome += part
            first, count, token = struct.unpack(">IIQ", welcome[8:24])
            client = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            client.sendall(struct.pack(">IBBHIQ", 16, 1, version, 0, first + count, token))  # an id it was not given
            client.settimeout(5)
            print("refused" if client.recv(100) == b"" else "accepted", flush=True)
            control.close()
            """, "\(port)", "\(WireFormat.version)"]
        let output = Pipe()
        rogue.standardOutput = output
        try rogue.run()
        rogue.waitUntilExit()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(said.contains("refused"), "\(said)")
        let started = Date()
        let served = try BenchProcess.finish(server, timeout: 30)
        #expect(served.exitCode == 3)
        #expect(served.standardError.contains("left before the run began; it had clients 0 to 1"), "\(served.standardError)")
        #expect(Date().timeIntervalSince(started) < 10, "at once, not at the join timeout")
    }

    @Test(arguments: [
        (["serve"], "bench serve needs its scenario"),
        (["serve", "fanout", "--clients", "4"], "--token is required"),
        (["serve", "fanout", "--token", "t", "--listen", "nowhere"], "'--listen <host:port>'"),
        (["clients", "--connect", "127.0.0.1:1", "--token", "t", "--reconnect-max", "1s"], "--reconnect-max does nothing without --reconnect"),
        (["clients", "--connect", "127.0.0.1:1", "--token", "t", "--drop-connections-at", "1s"], "Unknown option '--drop-connections-at'"),
        (["clients", "--token", "t"], "--connect is required"),
        (["clients", "--connect", "127.0.0.1:7000"], "--token is required"),
        (["clients", "--connect", "127.0.0.1", "--token", "t"], "'--connect <host:port>'"),
    ])
    func aBadServeOrClientsCommandLineExitsTwo(arguments: [String], message: String) throws {
        let result = try BenchProcess.run(arguments)
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}

/// `--client-procs`: the clients in child processes of the run itself.
@Suite(.timeLimit(.minutes(10))) struct ClientProcessesTests {
    /// The pids of `parent`'s children, from /proc.
    private func children(of parent: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = Int32(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == parent ? pid : nil
        }
    }

    private func rows(_ path: String) throws -> [[String: String]] { try csvRows(path) }

    @Test func aFanoutsClientsInTwoChildProcessesAndOneKilledMidRun() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.start([
            "fanout", "--clients", "6", "--client-procs", "2", "--messages", "300", "--interval", "10ms",
            "--timeout", "30s", "--report-every", "100ms", "--quiet", "--out", out,
        ])
        var agents: [Int32] = []
        let deadline = Date().addingTimeInterval(20)
        while agents.count < 2 && Date() < deadline {
            agents = children(of: run.processIdentifier)
            usleep(20_000)
        }
        #expect(agents.count == 2, "two bench clients children")
        #expect(waitForLines(1 + 6 * 10, in: "samples.csv", under: out), "10 broadcasts measured: well into the run")
        if let victim = agents.first { kill(victim, SIGKILL) }
        let result = try BenchProcess.finish(run, timeout: 60)
        #expect(result.exitCode == 0, "the run completes: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let joined = try rows(folder + "/agents.csv")
        #expect(joined.count == 2 && joined.allSatisfy { $0["messages"] == "900" })
        let killed = try #require(joined.first { Int32($0["pid"]!) == agents.first })
        let survivor = try #require(joined.first { Int32($0["pid"]!) != agents.first })
        #expect(Int(killed["lost"]!)! > 0 && survivor["lost"] == "0", "the losses are the killed child's: \(joined)")
        let summary = try rows(folder + "/summary.csv").first { $0["metric"] == "delivery" }!
        #expect(summary["lost"] == killed["lost"])
        let events = try String(contentsOfFile: folder + "/events.csv", encoding: .utf8)  // reasons are quoted: read whole
        #expect(events.contains("(a client of agent \(killed["agent"]!), pid \(killed["pid"]!))"), "\(events)")
        #expect(children(of: run.processIdentifier).isEmpty, "no child left behind")
    }
}

/// Agents whose monotonic clock is not the server's: a Linux time namespace shifts it per process, as another host's
/// would be (`unshare --time --monotonic`). The agent finds the offset over its control connection and corrects its
/// clients' stamps.
@Suite(.timeLimit(.minutes(10))) struct AgentClockTests {
    static let canShiftClocks: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["--fork", "--time", "--monotonic", "1", "true"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// A short run has the one clock round before it; a run of 11 s has rounds every 5 s during it (two, or at least
    /// one on a machine loaded enough to delay a round), and the drift between them (none here: the same clock,
    /// shifted) is found within the rounds' bounds.
    @Test(
        .enabled(if: canShiftClocks, "unshare --time is not available here (needs Linux 5.6+ and CAP_SYS_ADMIN)"),
        arguments: [(["--messages", "200", "--interval", "5ms"], 1), (["--duration", "11s", "--interval", "50ms"], 2)])
    func anAgentWithAShiftedClockFindsTheOffsetWithinItsBoundAndItsDeliveriesAgree(length: [String], rounds: Int) throws {
        let out = temporaryFolderPath()
        let server = try BenchProcess.start(
            ["serve", "fanout", "--clients", "4"] + length + ["--token", "t", "--quiet", "--out", out])
        var port = 0
        let deadline = Date().addingTimeInterval(20)
        while port == 0 && Date() < deadline {
            let text = (try? String(contentsOfFile: server.outputBase + ".err", encoding: .utf8)) ?? ""
            if let range = text.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last!)!
            }
            usleep(20_000)
        }
        let shifted = Process()
        shifted.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        shifted.arguments = [
            "--fork", "--time", "--monotonic", "7777", BenchProcess.executable.path, "clients", "--connect",
            "127.0.0.1:\(port)", "--clients", "2", "--token", "t",
        ]
        shifted.standardError = FileHandle.nullDevice
        try shifted.run()
        let plain = try BenchProcess.run(["clients", "--connect", "127.0.0.1:\(port)", "--clients", "2", "--token", "t"])
        shifted.waitUntilExit()
        let served = try BenchProcess.finish(server, timeout: 60)
        #expect(served.exitCode == 0 && plain.exitCode == 0 && shifted.terminationStatus == 0, "\(served.standardError)")
        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        func rows(_ name: String) throws -> [[String: String]] { try csvRows(folder + "/" + name) }
        let agents = try rows("agents.csv")
        #expect(agents.count == 2 && agents.allSatisfy { $0["lost"] == "0" && $0["same_boot"] == "1" })
        for agent in agents {
            let offset = try #require(Int64(agent["clock_offset_ns"]!))
            let error = try #require(Int64(agent["clock_error_ns"]!))
            let injected: Int64 = abs(offset) > 1_000_000_000 ? -7_777_000_000_000 : 0
            #expect(abs(offset - injected) <= error, "offset \(offset) ns, error bound \(error) ns, injected \(injected) ns")
            #expect(error < 5_000_000, "a bound of loopback round trips, not of the shift")
            // Every round measured, kept or (its bound more than twice the best's, on a loaded machine) left out.
            let kept = Int(agent["clock_rounds"]!)!, leftOut = Int(agent["clock_rounds_left_out"]!)!
            #expect(kept >= 1 && kept + leftOut >= rounds, "\(kept) kept, \(leftOut) left out")
            let end = try #require(Int64(agent["clock_offset_end_ns"]!))
            #expect(abs(end - injected) <= error, "the latest round: \(end) ns")
            if let drift = Double(agent["clock_drift_ppm"]!) {
                // The same clock: any drift found is the rounds' noise, (e₀ + eₖ) over at least 5 s between them.
                #expect(abs(drift) <= Double(3 * error) / 5_000 + 1, "\(drift) ppm with a bound of \(error) ns")
            }
        }
        // Each agent's clients' deliveries, corrected, agree: their medians within a couple of milliseconds.
        let shiftedAgent = try #require(agents.first { abs(Int64($0["clock_offset_ns"]!)!) > 1_000_000_000 })
        let first = Int(shiftedAgent["first_client"]!)!
        let samples = try rows("samples.csv")
        func median(_ rows: [[String: String]]) -> Int {
            let values = rows.compactMap { Int($0["delivery_ns"]!) }.sorted()
            return values[values.count / 2]
        }
        let ofShifted = samples.filter { (first..<first + 2).contains(Int($0["client"]!)!) }
        let ofPlain = samples.filter { !(first..<first + 2).contains(Int($0["client"]!)!) }
        let lost = samples.filter { $0["lost"] != "0" }
        #expect(ofShifted.count == ofPlain.count && ofShifted.count >= 200 && lost.isEmpty,
                "\(ofShifted.count) vs \(ofPlain.count) samples; lost: \(lost.prefix(3))")
        #expect(abs(median(ofShifted) - median(ofPlain)) < 2_000_000, "\(median(ofShifted)) vs \(median(ofPlain)) ns")
        // summary.csv carries the largest bound beside the metrics that compare the agents' stamps with the server's.
        let summary = try rows("summary.csv")
        let bound = agents.map { Int($0["clock_error_ns"]!)! }.max()!
        #expect(summary.first { $0["metric"] == "delivery" }?["clock_error_us"].flatMap(Double.init) == Double(bound) / 1000)
        #expect(summary.first { $0["metric"] == "rtt" }?["clock_error_us"] == "")
    }
}
