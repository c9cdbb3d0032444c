import BenchCore
import Foundation
import Glibc
import Testing

/// A server out of file descriptors keeps its listener: accepting pauses and resumes, the run goes on, and the
/// failure is reported with the limit.
@Suite(.timeLimit(.minutes(10))) struct DescriptorExhaustionTests {
    @Test func aServerOutOfDescriptorsPausesAcceptingAndResumesWhenSomeAreFree() throws {
        let out = temporaryFolderPath()
        let port = try freeLoopbackPort()
        // 2 clients need 4 descriptors plus the 64 kept in reserve: 90 fits the run and leaves ~20 to exhaust.
        // Each step waits for the event it needs (bounded by 60 s, which only a hang reaches), not for a time.
        let process = try BenchProcess.start(
            ["fanout", "--clients", "2", "--messages", "120", "--interval", "50ms", "--arrival", "fixed",
             "--report-every", "100ms", "--port", "\(port)", "--out", out, "--quiet"],
            descriptorLimit: 90)
        // The run's own clients connect first (they need descriptors of the same process): sending has begun.
        try #require(waitForLines(2, in: "samples.csv", under: out), "the run began")
        let strays = (0..<100).compactMap { _ in connectToLoopback(port) }  // the backlog takes what accept cannot
        #expect(waitUntil { openDescriptors(of: process.processIdentifier) >= 90 }, "the server ran out of descriptors")
        for stray in strays { close(stray) }
        let late = try #require(connectToLoopback(port))
        defer { close(late) }
        var hello: [UInt8] = [0, 0, 0, 16, 1, WireFormat.version, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xEE, count: 8)
        _ = send(late, &hello, hello.count, Int32(MSG_NOSIGNAL))
        #expect(closedByPeer(late), "accepting resumed: the server read the late hello and refused it")

        let result = try BenchProcess.finish(process, timeout: 60)
        #expect(result.exitCode == 0, "stderr: \(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let events = try String(contentsOfFile: folder + "/events.csv", encoding: .utf8)
        #expect(events.contains("listener,,\"accept failed: accept4: Too many open files (errno: 24) (this process may open 90 descriptors)"))
        #expect(events.contains("said hello as client 0 without this run's token"), "accepting resumed: \(events)")
        let settings = try String(contentsOfFile: folder + "/run.csv", encoding: .utf8)
        #expect(settings.contains("status,complete"))
        #expect(!settings.contains("accept_failures,0\r\n"))
    }

    /// Polls `condition` every 10 ms for up to 60 s.
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return false
    }

    private func openDescriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// True when the peer closes `fd` within 60 s (what it sent first is read and dropped).
    private func closedByPeer(_ fd: Int32) -> Bool {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            if count < 0 { return false }
        }
    }
}
