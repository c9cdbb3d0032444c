import Foundation
import Glibc
import Testing

/// `--http2` from the command line, through Debian's nghttpx before the WebSocket relay of Tests/Fixtures: subscribers
/// in child processes behind a link, and `bench compare` of a run over HTTP/1.1 and one over HTTP/2.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HTTP2CommandTests {
    static let nghttpx = "/usr/sbin/nghttpx"
    static let available = FileManager.default.isExecutableFile(atPath: nghttpx) && HandshakeHeaderTests.hasWebSockets
    static let notice: Comment = "nghttpx or python3-websockets is not installed: apt-get install -y nghttp2-proxy python3-websockets"

    /// The relay and nghttpx before it (cleartext HTTP/2 and HTTP/1.1 on one port, its access log in `log`) for `body`,
    /// given the front's port; both killed after.
    private func withFront<Result>(log: String, _ body: (Int) throws -> Result) throws -> Result {
        let (relay, relayPort) = try startFixture("ws_broadcast_server.py")
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(relay.processIdentifier, SIGKILL)
            relay.waitUntilExit()
        }
        let port = try freeLoopbackPort()
        let front = Process()
        front.executableURL = URL(fileURLWithPath: Self.nghttpx)
        front.arguments = [
            "--conf=/dev/null", "--single-process", "--workers=1", "--frontend=127.0.0.1,\(port);no-tls",
            "--backend=127.0.0.1,\(relayPort)", "--accesslog-file=\(log)", "--accesslog-format=$alpn $method",
        ]
        front.standardOutput = FileHandle.nullDevice
        front.standardError = FileHandle.nullDevice
        try front.run()
        defer {
            kill(front.processIdentifier, SIGKILL)
            front.waitUntilExit()
        }
        var listening = false
        for _ in 0..<500 where front.isRunning && !listening {
            if let client = connectToLoopback(port) {
                close(client)
                listening = true
            } else {
                usleep(20_000)
            }
        }
        try #require(listening, "nghttpx listens on \(port)")
        return try body(Int(port))
    }

    private func fanout(port: Int, _ options: [String]) throws -> (BenchProcess, String) {
        let result = try BenchProcess.run([
            "fanout", "--target", "ws://127.0.0.1:\(port)/", "--publish", #"{"type":"broadcast","payload":"{marker}{padding}"}"#,
            "--messages", "10", "--warmup", "3", "--interval", "20ms", "--quiet", "--out", temporaryFolderPath(),
        ] + options)
        return (result, result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(.enabled(if: available, notice))
    func childProcessesBehindALinkReachTheServerOverHTTP2() throws {
        let log = temporaryFolderPath() + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let (result, folder) = try withFront(log: log) { port in
            try fanout(port: port, ["--http2", "--client-procs", "2", "--clients", "4", "--link", "delay=10ms", "--timestamps", "user"])
        }
        #expect(result.exitCode == 0, "\(result.standardError)")
        let settings = Dictionary(uniqueKeysWithValues: try csvRows(folder + "/run.csv").map { ($0["key"]!, $0["value"]!) })
        #expect(settings["status"] == "complete" && settings["http2"] == "yes")
        let samples = try csvRows(folder + "/samples.csv")
        #expect(samples.count == 4 * 10 && samples.allSatisfy { $0["lost"] == "0" && (Int($0["delivery_ns"] ?? "") ?? 0) >= 10_000_000 },
            "\(samples.prefix(2))")
        let requests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(requests.count == 5 && requests.allSatisfy { $0 == "h2c CONNECT" }, "\(requests)")
    }

    /// What HTTP/2 costs against HTTP/1.1 is a comparison of two runs through the same front: `bench compare` says
    /// they differ in it.
    @Test(.enabled(if: available, notice))
    func benchCompareSaysOneRunWentOverHTTP2() throws {
        let log = temporaryFolderPath() + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let ((one, baseline), (two, current)) = try withFront(log: log) { port in
            (try fanout(port: port, ["--clients", "3"]), try fanout(port: port, ["--clients", "3", "--http2"]))
        }
        #expect(one.exitCode == 0 && two.exitCode == 0, "\(one.standardError) \(two.standardError)")
        let compared = try BenchProcess.run(["compare", baseline, current])
        #expect(compared.standardOutput.contains("note: the runs differ in http2 no → yes"), "\(compared.standardOutput)")
        let requests = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(requests.filter { $0 == "http/1.1 GET" }.count == 4 && requests.filter { $0 == "h2c CONNECT" }.count == 4, "\(requests)")
    }
}
