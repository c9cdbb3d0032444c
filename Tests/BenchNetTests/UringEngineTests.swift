import BenchCore
import Glibc
import Testing

@testable import BenchNet

/// The io_uring engine's pieces on real loopback sockets: a connection whose reads arrive as completions and whose
/// writes go in batches. Skipped, with a notice, where the kernel refuses io_uring.
@Suite(.timeLimit(.minutes(10))) struct UringEngineTests {
    static let available: Bool = {
        do {
            try IOEngine.probe()
            return true
        } catch {
            print("notice: io_uring is not available here (\(error)); its engine's tests are skipped")
            return false
        }
    }()

    /// Waits on `receiver` until `isDone`, handing readable completions to `connection`'s read and `decoder`; a bound
    /// only a hang reaches.
    @discardableResult
    private func pump(
        _ receiver: UringReceiver, _ connection: Connection<TCP>, _ decoder: inout FrameDecoder,
        until isDone: (_ completions: Int) -> Bool, onFrame: (Frame) -> Void
    ) throws -> Int {
        var completions = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        let deadline = MonotonicClock.now() + 20_000_000_000
        while !isDone(completions) && MonotonicClock.now() < deadline {
            var failure: Error?
            try receiver.wait(timeoutNanoseconds: 100_000_000) { event in
                guard case .readable(let token) = event, token == connection.token else { return }
                do {
                    guard case .processed(let (count, _)) = try connection.read(into: buffer) else { return }
                    completions += 1
                    _ = try connection.receiveBytes(buffer, count: count) { bytes, _ in
                        (try? decoder.decode(bytes) { frame in
                            onFrame(frame)
                            return true
                        }) ?? false
                    }
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
        return completions
    }

    private func frameBytes(_ sequence: UInt32, size: Int = 64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(into: $0, sequence: sequence, client: 9, sentNanoseconds: UInt64(sequence))
        }
        return bytes
    }

    @Test(.enabled(if: available)) func framesArriveWholeAtEverySplitOfTheirBytes() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.client) }
        let epoll = try Epoll()
        let receiver = try UringReceiver(epoll: epoll, connections: 1, frameSize: 256, clock: nil)
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.server, owner: "a test's socket"), token: 5, epoll: epoll, role: .server,
            settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 1 << 20, receiver: receiver)
        defer { connection.close() }
        try Posix.setNonBlocking(pair.client, false)
        let wire = frameBytes(1) + frameBytes(2)
        var sequences: [UInt32] = []
        var decoder = FrameDecoder(maximumFrameSize: 256, pendingCapacity: FrameDecoder.ringCutCapacity(frameSize: 256))
        // Every split point of two frames: each piece is its own segment (TCP_NODELAY), and its own completion.
        for split in 1..<wire.count {
            sequences = []
            _ = Array(wire[..<split]).withUnsafeBytes { write(pair.client, $0.baseAddress, $0.count) }
            try pump(receiver, connection, &decoder, until: { $0 >= 1 }) { sequences.append($0.sequence) }
            _ = Array(wire[split...]).withUnsafeBytes { write(pair.client, $0.baseAddress, $0.count) }
            try pump(receiver, connection, &decoder, until: { _ in sequences.count == 2 }) { sequences.append($0.sequence) }
            #expect(sequences == [1, 2], "split at byte \(split)")
        }
    }

    /// More bytes than the provided buffers hold arrive at once: the multishot receive ends for want of buffers and is
    /// armed again (counted), and every frame arrives, in order; also with a count of buffers that is no power of two
    /// (their ring has room for 4, and its positions wrap past the buffers it holds).
    @Test(.enabled(if: available), arguments: [4, 3])
    func aReceiveThatRunsOutOfBuffersIsArmedAgainAndLosesNothing(buffers: Int) throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.client) }
        let epoll = try Epoll()
        let receiver = try UringReceiver(epoll: epoll, connections: 1, frameSize: 1024, clock: nil, buffers: buffers)
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.server, owner: "a test's socket"), token: 5, epoll: epoll, role: .server,
            settings: TransportSettings(maximumFrameSize: 1024), maximumQueuedBytes: 1 << 20, receiver: receiver)
        defer { connection.close() }
        // 2 MiB of frames through 4 (or 3) buffers of 2 KiB. A thread writes them, blocking.
        let frames = 2_048
        let wire = (0..<UInt32(frames)).flatMap { frameBytes($0, size: 1024) }
        try Posix.setNonBlocking(pair.client, false)
        let client = pair.client
        let writer = try NativeThread<Void>.spawn(name: "test-writer") {
            wire.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = write(client, bytes.baseAddress! + offset, bytes.count - offset)
                    if count <= 0 { break }
                    offset += count
                }
            }
        }
        var sequences: [UInt32] = []
        var decoder = FrameDecoder(maximumFrameSize: 1024, pendingCapacity: FrameDecoder.ringCutCapacity(frameSize: 1024))
        try pump(receiver, connection, &decoder, until: { _ in sequences.count == frames }) { sequences.append($0.sequence) }
        writer.join()
        #expect(sequences == Array(0..<UInt32(frames)))
        #expect(receiver.rearms > 0, "the buffers ran out at least once")
    }

    /// More connections write in one pass than the submission queue holds: the batch submits when full and goes on;
    /// every peer gets its frame once.
    @Test(.enabled(if: available)) func aBatchFullerThanItsRingIsSubmittedInPartsAndEveryPeerGetsItsFrame() throws {
        let epoll = try Epoll()
        let batch = try SendBatch<TCP>(frameSize: 256)
        let count = SendBatch<TCP>.capacity + 44
        var peers: [Int32] = []
        var connections: [Connection<TCP>] = []
        defer {
            for connection in connections { connection.close() }
            for peer in peers { Posix.close(peer) }
        }
        for index in 0..<count {
            let pair = try LoopbackPair()
            peers.append(pair.server)
            let connection = try Connection<TCP>(
                descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: UInt64(10 + index), epoll: epoll, role: .client,
                settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 1 << 20, batch: batch)
            try connection.start()
            connections.append(connection)
        }
        for (index, connection) in connections.enumerated() {
            var bytes = frameBytes(UInt32(index))
            #expect(try bytes.withUnsafeMutableBytes { try connection.send($0) } == .written)
        }
        batch.flush()
        #expect(batch.submissions == 2 && batch.sends == count)
        for (index, peer) in peers.enumerated() {
            try Posix.setNonBlocking(peer, false)
            var buffer = [UInt8](repeating: 0, count: 64)
            #expect(recv(peer, &buffer, 64, Int32(MSG_WAITALL)) == 64)
            #expect(buffer == frameBytes(UInt32(index)), "peer \(index)")
            #expect(connections[index].queuedByteCount == 0)
        }
    }

    /// Where io_uring is refused (the kernel's switch, a container's seccomp profile), `--io uring` falls back to epoll
    /// with a one-line note that says why, and so does auto where it would pick io_uring (from
    /// ``IOEngine/autoUringClients``); epoll, and auto below that count, say nothing.
    @Test func aRefusedSetupFallsBackToEpollWithANote() {
        let refused = { () throws(IOUringRefusal) in throw IOUringRefusal(step: "io_uring_setup", errno: EPERM) }
        let many = IOEngine.autoUringClients, few = IOEngine.autoUringClients - 1
        let (engine, note) = IOEngine.resolve(.uring, clients: few, probe: refused)
        #expect(engine == .epoll)
        #expect(note?.contains("io_uring_setup: Operation not permitted") == true, "\(note ?? "")")
        #expect(note?.contains("seccomp") == true && note?.hasSuffix("the run uses epoll") == true)
        let automatic = IOEngine.resolve(.auto, clients: many, probe: refused)
        #expect(automatic.engine == .epoll && automatic.note?.contains("auto picks it from \(many) clients") == true)
        #expect(IOEngine.resolve(.auto, clients: few, probe: refused) == (.epoll, nil))
        #expect(IOEngine.resolve(.epoll, clients: many, probe: refused) == (.epoll, nil))
    }

    /// Where io_uring works: `uring` takes it at any count, auto from ``IOEngine/autoUringClients`` clients (where it
    /// measured cheaper per message than epoll), epoll never.
    @Test func autoPicksIOUringFromItsClientCount() {
        let many = IOEngine.autoUringClients, few = IOEngine.autoUringClients - 1
        #expect(IOEngine.resolve(.uring, clients: 1, probe: {}) == (.uring, nil))
        #expect(IOEngine.resolve(.auto, clients: many, probe: {}) == (.uring, nil))
        #expect(IOEngine.resolve(.auto, clients: few, probe: {}) == (.epoll, nil))
        #expect(IOEngine.resolve(.epoll, clients: many, probe: {}) == (.epoll, nil))
    }

    /// Writes that only wait for the batch are not a peer that does not read: more of them in one pass than the queue
    /// limit holds submit the batch instead of being dropped.
    @Test(.enabled(if: available)) func writesWaitingForTheBatchAreNotDroppedAtTheQueueLimit() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.server) }
        let epoll = try Epoll()
        let batch = try SendBatch<TCP>(frameSize: 256)
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: 3, epoll: epoll, role: .client,
            settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 128, batch: batch)
        defer { connection.close() }
        try connection.start()
        for sequence in 0..<UInt32(5) {
            var bytes = frameBytes(sequence)
            #expect(try bytes.withUnsafeMutableBytes { try connection.send($0) } == .written, "frame \(sequence)")
        }
        batch.flush()
        try Posix.setNonBlocking(pair.server, false)
        var buffer = [UInt8](repeating: 0, count: 5 * 64)
        #expect(recv(pair.server, &buffer, buffer.count, Int32(MSG_WAITALL)) == buffer.count)
        #expect(buffer == (0..<UInt32(5)).flatMap { frameBytes($0) })
    }

    /// The staged bytes wait in the batch's one buffer: a connection's later bytes join its own while they are the
    /// buffer's last, and otherwise the batch goes first, so that every peer reads its frames in order; no connection
    /// queues anything of its own.
    @Test(.enabled(if: available)) func aConnectionsBytesStayInOrderWhenOthersAreStagedBetween() throws {
        let epoll = try Epoll()
        let batch = try SendBatch<TCP>(frameSize: 256)
        let pairs = [try LoopbackPair(), try LoopbackPair()]
        defer { for pair in pairs { Posix.close(pair.server) } }
        let connections = try pairs.enumerated().map { index, pair in
            try Connection<TCP>(
                descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: UInt64(index + 1), epoll: epoll,
                role: .client, settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 1 << 20, batch: batch)
        }
        defer { for connection in connections { connection.close() } }
        for connection in connections { try connection.start() }
        // 0, 1 and 2 from the first connection, the second's 10 between 0 and 1.
        for (connection, sequence) in [(0, 0), (0, 1), (1, 10), (0, 2), (1, 11)] {
            var bytes = frameBytes(UInt32(sequence))
            #expect(try bytes.withUnsafeMutableBytes { try connections[connection].send($0) } == .written)
            #expect(connections[connection].queuedByteCount == 0, "staged bytes are the batch's")
        }
        batch.flush()
        #expect(batch.submissions == 2, "the first connection's third frame sent the batch first")
        for (pair, sequences) in zip(pairs, [[0, 1, 2], [10, 11]]) {
            #expect(try receive(64 * sequences.count, from: pair.server) == sequences.flatMap { frameBytes(UInt32($0)) })
        }
    }

    /// Fills `socket` as a peer that reads nothing leaves it: sends until it has had no room for 100 ms (its peer's
    /// window closed), then byte by byte until not one more fits. Returns the bytes it took.
    private func fill(_ socket: Int32) -> Int {
        let filler = [UInt8](repeating: 0xAB, count: 4_096)
        var filled = 0
        func sendAll(_ size: Int) {
            while case let sent = filler.withUnsafeBytes({ send(socket, $0.baseAddress, size, Int32(MSG_DONTWAIT)) }), sent > 0 {
                filled += sent
            }
        }
        while true {
            sendAll(filler.count)
            var writable = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            if poll(&writable, 1, 100) == 0 { break }
        }
        sendAll(1)
        return filled
    }

    /// `count` bytes from blocking `socket`, or fewer when 20 s pass (a bound only a hang reaches).
    private func receive(_ count: Int, from socket: Int32) throws -> [UInt8] {
        try Posix.setNonBlocking(socket, false)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: count)
        let got = recv(socket, &buffer, count, Int32(MSG_WAITALL))
        return Array(buffer.prefix(max(0, got)))
    }

    /// Staged bytes count toward `--max-queue` as queued ones do with epoll: past it, the batch goes first and what the
    /// socket did not take is queued; frames beyond the limit then are dropped, not held in the batch's buffer.
    @Test(.enabled(if: available)) func stagedBytesOfAPeerThatDoesNotReadMeetTheQueueLimit() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.server) }
        let epoll = try Epoll()
        let batch = try SendBatch<TCP>(frameSize: 256)
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: 6, epoll: epoll, role: .client,
            settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 256, batch: batch)
        defer { connection.close() }
        try connection.start()
        _ = fill(pair.client)
        var outcomes: [Connection<TCP>.SendOutcome] = []
        for sequence in 0..<UInt32(10) {
            var bytes = frameBytes(sequence)
            outcomes.append(try bytes.withUnsafeMutableBytes { try connection.send($0) })
        }
        #expect(outcomes == Array(repeating: Connection<TCP>.SendOutcome.written, count: 4) + Array(repeating: .dropped, count: 6), "\(outcomes)")
        #expect(connection.queuedByteCount == 256)
    }

    /// A socket that takes none of its staged bytes (its peer reads nothing): they move to the connection's queue,
    /// which goes out once the socket is writable, after what was there, whole.
    @Test(.enabled(if: available)) func stagedBytesTheSocketDidNotTakeAreQueuedAndGoOutLater() throws {
        let pair = try LoopbackPair()
        defer { Posix.close(pair.server) }
        let epoll = try Epoll()
        let batch = try SendBatch<TCP>(frameSize: 256)
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: pair.client, owner: "a test's socket"), token: 5, epoll: epoll, role: .client,
            settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 1 << 20, batch: batch)
        defer { connection.close() }
        try connection.start()
        let filled = fill(pair.client)
        var bytes = frameBytes(7)
        #expect(try bytes.withUnsafeMutableBytes { try connection.send($0) } == .written)
        batch.flush()
        #expect(connection.queuedByteCount == 64, "what the socket did not take waits in the queue")
        #expect(try receive(filled, from: pair.server).count == filled)
        try connection.writeQueued()
        #expect(connection.queuedByteCount == 0)
        #expect(try receive(64, from: pair.server) == frameBytes(7))
    }
}
