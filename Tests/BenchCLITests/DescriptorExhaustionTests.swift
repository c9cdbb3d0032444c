import BenchCore
import Foundation
import Glibc
import Testing

/// A server out of file descriptors keeps its listener: accepting pauses and resumes, the run goes on, and the
/// failure is reported with the limit.
@Suite(.timeLimit(.minutes(3))) struct DescriptorExhaustionTests {
    @Test func aServerOutOfDescriptorsPausesAcceptingAndResumesWhenSomeAreFree() throws {
        let out = temporaryFolderPath()
        let port = try freePort()
        // 2 clients need 4 descriptors plus the 64 kept in reserve: 90 fits the run and leaves ~20 to exhaust.
        // Each step waits for the event it needs (bounded by 60 s, which only a hang reaches), not for a time.
        let process = try BenchProcess.start(
            ["fanout", "--clients", "2", "--messages", "120", "--interval", "50ms", "--arrival", "fixed",
             "--report-every", "100ms", "--port", "\(port)", "--out", out, "--quiet"],
            descriptorLimit: 90)
        // The run's own clients connect first (they need descriptors of the same process): sending has begun.
        try #require(waitForLines(2, in: "samples.csv", under: out), "the run began")
        let strays = (0..<100).compactMap { _ in connectTo(port) }  // the backlog takes what accept cannot
        #expect(waitUntil { openDescriptors(of: process.processIdentifier) >= 90 }, "the server ran out of descriptors")
        for stray in strays { close(stray) }
        let late = try #require(connectTo(port))
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

    private func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }

    private func connectTo(_ port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if status == 0 { return fd }
        close(fd)
        return nil
    }
}
