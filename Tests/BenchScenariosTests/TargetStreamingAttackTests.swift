@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// A user's server (`--target`) at awkward moments.
@Suite(.serialized, .timeLimit(.minutes(10))) struct TargetStreamingAttackTests {
    /// A server that takes connections (the kernel's backlog) and never says a word: a subscriber never hears that it
    /// is subscribed, so the setup waits. Returns the listening socket and its port.
    private func silentServer() throws -> (descriptor: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { throw SystemError("bind/listen", errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Stopped (Ctrl-C) during the setup, before sending began: the run still has a start time on the wall clock,
    /// which names its folder and is its `start_utc` (it was 0: `fanout-19700101-000000`), as the built-in server's.
    @Test func aTargetRunStoppedDuringItsSetupKeepsAWallClockStart() throws {
        let server = try silentServer()
        defer { Posix.close(server.descriptor) }
        let configuration = try TargetServerTests.fanout(
            "redis://127.0.0.1:\(server.port)/ch", subscribers: 3, broadcasts: 10)
        let control = try RunControl()
        let stopper = Thread {
            usleep(300_000)
            control.requestStop()
        }
        stopper.start()
        let before = WallClock.nowUnixNanoseconds()
        let recording = try ScenarioRunner.run(configuration, control: control)
        #expect(recording.status == .interrupted)
        #expect(recording.startUnixNanoseconds >= before - 1_000_000_000, "\(recording.startUnixNanoseconds)")
        #expect(recording.startUnixNanoseconds <= WallClock.nowUnixNanoseconds())
    }
}
