import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// The emulated link between real sockets on loopback: every byte either way arrives, in order, unchanged, and never
/// sooner than the link's delay; an end is passed on once the bytes before it are out; a NAT that forgot an idle
/// connection makes its bytes vanish both ways without a reset.
/// Serialized: one link's thread at a time in this process, so that the CPU time read is its own.
@Suite(.serialized, .timeLimit(.minutes(10))) struct LinkEmulatorTests {
    /// A client connected through a link to `profile` in front of a listener of the test's, and the server's end.
    private final class Through {
        let link: LinkEmulator
        let listener: Int32
        let client: Int32
        let server: Int32

        init(_ profile: String) throws {
            let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
            self.listener = listener
            link = try LinkEmulator(mix: try LinkMix(parsing: profile), upstream: address, seed: 9)
            client = try TCPSocket.connect(to: link.entrances[0])
            // The link connects once it accepted the client: waited for up to 60 s (only a hang takes that long).
            var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let accepted = poll(&ready, 1, 60_000) == 1 ? try TCPSocket.accept(from: listener)?.relinquish() : nil
            guard let accepted else {
                link.end()
                throw SystemError("accept through the link", errno: ETIMEDOUT)
            }
            server = accepted
            for fd in [client, server] {
                try Posix.setNonBlocking(fd, false)
                var limit = timeval(tv_sec: 60, tv_usec: 0)  // a write the link never takes fails, not hangs
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            }
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

    /// What one read of `fd` gives within `seconds`: bytes, the end (0), or nothing (EAGAIN: the wait ran out).
    private static func next(_ fd: Int32, seconds: Int) throws -> (bytes: [UInt8], ended: Bool, timedOut: Bool) {
        try Posix.setReceiveTimeout(fd, nanoseconds: UInt64(seconds) * 1_000_000_000)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let got = buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        let error = errno
        return (got > 0 ? Array(buffer[..<got]) : [], got == 0, got < 0 && (error == EAGAIN || error == EWOULDBLOCK))
    }

    /// The link thread's CPU time so far (clock ticks), from /proc: a loop that spins shows there.
    private static func linkThreadTicks() throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.hasPrefix("bench-link"),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)  // utime and stime, the 14th and 15th fields
        }
        throw SystemError("find the link's thread", errno: ESRCH)
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
        #expect(try Self.next(through.server, seconds: 10).ended, "the client's end reaches the server")
    }

    @Test func aConnectionIdleLongerThanTheNATsTimeoutIsForgottenBothWays() throws {
        let through = try Through("nat-idle=100ms")
        try Posix.sendAll(through.client, Array("a".utf8))
        #expect(try Self.read(through.server, count: 1) == Array("a".utf8))
        usleep(300_000)  // longer than nat-idle: the NAT forgets the connection
        try Posix.sendAll(through.client, Array("b".utf8))  // no reset: the client's socket takes it
        try Posix.sendAll(through.server, Array("c".utf8))
        #expect(try Self.next(through.server, seconds: 1).timedOut, "the client's byte vanished, without an end")
        #expect(try Self.next(through.client, seconds: 1).timedOut, "and the server's")
        shutdown(through.client, Int32(SHUT_WR))
        #expect(try Self.next(through.server, seconds: 1).timedOut, "and so does the client's end")
    }

    /// A client that ends its side while the link's connect to the server still waits (the server's accept queue is
    /// full, so its SYNs go unanswered): the link stops reading the ended side, instead of spinning on its end.
    @Test func anEndBeforeTheServerAnswersTheConnectIsNotReadAgainAndAgain() throws {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Posix.close(server) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(server, $0, length) == 0 && listen(server, 0) == 0 && getsockname(server, $0, &length) == 0
            }
        }
        try #require(listening)
        let upstream = SocketAddress(host: "127.0.0.1", port: UInt16(bigEndian: address.sin_port))!
        // The accept queue filled (never accepted): a further connect waits for an answer that does not come.
        var fillers: [Int32] = []
        defer { fillers.forEach(Posix.close) }
        for _ in 0..<2 { if let filler = try? TCPSocket.startConnecting(to: upstream).relinquish() { fillers.append(filler) } }
        usleep(100_000)
        let link = try LinkEmulator(mix: try LinkMix(parsing: "delay=10ms"), upstream: upstream, seed: 1)
        defer { link.end() }
        let client = try TCPSocket.connect(to: link.entrances[0])
        defer { Posix.close(client) }
        shutdown(client, Int32(SHUT_WR))
        usleep(100_000)
        let before = try Self.linkThreadTicks()
        usleep(300_000)
        let spent = try Self.linkThreadTicks() - before
        #expect(spent <= 10, "the link's thread used \(spent) ticks of 300 ms: it spun on the client's end")
    }

    /// The client ends its side; the server answers and closes while its answer is still inside the link: the
    /// answer and then the end reach the client, and the link's thread waits meanwhile instead of spinning on the
    /// server's socket, shut both ways.
    @Test func anAnswerInsideTheLinkAfterBothEndsArrivesAndTheThreadWaits() throws {
        let through = try Through("delay=400ms")
        try Posix.sendAll(through.client, Array("q".utf8))
        shutdown(through.client, Int32(SHUT_WR))
        #expect(try Self.read(through.server, count: 1) == Array("q".utf8))
        #expect(try Self.next(through.server, seconds: 10).ended)
        try Posix.sendAll(through.server, Array("answer".utf8))
        shutdown(through.server, Int32(SHUT_RDWR))
        usleep(50_000)  // the link read the answer and the end: both are inside it for 400 ms
        let before = try Self.linkThreadTicks()
        usleep(250_000)
        let spent = try Self.linkThreadTicks() - before
        #expect(spent <= 10, "the link's thread used \(spent) ticks of 250 ms: it spun")
        #expect(try Self.read(through.client, count: 6) == Array("answer".utf8))
        #expect(try Self.next(through.client, seconds: 10).ended, "then the server's end")
    }
}
