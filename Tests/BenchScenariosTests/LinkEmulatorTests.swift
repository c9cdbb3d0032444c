import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// The emulated link between real sockets on loopback: every byte either way arrives, in order, unchanged, and never
/// sooner than the link's delay; an end is passed on once the bytes before it are out; a NAT that forgot an idle
/// connection makes its bytes vanish both ways without a reset.
@Suite(.timeLimit(.minutes(1))) struct LinkEmulatorTests {
    /// A client connected through a link to `profile` in front of a listener of the test's, and the server's end.
    private final class Through {
        let link: LinkEmulator
        let listener: Int32
        let client: Int32
        let server: Int32

        init(_ profile: String) throws {
            let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
            self.listener = listener
            link = try LinkEmulator(profile: try LinkProfile(parsing: profile), upstream: address, seed: 9)
            client = try TCPSocket.connect(to: link.address)
            var accepted: Int32?
            for _ in 0..<2_000 where accepted == nil {  // the link connects once the client is accepted
                accepted = try TCPSocket.accept(from: listener)?.relinquish()
                if accepted == nil { usleep(5_000) }
            }
            guard let accepted else {
                link.end()
                throw SystemError("accept through the link", errno: ETIMEDOUT)
            }
            server = accepted
            for fd in [client, server] { try Posix.setNonBlocking(fd, false) }
        }

        deinit {
            link.end()
            for fd in [client, server, listener] { Posix.close(fd) }
        }
    }

    /// Reads `count` bytes from `fd`, waiting up to `seconds` for each read; fewer when it ends or nothing comes.
    private static func read(_ fd: Int32, count: Int, seconds: Int = 10) throws -> [UInt8] {
        try Posix.setReceiveTimeout(fd, nanoseconds: UInt64(seconds) * 1_000_000_000)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < count {
            let got = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, min($0.count, count - bytes.count), 0) }
            guard got > 0 else { break }
            bytes += buffer[..<got]
        }
        return bytes
    }

    @Test func bytesCrossBothWaysWholeInOrderAndNoSoonerThanTheDelay() throws {
        let through = try Through("delay=30ms,rate=100mbit")
        let upward = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var start = MonotonicClock.now()
        try Posix.sendAll(through.client, upward)
        #expect(try Self.read(through.server, count: upward.count) == upward)
        #expect(MonotonicClock.now() - start >= 30_000_000, "one way, at least the delay")
        let downward = Array("the server's answer".utf8)
        start = MonotonicClock.now()
        try Posix.sendAll(through.server, downward)
        #expect(try Self.read(through.client, count: downward.count) == downward)
        #expect(MonotonicClock.now() - start >= 30_000_000)
        shutdown(through.client, Int32(SHUT_WR))
        #expect(try Self.read(through.server, count: 1).isEmpty, "the client's end reaches the server")
    }

    @Test func aConnectionIdleLongerThanTheNATsTimeoutIsForgottenBothWays() throws {
        let through = try Through("nat-idle=100ms")
        try Posix.sendAll(through.client, Array("a".utf8))
        #expect(try Self.read(through.server, count: 1) == Array("a".utf8))
        usleep(300_000)  // longer than nat-idle: the NAT forgets the connection
        try Posix.sendAll(through.client, Array("b".utf8))  // no reset: the client's socket takes it
        try Posix.sendAll(through.server, Array("c".utf8))
        #expect(try Self.read(through.server, count: 1, seconds: 1).isEmpty, "the client's byte vanished")
        #expect(try Self.read(through.client, count: 1, seconds: 1).isEmpty, "and the server's")
    }
}
