import Foundation
import Glibc
import Testing

/// `--server-procs`: the built-in server in several processes, measured as one run on one clock, as a user runs it.
@Suite(.timeLimit(.minutes(10))) struct ServerProcessesTests {
    private func settings(_ folder: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
    }

    private func fanout(_ extra: [String], out: String) throws -> (BenchProcess, String) {
        let result = try BenchProcess.run(
            ["fanout", "--clients", "6", "--messages", "20", "--interval", "20ms", "--seed", "11", "--quiet", "--out", out]
                + extra)
        return (result, result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func twoServerProcessesMeasureWhatOneDoesOnTheSameSeed() throws {
        let out = temporaryFolderPath()
        let (one, oneFolder) = try fanout([], out: out + "/one")
        let (two, twoFolder) = try fanout(["--server-procs", "2"], out: out + "/two")
        #expect(one.exitCode == 0, "\(one.standardError)")
        #expect(two.exitCode == 0, "\(two.standardError)")
        let (a, b) = (try settings(oneFolder), try settings(twoFolder))
        #expect(a["messages_measured"] == "120" && b["messages_measured"] == "120", "\(b)")
        #expect(a["messages_lost"] == "0" && b["messages_lost"] == "0")
        #expect(a["server_processes"] == "1" && b["server_processes"] == "2")
        #expect(b["server_address"]?.split(separator: " ").count == 2, "each process listens on its own port")
        #expect(b["server_process_cpu_pct"]?.split(separator: " ").count == 2)
        #expect((Int(a["window_sequences"] ?? "") ?? 0) > 0 && b["window_sequences"] == a["window_sequences"], "the ledgers' rows")
        #expect(Double(a["setup_s"] ?? "") != nil && Double(b["setup_s"] ?? "") != nil, "the wait for the clients, measured")
        // The same timetable: the seed's due times, broadcast by broadcast.
        let (broadcastsOne, broadcastsTwo) = (try csvRows(oneFolder + "/broadcasts.csv"), try csvRows(twoFolder + "/broadcasts.csv"))
        #expect(broadcastsOne.count == 20 && broadcastsTwo.count == 20)
        #expect(broadcastsOne.map { $0["scheduled_ns"]! } == broadcastsTwo.map { $0["scheduled_ns"]! })
        // Every client of both processes in every broadcast, measured from the broadcast's one t0 (the earliest write of
        // either process), its spread over all of them: derived here from samples.csv alone.
        let samples = try csvRows(twoFolder + "/samples.csv")
        #expect(samples.count == 120)
        for (index, row) in broadcastsTwo.enumerated() {
            let own = samples.filter { $0["broadcast"] == "\(index)" }
            #expect(Set(own.map { $0["client"]! }) == Set((0..<6).map(String.init)))
            let writes = own.map { UInt64($0["write_ns"]!)! }
            let receipts = own.map { UInt64($0["recv_ns"]!)! }
            #expect(own.allSatisfy { UInt64($0["t0_ns"]!)! == writes.min()! }, "broadcast \(index)'s t0 is its first write")
            #expect(own.allSatisfy { UInt64($0["delivery_ns"]!)! == UInt64($0["recv_ns"]!)! - writes.min()! })
            #expect(UInt64(row["spread_ns"]!)! == receipts.max()! - receipts.min()!, "broadcast \(index)")
        }
    }

    @Test func aServerProcessThatDiesLosesItsClientsMessagesAndFailsTheRun() throws {
        let process = try startTwoServerProcesses(messages: 500)
        let shard = try #require(serverProcess(1, of: process.processIdentifier))
        kill(shard, SIGKILL)
        let result = try BenchProcess.finish(process, timeout: 60)
        #expect(result.exitCode == 3, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try settings(folder)
        #expect(run["status"] == "failed")
        #expect(run["status_reason"]?.contains("server process 1 (pid \(shard)) was killed by signal 9") == true, "\(run)")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 2_000, "every broadcast to every client is in the run, delivered or lost")
        let lost = samples.filter { $0["lost"] == "1" }
        #expect(!lost.isEmpty && lost.allSatisfy { ["2", "3"].contains($0["client"]!) }, "only the dead process's clients")
        #expect(run["messages_lost"] == "\(lost.count)")
        #expect(samples.filter { $0["client"] == "0" || $0["client"] == "1" }.allSatisfy { $0["lost"] == "0" })
    }

    /// Ctrl-C reaches the run's process alone (its server processes lead groups of their own); it tells each to stop,
    /// and each ends its run as one process would: interrupted, what was measured written.
    @Test func anInterruptedRunStopsEveryServerProcessGently() throws {
        let process = try startTwoServerProcesses(messages: 2000)
        kill(process.processIdentifier, SIGINT)
        let result = try BenchProcess.finish(process, timeout: 60)
        #expect(result.exitCode == 130, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try settings(folder)
        #expect(run["status"] == "interrupted", "\(run)")
        #expect(run["status_reason"]?.contains("killed") == false, "\(run)")
        #expect(Int(run["messages_measured"] ?? "") ?? 0 > 0)
    }

    /// A run's process killed outright takes its server processes with it (they would have served their clients to
    /// the end of the timetable, and then waited on a channel nobody read).
    @Test func serverProcessesEndWithTheRunsProcess() throws {
        let process = try startTwoServerProcesses(messages: 20000)
        let shards = [serverProcess(0, of: process.processIdentifier), serverProcess(1, of: process.processIdentifier)]
            .compactMap { $0 }
        try #require(shards.count == 2)
        kill(process.processIdentifier, SIGKILL)
        _ = try BenchProcess.finish(process, timeout: 60)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && shards.contains(where: { kill($0, 0) == 0 && !isZombie($0) }) { usleep(20_000) }
        #expect(!shards.contains { kill($0, 0) == 0 && !isZombie($0) }, "the server processes ended with the run's")
    }

    /// A server process that hangs (stopped here with SIGSTOP) is killed once it should have ended: a timeout and
    /// 10 s after Ctrl-C, or a quarter of the timetable more after the run's last send was due. The run ends, failed,
    /// saying so, with what the other process measured and the hung one's clients' messages from then on lost.
    @Test(arguments: [true, false]) func aHungServerProcessIsKilledOnceItShouldHaveEnded(interrupted: Bool) throws {
        let process = try startTwoServerProcesses(messages: 300, ["--timeout", "1s"])
        let shard = try #require(serverProcess(1, of: process.processIdentifier))
        kill(shard, SIGSTOP)
        if interrupted { kill(process.processIdentifier, SIGINT) }
        let result = try BenchProcess.finish(process, timeout: 120)
        #expect(result.exitCode == 3, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try settings(folder)
        let when = interrupted ? "11.020s after it was asked to stop" : "after the run's last send was due"
        #expect(run["status"] == "failed")
        #expect(run["status_reason"]?.contains("server process 1 (pid \(shard)) was still running") == true, "\(run)")
        #expect(run["status_reason"]?.contains(when) == true, "\(run)")
        let samples = try csvRows(folder + "/samples.csv")
        if !interrupted {  // Ctrl-C may stop the other process before it begins another broadcast
            #expect(samples.contains { $0["client"] == "2" && $0["lost"] == "1" }, "the hung process's clients lose")
        }
        #expect(samples.filter { $0["client"] == "0" }.allSatisfy { $0["lost"] == "0" })
        #expect(kill(shard, 0) != 0 || isZombie(shard), "the hung process is gone")
    }

    private func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ")?.upperBound
        else { return true }
        return stat[afterName...].hasPrefix("Z")
    }

    @Test func moreClientsThanOneProcessesDescriptorsTakeSeveralServerProcessesByThemselves() throws {
        let out = temporaryFolderPath()
        // A limit of 300: 300 clients and the 64 kept in reserve do not fit one server process.
        let process = try BenchProcess.start(
            ["fanout", "--clients", "300", "--messages", "3", "--interval", "20ms", "--out", out], descriptorLimit: 300)
        let result = try BenchProcess.finish(process, timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardError.contains("the server runs in 2 processes (--server-procs)"), "\(result.standardError)")
        let folder = try #require(contents(of: out)?.first).map { out + "/" + $0 }!
        let run = try settings(folder)
        #expect(run["server_processes"] == "2" && run["messages_measured"] == "900" && run["messages_lost"] == "0", "\(run)")
    }

    @Test(arguments: [
        (["chat", "--clients", "4", "--rooms", "1"], "each chat relay process hosts whole rooms: at most --rooms (1)"),
        (["chat", "--clients", "4", "--rooms", "2", "--link", "3g"], "--link's emulator"),
        (["fanout", "--clients", "4", "--link", "3g"], "--link's emulator"),
        (["fanout", "--clients", "4", "--client-procs", "2"], "give no --client-procs"),
        (["fanout", "--clients", "4", "--port", "9"], "give no --port"),
        (["fanout", "--clients", "4", "--server-threads", "2"], "give --server-threads 1"),
        (["fanout", "--clients", "1"], "must be at most --clients (1)"),
        (["fanout", "--clients", "4", "--target", "redis://127.0.0.1:1/news"], "a --target run has none"),
        (["roundtrip", "--clients", "2,4"], "a sweep's runs"),
        (["fanout", "--clients", "4", "--interval", "0"], "a closed-loop broadcast"),
    ])
    func aRunThatCannotSplitItsServerIsAUsageError(arguments: [String], reason: String) throws {
        let out = temporaryFolderPath()
        let result = try BenchProcess.run(arguments + ["--server-procs", "2", "--out", out])
        #expect(result.exitCode == 2, "\(result.standardError)")
        #expect(result.standardError.contains(reason), "\(result.standardError)")
        #expect(contents(of: out) == nil, "a usage error writes nothing")
    }

    @Test func benchServeAndCapacityRefuseServerProcesses() throws {
        let serve = try BenchProcess.run(["serve", "fanout", "--clients", "4", "--server-procs", "2", "--token", "t"])
        #expect(serve.exitCode == 2 && serve.standardError.contains("--server-procs does not apply to bench serve"))
        let capacity = try BenchProcess.run(["capacity", "fanout", "--clients", "10..20", "--server-procs", "2"])
        #expect(capacity.exitCode == 2, "\(capacity.standardError)")
    }

    // MARK: the chat relay in several processes

    /// Who each sender's messages went to, from samples.csv: its room, less itself.
    private func rooms(_ folder: String) throws -> [String: Set<String>] {
        var rooms: [String: Set<String>] = [:]
        for row in try csvRows(folder + "/samples.csv") { rooms[row["sender"]!, default: [row["sender"]!]].insert(row["client"]!) }
        return rooms
    }

    /// `bench chat` of 12 members in 4 rooms, its summary printed; the run and its folder.
    private func chat(_ extra: [String], out: String) throws -> (BenchProcess, String) {
        let result = try BenchProcess.run(
            ["chat", "--clients", "12", "--rooms", "4", "--count", "10", "--rate", "50/s", "--seed", "5", "--out", out]
                + extra)
        return (result, out + "/" + (contents(of: out)?.first ?? "none"))
    }

    /// Two relay processes, each hosting whole rooms, measured in one ledger: the same rooms, the same messages on the
    /// same timetable, every one delivered, as with one relay.
    @Test func twoRelayProcessesMeasureWhatOneDoesOnTheSameSeed() throws {
        let out = temporaryFolderPath()
        let (one, oneFolder) = try chat([], out: out + "/one")
        let (two, twoFolder) = try chat(["--server-procs", "2"], out: out + "/two")
        #expect(one.exitCode == 0, "\(one.standardError)")
        #expect(two.exitCode == 0, "\(two.standardError)")
        let (a, b) = (try settings(oneFolder), try settings(twoFolder))
        #expect(a["messages_measured"] == "240" && b["messages_measured"] == "240", "\(b)")
        #expect(a["messages_lost"] == "0" && b["messages_lost"] == "0")
        #expect(a["server_processes"] == "1" && b["server_processes"] == "2")
        #expect(b["server_address"]?.split(separator: " ").count == 2, "each process listens on its own port")
        #expect(b["server_process_cpu_pct"]?.split(separator: " ").count == 2)
        #expect(two.standardOutput.contains("relay in 2 processes ran on CPU"), "\(two.standardOutput)")
        #expect(one.standardOutput.contains("relay ran on CPU"), "\(one.standardOutput)")
        #expect(try rooms(oneFolder) == rooms(twoFolder) && Set(try rooms(twoFolder).values).count == 4)
        let (messagesOne, messagesTwo) = (try csvRows(oneFolder + "/messages.csv"), try csvRows(twoFolder + "/messages.csv"))
        func timetable(_ rows: [[String: String]]) -> [String] {
            rows.map { "\($0["sender"]!)/\($0["seq"]!)/\($0["scheduled_ns"]!)" }.sorted()
        }
        #expect(messagesTwo.count == 120 && timetable(messagesOne) == timetable(messagesTwo))
        #expect(messagesTwo.allSatisfy { $0["delivered"] == "2" && $0["complete"] == "1" })
    }

    /// A relay process killed mid-run: the members of its rooms lose what was sent from then on, every other room is
    /// measured whole, and the run fails naming the process.
    @Test func aRelayProcessThatDiesLosesItsRoomsMessagesAndFailsTheRun() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "chat", "--clients", "12", "--rooms", "4", "--server-procs", "2", "--count", "1000", "--rate", "100/s",
            "--report-every", "100ms", "--quiet", "--out", out,
        ])
        try #require(waitForLines(3, in: "samples.csv", under: out), "sending began")
        let relay = try #require(serverProcess(1, of: process.processIdentifier))
        kill(relay, SIGKILL)
        let result = try BenchProcess.finish(process, timeout: 60)
        #expect(result.exitCode == 3, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try settings(folder)
        #expect(run["status"] == "failed")
        #expect(run["status_reason"]?.contains("server process 1 (pid \(relay)) was killed by signal 9") == true, "\(run)")
        #expect(run["status_reason"]?.contains("its rooms' 6 members' messages from then on are lost") == true, "\(run)")
        let samples = try csvRows(folder + "/samples.csv")
        let lost = Set(samples.filter { $0["lost"] == "1" }.flatMap { [$0["sender"]!, $0["client"]!] })
        let whole = Set(try rooms(folder).values)
        #expect(!lost.isEmpty && whole.filter { !$0.isDisjoint(with: lost) }.allSatisfy { $0.isSubset(of: lost) },
            "the lost are whole rooms")
        #expect(whole.filter { $0.isDisjoint(with: lost) }.count == 2, "the other process's two rooms lost nothing")
        #expect(run["messages_lost"] == "\(samples.filter { $0["lost"] == "1" }.count)")
    }

    /// Ctrl-C reaches the run's process alone; it ends its measurement as one process would, then stops each relay
    /// process, which tells what it did.
    @Test func anInterruptedChatStopsEveryRelayProcessGently() throws {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "chat", "--clients", "6", "--rooms", "2", "--server-procs", "2", "--count", "2000", "--rate", "50/s",
            "--report-every", "100ms", "--quiet", "--out", out,
        ])
        try #require(waitForLines(3, in: "samples.csv", under: out), "sending began")
        kill(process.processIdentifier, SIGINT)
        let result = try BenchProcess.finish(process, timeout: 60)
        #expect(result.exitCode == 130, "\(result.standardError)")
        let run = try settings(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(run["status"] == "interrupted" && run["status_reason"]?.contains("server process") == false, "\(run)")
        #expect(run["server_process_cpu_pct"]?.split(separator: " ").allSatisfy { Double($0) != nil } == true, "\(run)")
    }

    /// More members than one process's descriptors hold: the relay splits into processes by itself, each holding
    /// whole rooms, and the members into client processes; a room too large for any process is said before any load.
    @Test func moreMembersThanOneRelaysDescriptorsTakeSeveralRelayProcessesByThemselves() throws {
        let out = temporaryFolderPath()
        // A limit of 300: 300 members (100 rooms of 3) and the 64 kept in reserve do not fit one relay process.
        let process = try BenchProcess.start(
            ["chat", "--clients", "300", "--rooms", "100", "--count", "2", "--rate", "10/s", "--out", out], descriptorLimit: 300)
        let result = try BenchProcess.finish(process, timeout: 120)
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(result.standardError.contains("the server runs in 2 processes (--server-procs)"), "\(result.standardError)")
        let folder = try #require(contents(of: out)?.first).map { out + "/" + $0 }!
        let run = try settings(folder)
        #expect(run["server_processes"] == "2" && run["messages_measured"] == "1200" && run["messages_lost"] == "0", "\(run)")
        // Two rooms of 250: neither fits a process of 300 descriptors (250, its listener and 64 in reserve); nor do
        // 100 rooms of 3 in 2 processes of 100 descriptors.
        for (arguments, limit, reason) in [
            (["--clients", "500", "--rooms", "2"], 300, "room 0 has 250 members, and a relay process holds at most 235 "
                + "members (RLIMIT_NOFILE's hard limit is 300): give more --rooms"),
            (["--clients", "300", "--rooms", "100", "--server-procs", "2"], 200, "2 relay processes would hold up to 150 "
                + "members each, and a relay process holds at most 135 members (RLIMIT_NOFILE's hard limit is 200): "
                + "give more --server-procs"),
        ] {
            let refusedOut = temporaryFolderPath()
            let tooLarge = try BenchProcess.start(["chat", "--count", "2", "--out", refusedOut] + arguments, descriptorLimit: limit)
            let refused = try BenchProcess.finish(tooLarge, timeout: 120)
            #expect(refused.exitCode == 3, "\(refused.standardError)")
            #expect(refused.standardError.contains(reason), "\(refused.standardError)")
            #expect(contents(of: refusedOut)?.isEmpty != false, "said before anything is written")
        }
    }

    /// `bench fanout` of 4 clients on 2 server processes, `messages` broadcasts every 10 ms, once sending began (its
    /// samples synced every 100 ms).
    private func startTwoServerProcesses(messages: Int, _ extra: [String] = []) throws -> BenchProcess.Running {
        let out = temporaryFolderPath()
        let process = try BenchProcess.start([
            "fanout", "--clients", "4", "--server-procs", "2", "--messages", "\(messages)", "--interval", "10ms",
            "--report-every", "100ms", "--quiet", "--out", out,
        ] + extra)
        try #require(waitForLines(3, in: "samples.csv", under: out), "sending began")
        return process
    }

    /// The server process `index` of the run in process `parent`: a child with that place in its environment.
    private func serverProcess(_ index: Int, of parent: Int32) -> pid_t? {
        for entry in contents(of: "/proc") ?? [] {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ")?.upperBound,
                Int32(stat[afterName...].split(separator: " ")[1]) == parent,
                let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
            else { continue }
            let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if variables.contains(where: { $0.hasPrefix("BENCH_SERVER_SHARD=\(index)/") }) { return pid }
        }
        return nil
    }
}
