import BenchCore
import Glibc
import Testing

@testable import BenchNet

/// A client's connection through its emulated link (`--link`), inside its own loop, against a real socket on loopback:
/// every byte either way arrives, in order, unchanged, and never sooner than the link's delay; what reaches the client
/// is stamped with its exit; the server's end comes after the bytes before it, and the loop waits meanwhile; a NAT that
/// forgot an idle connection makes its bytes and its end vanish both ways; a closing client's last words still go.
@Suite(.timeLimit(.minutes(5))) struct ConnectionLinkTests {
    /// A client's connection behind `profile` (its loop: an epoll, a scheduler, the connection) and the server's end
    /// (a plain non-blocking socket), on loopback.
    private final class Through {
        let epoll: Epoll
        let scheduler: LinkScheduler<TCP>
        let connection: Connection<TCP>
        private(set) var server: Int32
        let stamps: KernelTimestamps
        /// With `ring`: io_uring's receive reads the client's socket.
        let receiver: UringReceiver?
        /// Every read the loop handed the client: its bytes, its stamp, and when it was read.
        var received: [(bytes: [UInt8], stamp: UInt64, at: UInt64)] = []
        var ended = false
        /// The read that threw (a reset reached the client), and when.
        var failedAt: UInt64 = 0
        /// The client's readable events handled (the link's own included).
        var readableEvents = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)

        init(_ profile: String, ring: Bool = false) throws {
            let pair = try LoopbackPair()
            server = pair.server
            epoll = try Epoll()
            stamps = KernelTimestamps(clock: KernelClockMapping.measure())
            try stamps.enable(on: pair.client, transmit: false)
            receiver = ring
                ? try UringReceiver(epoll: epoll, connections: 1, frameSize: 64 << 10, clock: stamps.clock) : nil
            scheduler = LinkScheduler<TCP>(tally: LinkTally(groups: 1))
            connection = try Connection<TCP>(
                descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: 1, epoll: epoll, role: .client,
                settings: TransportSettings(maximumFrameSize: 1 << 20), maximumQueuedBytes: 1 << 20, receiver: receiver)
            let mix = try LinkMix(parsing: profile)
            let now = MonotonicClock.now()
            connection.attach(
                ConnectionLink(profile: mix.groups[0].profile!, group: 0, origin: now, seed: 9, stream: 0, now: now),
                to: scheduler)
            try connection.start()
        }

        deinit {
            connection.close()
            if server >= 0 { Posix.close(server) }
            buffer.deallocate()
        }

        /// The server resets the connection (a close with SO_LINGER at 0).
        func resetServer() {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(server, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            Posix.close(server)
            server = -1
        }

        /// Runs the client's loop until `done` holds or `seconds` pass (only a hang takes that long).
        func pump(seconds: Double = 20, until done: () -> Bool) throws {
            let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
            while !done() && MonotonicClock.now() < deadline {
                _ = try epoll.dispatchEvents(through: receiver, timeoutNanoseconds: scheduler.waitLimit(10_000_000)) {
                    _, events in
                    handle(events)
                    return true
                }
                _ = scheduler.letOutDue { _, events in
                    handle(events)
                    return true
                }
            }
        }

        private func handle(_ events: EpollEvents) {
            guard connection.isOpen, !ended else { return }
            _ = try? connection.advance(on: events)
            guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return }
            readableEvents += 1
            let result: IOResult<(count: Int, stamp: UInt64)>
            do {
                result = try connection.read(into: buffer, stamps: stamps)
            } catch {
                failedAt = MonotonicClock.now()
                ended = true
                return
            }
            guard case .processed(let (count, stamp)) = result else { return }
            if count == 0 { ended = true } else { received.append((Array(buffer[0..<count]), stamp, MonotonicClock.now())) }
        }

        /// Everything the client was handed, in order.
        var bytesReceived: [UInt8] { received.flatMap(\.bytes) }

        /// What the server's socket holds now (nil: its end).
        func serverRead() -> [UInt8]? {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let got = chunk.withUnsafeMutableBytes { Glibc.recv(server, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return got == 0 ? nil : Array(chunk[..<max(got, 0)])
        }
    }

    @Test(arguments: [false, true]) func bytesCrossBothWaysWholeInOrderAndNoSoonerThanTheDelay(ring: Bool) throws {
        guard !ring || UringEngineTests.available else { return }
        let through = try Through("delay=30ms,rate=100mbit", ring: ring)
        var upward = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var start = MonotonicClock.now()
        #expect(try upward.withUnsafeMutableBytes { try through.connection.send($0) } == .written)
        var arrived: [UInt8] = []
        var firstArrival: UInt64 = 0
        try through.pump {
            if let bytes = through.serverRead(), !bytes.isEmpty {
                if firstArrival == 0 { firstArrival = MonotonicClock.now() }
                arrived += bytes
            }
            return arrived.count >= upward.count
        }
        #expect(arrived == (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        #expect(firstArrival - start >= 30_000_000, "one way, at least the delay")
        let downward = Array("the server's answer".utf8)
        start = MonotonicClock.now()
        try Posix.sendAll(through.server, downward)
        try through.pump { through.bytesReceived.count >= downward.count }
        #expect(through.bytesReceived == downward)
        let first = try #require(through.received.first)
        #expect(first.at - start >= 30_000_000, "handed out no sooner than the delay")
        #expect(first.stamp >= start + 30_000_000 && first.stamp <= first.at, "stamped with its exit")
        shutdown(through.server, Int32(SHUT_WR))
        try through.pump { through.ended }
        #expect(through.ended, "the server's end reaches the client")
    }

    @Test func anAnswerInsideTheLinkBeforeTheServersEndArrivesFirstAndTheLoopWaits() throws {
        let through = try Through("delay=400ms")
        let start = MonotonicClock.now()
        try Posix.sendAll(through.server, Array("answer".utf8))
        shutdown(through.server, Int32(SHUT_RDWR))
        try through.pump(seconds: 0.25) { false }  // both are inside the link for 400 ms
        #expect(through.received.isEmpty && !through.ended)
        #expect(through.readableEvents <= 4, "\(through.readableEvents) readable events in 250 ms: the loop spun on the end")
        try through.pump { through.ended }
        #expect(through.bytesReceived == Array("answer".utf8), "the answer, then the end")
        #expect(through.ended)
        #expect(try #require(through.received.first).at - start >= 400_000_000)
    }

    @Test func aConnectionIdleLongerThanTheNATsTimeoutIsForgottenBothWays() throws {
        let through = try Through("nat-idle=100ms")
        var a = Array("a".utf8)
        _ = try a.withUnsafeMutableBytes { try through.connection.send($0) }
        var arrived: [UInt8] = []
        try through.pump { arrived += through.serverRead() ?? []; return !arrived.isEmpty }
        #expect(arrived == Array("a".utf8))
        try through.pump(seconds: 0.3) { false }  // longer than nat-idle: the NAT forgets the connection
        var b = Array("b".utf8)
        #expect(try b.withUnsafeMutableBytes { try through.connection.send($0) } == .written, "no reset: it is taken")
        try Posix.sendAll(through.server, Array("c".utf8))
        try through.pump(seconds: 0.5) { false }
        #expect(through.serverRead() == [], "the client's byte vanished")
        #expect(through.received.isEmpty, "and the server's")
        shutdown(through.server, Int32(SHUT_WR))
        try through.pump(seconds: 0.5) { false }
        #expect(!through.ended, "and so does the server's end")
        #expect(through.scheduler.tally.forgotten[0].count == 1)
        through.connection.close()
        try through.pump(seconds: 0.3) { false }
        #expect(through.serverRead() == [], "and the client's: its socket stays open behind the NAT, unheard")
    }

    /// The server sent its last bytes and its end, then reset the connection, while they are still inside the link:
    /// epoll reports the reset's hang-up and error whatever it watches, so the loop would spin on them for the link's
    /// delay; it takes one, then waits, and the bytes and the end arrive in order.
    @Test func aResetBehindTheServersLastBytesDoesNotSpinTheLoop() throws {
        let through = try Through("delay=400ms")
        let start = MonotonicClock.now()
        try Posix.sendAll(through.server, Array("answer".utf8))
        shutdown(through.server, Int32(SHUT_WR))
        try through.pump(seconds: 0.05) { false }  // the answer and the end are inside the link
        through.resetServer()
        let before = through.readableEvents
        try through.pump(seconds: 0.25) { false }
        #expect(through.readableEvents - before <= 3, "\(through.readableEvents - before) events in 250 ms: it spun")
        try through.pump { through.ended }
        #expect(through.bytesReceived == Array("answer".utf8) && through.ended)
        #expect(try #require(through.received.first).at - start >= 400_000_000)
    }

    /// A server that sends faster than the link lets out: the downlink takes 4 MiB, then the socket is read no further
    /// (TCP's window, closed), so the server's own socket fills and its sends block; then every byte arrives, in order.
    /// On epoll (its reads unwatched) and on io_uring (its receive cancelled, what it completed meanwhile taken).
    @Test(arguments: [false, true]) func aFullDownlinkStopsReadingTheServerAndLosesNothing(ring: Bool) throws {
        guard !ring || UringEngineTests.available else { return }
        let through = try Through("delay=1s", ring: ring)
        let total = 32 << 20  // more than the link, the client's receive buffer and the server's send buffer hold
        var sent = 0
        var blocked = false
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        try through.pump(seconds: 0.5) {
            while sent < total {
                for index in chunk.indices { chunk[index] = UInt8(truncatingIfNeeded: (sent + index) &* 31) }
                let put = chunk.withUnsafeBytes {
                    Glibc.send(through.server, $0.baseAddress, min($0.count, total - sent), Int32(MSG_DONTWAIT))
                }
                guard put > 0 else {
                    blocked = true
                    break
                }
                sent += put
            }
            return false
        }
        #expect(blocked, "the server's sends blocked: the link stopped reading at its window")
        #expect(sent < total && through.received.isEmpty)
        try through.pump(seconds: 60) {
            while sent < total {
                for index in chunk.indices { chunk[index] = UInt8(truncatingIfNeeded: (sent + index) &* 31) }
                let put = chunk.withUnsafeBytes {
                    Glibc.send(through.server, $0.baseAddress, min($0.count, total - sent), Int32(MSG_DONTWAIT))
                }
                guard put > 0 else { break }
                sent += put
            }
            return through.received.reduce(0) { $0 + $1.bytes.count } >= total
        }
        let bytes = through.bytesReceived
        #expect(bytes.count == total)
        #expect(bytes.indices.allSatisfy { bytes[$0] == UInt8(truncatingIfNeeded: $0 &* 31) }, "whole and in order")
    }

    /// A reset with no end before it (the server closed with SO_LINGER at 0) reaches the client behind the bytes the
    /// server sent before it, still inside the link: they arrive, then the read fails.
    @Test func aResetReachesTheClientBehindTheBytesBeforeIt() throws {
        let through = try Through("delay=400ms")
        let start = MonotonicClock.now()
        try Posix.sendAll(through.server, Array("answer".utf8))
        try through.pump(seconds: 0.05) { false }  // the answer is inside the link
        through.resetServer()
        try through.pump { through.ended }
        #expect(through.bytesReceived == Array("answer".utf8), "the bytes before the reset arrive")
        #expect(through.failedAt - start >= 400_000_000, "and the reset after them, through the link")
    }

    /// A server that stops reading: what the socket does not take waits in the connection's queue, and the link's
    /// next exits wait for the socket's writable event instead of waking the loop again and again (the loop, spun
    /// inside its wake-ups, never came back to wait); once the server reads, every byte taken arrives, in order.
    @Test func aServerThatStopsReadingHoldsTheUplinkWithoutSpinningTheLoop() throws {
        let through = try Through("delay=10ms")
        var accepted: [UInt8] = []
        for index in 0..<64 {
            var frame = [UInt8](repeating: UInt8(index), count: 256 << 10)
            if try frame.withUnsafeMutableBytes({ try through.connection.send($0) }) != .dropped { accepted.append(UInt8(index)) }
            try through.pump(seconds: 0.02) { false }
        }
        #expect(through.connection.queuedByteCount > 0, "the socket took less than came out of the link")
        try through.pump(seconds: 0.3) { false }  // on the old code this never returned
        var arrived: [UInt8] = []
        let expected = accepted.flatMap { [UInt8](repeating: $0, count: 256 << 10) }
        try through.pump(seconds: 60) {
            arrived += through.serverRead() ?? []
            return arrived.count >= expected.count
        }
        #expect(arrived.count == expected.count && arrived == expected, "every byte taken, in order")
    }

    @Test func aClosingClientsLastWordsStillGo() throws {
        let through = try Through("delay=1s")
        var goodbye = Array("bye".utf8)
        _ = try goodbye.withUnsafeMutableBytes { try through.connection.send($0) }
        through.connection.close()
        var arrived: [UInt8] = []
        for _ in 0..<10_000 where arrived.isEmpty {  // loopback delivers within the close; a hang takes 10 s
            arrived = through.serverRead() ?? []
            if arrived.isEmpty { usleep(1_000) }
        }
        #expect(arrived == Array("bye".utf8), "its last words, not held for the link's second")
    }
}
