import Foundation
import Glibc
import Testing

/// An agent on "a second host": a network namespace of its own, reached over a veth pair, with a monotonic clock shifted
/// by a time namespace (`ip netns exec … unshare --time --monotonic`). Beside it a plain agent on the server's own
/// network; both find the server's clock and their deliveries agree.
@Suite(.timeLimit(.minutes(10))) struct NetworkNamespaceTests {
    static let ip = "/usr/sbin/ip"
    static let unshare = "/usr/bin/unshare"

    /// Runs `tool` with `arguments` to the end (killed after `timeout` seconds); its exit status and its output and
    /// errors together.
    @discardableResult
    static func runTool(_ tool: String, _ arguments: [String], timeout: TimeInterval = 10) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        guard (try? process.run()) != nil else { return (-1, "\(tool) did not start") }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(5_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Whether a network namespace can be made here and a time namespace entered inside it: tried once, for real, with
    /// a throwaway namespace.
    static let canMakeASecondHost: Bool = {
        guard FileManager.default.isExecutableFile(atPath: ip), FileManager.default.isExecutableFile(atPath: unshare)
        else { return false }
        let name = "bench-veth-probe-\(getpid())"
        guard runTool(ip, ["netns", "add", name]).0 == 0 else { return false }
        defer { runTool(ip, ["netns", "del", name]) }
        return runTool(ip, ["netns", "exec", name, unshare, "--fork", "--time", "--monotonic", "1", "true"]).0 == 0
    }()

    private func rows(_ path: String) throws -> [[String: String]] { try csvRows(path) }

    private func packets(_ link: String, _ direction: String) throws -> Int {
        let text = try String(contentsOfFile: "/sys/class/net/\(link)/statistics/\(direction)_packets", encoding: .utf8)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test(.enabled(
        if: canMakeASecondHost,
        "needs /usr/sbin/ip, /usr/bin/unshare and root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for ip netns and unshare --time"))
    func anAgentInAnotherNetworkAndTimeNamespaceFindsTheOffsetOverAVethAndItsDeliveriesAgree() throws {
        let pid = getpid()
        let namespace = "bench-veth-\(pid)"
        let (hostSide, namespaceSide) = ("bv\(pid)a", "bv\(pid)b")
        let subnet = "10.213.\(Int(pid) % 254 + 1)"
        let (serverAddress, agentAddress) = ("\(subnet).1", "\(subnet).2")
        // Anything left by an earlier run of this pid first, and always afterwards, whatever happens in between.
        func cleanUp() {
            Self.runTool(Self.ip, ["link", "del", hostSide])
            Self.runTool(Self.ip, ["netns", "del", namespace])
        }
        cleanUp()
        defer {
            cleanUp()
            #expect(!FileManager.default.fileExists(atPath: "/sys/class/net/\(hostSide)"), "the veth pair is gone")
            #expect(!FileManager.default.fileExists(atPath: "/run/netns/\(namespace)"), "the namespace is gone")
        }
        for step in [
            ["netns", "add", namespace],
            ["link", "add", hostSide, "type", "veth", "peer", "name", namespaceSide],
            ["link", "set", namespaceSide, "netns", namespace],
            ["addr", "add", "\(serverAddress)/24", "dev", hostSide],
            ["link", "set", hostSide, "up"],
            ["-n", namespace, "addr", "add", "\(agentAddress)/24", "dev", namespaceSide],
            ["-n", namespace, "link", "set", namespaceSide, "up"],
            ["-n", namespace, "link", "set", "lo", "up"],
        ] {
            let (status, output) = Self.runTool(Self.ip, step)
            try #require(status == 0, "ip \(step.joined(separator: " ")): \(output)")
        }

        let out = temporaryFolderPath()
        let server = try BenchProcess.start([
            "serve", "fanout", "--clients", "4", "--messages", "100", "--interval", "5ms", "--listen", "\(serverAddress):0",
            "--token", "t", "--quiet", "--out", out,
        ])
        defer { if server.process.isRunning { server.process.terminate() } }  // when something below throws
        var port = 0
        let deadline = Date().addingTimeInterval(20)
        let pattern = "listening on " + serverAddress.replacingOccurrences(of: ".", with: #"\."#) + #":(\d+)"#
        while port == 0 && Date() < deadline && server.process.isRunning {
            let text = (try? String(contentsOfFile: server.outputBase + ".err", encoding: .utf8)) ?? ""
            if let range = text.range(of: pattern, options: .regularExpression) {
                port = Int(text[range].split(separator: ":").last!)!
            }
            usleep(20_000)
        }
        guard port != 0 else {
            let served = try BenchProcess.finish(server, timeout: 1)
            Issue.record("serve never said it listens on \(serverAddress): \(served.standardError)")
            return
        }
        let receivedBefore = try packets(hostSide, "rx")
        let sentBefore = try packets(hostSide, "tx")

        // The agent on the other "host": its own network (only the veth to the server) and a clock 7777 s ahead.
        let shiftedLog = temporaryFolderPath() + ".err"
        _ = FileManager.default.createFile(atPath: shiftedLog, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: shiftedLog) }
        let shifted = Process()
        shifted.executableURL = URL(fileURLWithPath: Self.ip)
        shifted.arguments = [
            "netns", "exec", namespace, Self.unshare, "--fork", "--kill-child", "--time", "--monotonic", "7777",
            BenchProcess.executable.path, "clients", "--connect", "\(serverAddress):\(port)", "--clients", "2",
            "--token", "t",
        ]
        shifted.standardOutput = FileHandle.nullDevice
        shifted.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: shiftedLog))
        try shifted.run()
        defer { if shifted.isRunning { shifted.terminate() } }
        let plain = try BenchProcess.start([
            "clients", "--connect", "\(serverAddress):\(port)", "--clients", "2", "--token", "t",
        ])
        defer { if plain.process.isRunning { plain.process.terminate() } }
        let served = try BenchProcess.finish(server, timeout: 60)
        let plainResult = try BenchProcess.finish(plain, timeout: 10)
        let shiftedDeadline = Date().addingTimeInterval(10)
        while shifted.isRunning && Date() < shiftedDeadline { usleep(10_000) }
        if shifted.isRunning { shifted.terminate() }  // unshare --kill-child takes the agent with it
        shifted.waitUntilExit()
        let shiftedErrors = (try? String(contentsOfFile: shiftedLog, encoding: .utf8)) ?? ""
        #expect(served.exitCode == 0, "\(served.standardError)")
        #expect(plainResult.exitCode == 0, "\(plainResult.standardError)")
        #expect(shifted.terminationStatus == 0, "\(shiftedErrors)")
        let received = try packets(hostSide, "rx") - receivedBefore
        let sent = try packets(hostSide, "tx") - sentBefore

        let folder = served.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let agents = try rows(folder + "/agents.csv")
        try #require(agents.count == 2, "\(agents)")
        #expect(agents.allSatisfy { $0["lost"] == "0" && $0["messages"] == "200" }, "\(agents)")
        let plainAgent = try #require(agents.first { Int32($0["pid"]!) == plain.processIdentifier }, "\(agents)")
        let shiftedAgent = try #require(agents.first { Int32($0["pid"]!) != plain.processIdentifier })
        for (agent, injected) in [(shiftedAgent, Int64(-7_777_000_000_000)), (plainAgent, 0)] {
            let offset = try #require(Int64(agent["clock_offset_ns"]!))
            let error = try #require(Int64(agent["clock_error_ns"]!))
            print("NetworkNamespaceTests: agent pid \(agent["pid"]!): offset \(offset) ns, bound \(error) ns, injected \(injected) ns")
            #expect(abs(offset - injected) <= error, "offset \(offset) ns, error bound \(error) ns, injected \(injected) ns")
            #expect(error < 5_000_000, "a bound of round trips over a veth or loopback, not of the shift")
        }

        // The shifted agent's clients really went over the veth: at least their 2 × 100 echoes came in on the host
        // side, and the server's 2 × 100 messages to them went out on it.
        print("NetworkNamespaceTests: \(hostSide) received \(received) packets, sent \(sent)")
        #expect(received >= 200 && sent >= 200, "\(hostSide): \(received) packets in, \(sent) out")

        // Each agent's clients' deliveries, corrected by its own offset, agree: their medians within 2 ms.
        let first = Int(shiftedAgent["first_client"]!)!
        let samples = try rows(folder + "/samples.csv")
        #expect(samples.count == 400 && samples.allSatisfy { $0["lost"] == "0" })
        func median(_ rows: [[String: String]]) -> Int {
            let values = rows.compactMap { Int($0["delivery_ns"]!) }.sorted()
            return values.isEmpty ? Int.max / 2 : values[values.count / 2]
        }
        let ofShifted = samples.filter { (first..<first + 2).contains(Int($0["client"]!)!) }
        let ofPlain = samples.filter { !(first..<first + 2).contains(Int($0["client"]!)!) }
        #expect(ofShifted.count == 200 && ofPlain.count == 200)
        print("NetworkNamespaceTests: delivery medians \(median(ofShifted)) ns (veth) vs \(median(ofPlain)) ns (plain)")
        #expect(abs(median(ofShifted) - median(ofPlain)) < 2_000_000, "\(median(ofShifted)) vs \(median(ofPlain)) ns")
    }
}
