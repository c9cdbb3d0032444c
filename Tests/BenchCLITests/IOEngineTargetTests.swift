import Foundation
import Glibc
import Testing

/// `--io uring` beyond the built-in server: a user's server's subscribers (fanout, and roundtrip with kernel stamps)
/// and `bench chat`'s relay and members read and write through io_uring, and every message is measured. That the rings
/// are really used is read from the kernel: the run's process holds io_uring descriptors (`anon_inode:[io_uring]`)
/// while it runs, two per loop on the ring (its receives and its batch of sends), and none on epoll.
@Suite(.timeLimit(.minutes(10))) struct IOEngineTargetTests {
    /// The io_uring instances process `pid` holds now.
    static func rings(of pid: Int32) -> Int {
        let folder = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        return entries.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0)) == "anon_inode:[io_uring]"
        }.count
    }

    /// Runs bench with `arguments` and tells what it printed and the most io_uring instances it held at once. The
    /// rings live from their loop's start to the run's end (over a second here), and are looked for every 5 ms.
    static func runWatchingRings(_ arguments: [String]) throws -> (result: BenchProcess, rings: Int) {
        let running = try BenchProcess.start(arguments)
        var most = 0
        let deadline = Date().addingTimeInterval(120)
        while running.process.isRunning && Date() < deadline {
            most = max(most, rings(of: running.processIdentifier))
            usleep(5_000)
        }
        return (try BenchProcess.finish(running, timeout: 10), most)
    }

    private func settings(of folder: String) throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
    }

    /// A user's line relay, its 6 subscribers on two threads: with io_uring, two rings a thread (the publisher, on the
    /// measuring thread, stays on epoll) and every delivery measured; with epoll, no ring.
    @Test(
        .enabled(if: IOEngineCommandTests.uringAvailable),
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: ["uring", "epoll"])
    func aTargetsSubscribersReadThroughTheRing(engine: String) throws {
        let (server, port) = try TargetCompositionTests.startFixture("slow_relay_server.py", ["0"])
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let out = temporaryFolderPath()
        let (result, rings) = try Self.runWatchingRings([
            "fanout", "--target", "tcp://127.0.0.1:\(port)", "--framing", "line", "--subscribe", "JOIN",
            "--clients", "6", "--client-threads", "2", "--messages", "40", "--warmup", "5", "--interval", "30ms",
            "--io", engine, "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(rings == (engine == "uring" ? 4 : 0))
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try settings(of: folder)["io_engine"] == engine)
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 40 * 6 && samples.allSatisfy { $0["lost"] == "0" && $0["outcome"] == "delivered" })
        for row in samples {
            let t0 = try #require(row["t0_ns"].flatMap(Int.init)), received = try #require(row["recv_ns"].flatMap(Int.init))
            #expect(received >= t0 && row["delivery_ns"].flatMap(Int.init) == received - t0, "\(row)")
        }
    }

    /// A user's echo server in roundtrip with kernel stamps: each client's messages go out of the ring's batch as the
    /// measuring thread orders them, the echoes come back through its receives with their stamps, and each rtt is the
    /// kernel's echo stamp minus its transmit stamp.
    @Test(
        .enabled(if: IOEngineCommandTests.uringAvailable),
        .enabled(if: CapacityCommandTests.hasPython, "python3 is not installed: apt-get install -y python3"))
    func aTargetsRoundTripOverTheRingIsStampedByTheKernel() throws {
        let (server, port) = try TargetCompositionTests.startFixture("framed_echo_server.py", ["0"])
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let out = temporaryFolderPath()
        let (result, rings) = try Self.runWatchingRings([
            "roundtrip", "--target", "tcp://127.0.0.1:\(port)", "--framing", "stx", "--clients", "4", "--count", "30",
            "--interval", "40ms", "--timestamps", "kernel", "--io", "uring", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(rings == 2)
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let settings = try settings(of: folder)
        #expect(settings["io_engine"] == "uring" && settings["status"] == "complete")
        #expect(settings["kernel_receive_stamps_missing"] == "0" && settings["kernel_send_stamps_missing"] == "0")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 30 * 4 && samples.allSatisfy { $0["lost"] == "0" && $0["outcome"] == "echoed" })
        for row in samples {
            let sent = try #require(row["sent_ns"].flatMap(Int.init)), echo = try #require(row["echo_ns"].flatMap(Int.init))
            #expect(echo > sent && row["rtt_ns"].flatMap(Int.init) == echo - sent, "\(row)")
        }
    }

    /// `bench chat` over io_uring: the relay's loop and the members' loop each hold two rings, and every member's
    /// message reaches every other member of its room.
    @Test(.enabled(if: IOEngineCommandTests.uringAvailable))
    func theChatRelayAndItsMembersRunOnTheRing() throws {
        let out = temporaryFolderPath()
        let (result, rings) = try Self.runWatchingRings([
            "chat", "--clients", "12", "--room-size", "4", "--count", "20", "--warmup", "1", "--rate", "20/s", "--seed",
            "5", "--client-threads", "1", "--io", "uring", "--quiet", "--out", out,
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        #expect(rings == 4)
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try settings(of: folder)["io_engine"] == "uring")
        // 12 members in rooms of 4: each of 20 messages to 3 others.
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 12 * 20 * 3 && samples.allSatisfy { $0["lost"] == "0" })
    }
}
