import BenchCore
import Foundation
import Glibc
import Testing

/// A server out of file descriptors keeps its listener: accepting pauses and resumes, the run goes on, and the
/// failure is reported with the limit.
@Suite struct DescriptorExhaustionTests {
    @Test func aServerOutOfDescriptorsPausesAcceptingAndResumesWhenSomeAreFree() throws {
        let out = temporaryFolderPath()
        let port = try freePort()
        // 2 clients need 4 descriptors plus the 64 kept in reserve: 90 fits the run and leaves ~20 to exhaust.
        let process = try BenchProcess.start(
            ["fanout", "--clients", "2", "--messages", "60", "--interval", "50ms", "--arrival", "fixed",
             "--port", "\(port)", "--out", out, "--quiet"],
            descriptorLimit: 90)
        var listening = false
        for _ in 0..<500 where !listening {
            if let probe = connectTo(port) {
                close(probe)
                listening = true
            } else {
                usleep(10_000)
            }
        }
        try #require(listening, "the server listens")
        usleep(1_000_000)  // the run's own clients connect first (they need descriptors of the same process)
        let strays = (0..<100).compactMap { _ in connectTo(port) }  // the backlog takes what accept cannot
        usleep(300_000)
        for stray in strays { close(stray) }
        usleep(300_000)
        let late = try #require(connectTo(port))
        defer { close(late) }
        var hello: [UInt8] = [0, 0, 0, 16, 1, WireFormat.version, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xEE, count: 8)
        _ = send(late, &hello, hello.count, Int32(MSG_NOSIGNAL))

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
