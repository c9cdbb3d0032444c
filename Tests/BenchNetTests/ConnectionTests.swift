import BenchCore
import Glibc
import Testing

@testable import BenchNet

@Suite(.timeLimit(.minutes(10))) struct ConnectionTests {
    /// A message-sized frame whose padding carries `marker`, so order can be checked on the other side.
    private func frame(_ marker: UInt32, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(into: $0, sequence: marker, client: 0, sentNanoseconds: UInt64(marker))
        }
        return bytes
    }

    @Test func aConnectionThatCannotBeWatchedClosesItsDescriptor() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.client) }
        let epoll = try Epoll()
        try epoll.add(pair.server, interest: .readable, token: 1)  // a second add fails with EEXIST
        #expect(throws: ConnectionError.self) {
            _ = try Connection<TCP>(
                descriptor: Descriptor(owning: pair.server, owner: "a test's socket"), token: 2, epoll: epoll, role: .server,
                settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1024)
        }
        // The socket is closed (once: the caller has nothing to close): the peer reads end of stream. Checking the
        // descriptor number instead would race with the other tests, which may be given that number at once.
        try Posix.setNonBlocking(pair.client, false)
        var byte: UInt8 = 0
        #expect(recv(pair.client, &byte, 1, 0) == 0, "the peer sees the connection closed")
    }

    @Test func aPeerThatDoesNotReadFillsTheQueueThenWholeFramesAreDropped() throws {
        let pair = try LoopbackPair()
        defer { pair.close() }
        let epoll = try Epoll()
        let limit = 256 << 10
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: dup(pair.server), owner: "a test's socket"), token: 7, epoll: epoll, role: .server,
            settings: TransportSettings(maximumFrameSize: 1 << 20), maximumQueuedBytes: limit)
        defer { connection.close() }

        var outcomes: [Connection<TCP>.SendOutcome] = []
        var sequence: UInt32 = 0
        while outcomes.last != .dropped && sequence < 100_000 {
            var bytes = frame(sequence, size: 1024)
            outcomes.append(try bytes.withUnsafeMutableBytes { try connection.send($0) })
            sequence += 1
        }
        #expect(outcomes.first == .written)
        #expect(outcomes.contains(.queued))
        #expect(outcomes.last == .dropped)
        #expect(connection.queuedByteCount <= limit + 1024)

        // The peer now reads everything; the queue drains on writable events, in order, with no gap or tear.
        var decoder = FrameDecoder(maximumFrameSize: 1 << 20)
        var received: [UInt32] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        let expected = Array(0..<(sequence - 1))  // the last one was dropped
        for _ in 0..<10_000 where received.count < expected.count {
            if connection.queuedByteCount > 0 { try connection.writeQueued() }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(pair.client, $0.baseAddress, $0.count) }
            if count > 0 {
                _ = try buffer.withUnsafeMutableBytes { bytes in
                    try decoder.decode(.init(rebasing: bytes[0..<count])) { frame in
                        received.append(frame.sequence)
                        return true
                    }
                }
            } else {
                usleep(1000)
            }
        }
        #expect(received == expected)
        #expect(connection.queuedByteCount == 0)
    }

    @Test func aReadOnAnEmptySocketWouldBlockAndAClosedPeerReadsAsZero() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.server) }
        let epoll = try Epoll()
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: dup(pair.server), owner: "a test's socket"), token: 1, epoll: epoll, role: .server,
            settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1024)
        defer { connection.close() }
        var buffer = [UInt8](repeating: 0, count: 16)
        let empty = try buffer.withUnsafeMutableBytes { try connection.read(into: $0) }
        guard case .wouldBlock = empty else {
            Issue.record("expected wouldBlock, got \(empty)")
            return
        }
        Posix.close(pair.client)
        #expect(try epoll.wait(timeoutMilliseconds: 5_000) == 1)
        #expect(epoll.event(at: 0).token == 1)
        let closed = try buffer.withUnsafeMutableBytes { try connection.read(into: $0) }
        guard case .processed((0, 0)) = closed else {
            Issue.record("expected end of stream, got \(closed)")
            return
        }
    }

    @Test func writingToAPeerThatResetTheConnectionThrows() throws {
        let pair = try LoopbackPair()
        let epoll = try Epoll()
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: dup(pair.server), owner: "a test's socket"), token: 1, epoll: epoll, role: .server,
            settings: TransportSettings(maximumFrameSize: 64), maximumQueuedBytes: 1 << 20)
        defer { connection.close() }
        var linger = linger(l_onoff: 1, l_linger: 0)  // close with RST
        setsockopt(pair.client, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        pair.close()
        var bytes = frame(1, size: 64)
        #expect(throws: SystemError.self) {
            for _ in 0..<100 {
                _ = try bytes.withUnsafeMutableBytes { try connection.send($0) }
                usleep(1000)
            }
        }
    }
}
