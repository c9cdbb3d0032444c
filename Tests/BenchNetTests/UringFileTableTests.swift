import BenchCore
import Foundation
import Glibc
import Testing

@testable import BenchNet

/// A connection's socket sits in the file tables of the rings it reads and writes through (so its requests skip the
/// kernel's descriptor lookup), and leaves them when it closes: the tables must not hold a closed connection open.
/// Read from the kernel's own account of each ring (`/proc/self/fdinfo`).
@Suite(.timeLimit(.minutes(3))) struct UringFileTableTests {
    /// What `/proc/self/fd` names the open descriptor `descriptor` (`socket:[inode]`).
    private func name(of descriptor: Int32) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
    }

    /// The rings of this process whose file table holds the file named `file` at the index `index` (other tests'
    /// rings may be there too; they never hold this file).
    private func rings(holding file: String, at index: Int32) -> Int {
        let entry = "\(index): \(file)"
        var rings = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)"))
                == "anon_inode:[io_uring]",
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(name)", encoding: .utf8)
            else { continue }
            if info.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces) == entry }) {
                rings += 1
            }
        }
        return rings
    }

    @Test(.enabled(if: UringEngineTests.available)) func aConnectionsSocketLeavesItsRingsFileTablesWhenItCloses() throws {
        let epoll = try Epoll()
        let receiver = try UringReceiver(epoll: epoll, connections: 1, frameSize: 64, clock: nil)
        let batch = try SendBatch<TCP>()
        let pair = try LoopbackPair()
        defer { Posix.close(pair.server) }
        let connection = try Connection<TCP>(
            descriptor: pair.client, token: 7, epoll: epoll, role: .client,
            settings: TransportSettings(maximumFrameSize: 256), maximumQueuedBytes: 1 << 20, receiver: receiver,
            batch: batch)
        try connection.start()
        let socketName = try name(of: pair.client)
        #expect(rings(holding: socketName, at: pair.client) == 2, "the receiver's ring and the batch's")

        // Both ways work through the tables: a frame the batch sends, and one the receive takes.
        var frame = [UInt8](repeating: 0, count: 64)
        frame.withUnsafeMutableBytes {
            _ = Frame.encodeMessage(into: $0, sequence: 5, client: 1, sentNanoseconds: 5)
        }
        let sent = frame
        #expect(try frame.withUnsafeMutableBytes { try connection.send($0) } == .written)
        batch.flush()
        try Posix.setNonBlocking(pair.server, false)
        var arrived = [UInt8](repeating: 0, count: 64)
        #expect(recv(pair.server, &arrived, 64, Int32(MSG_WAITALL)) == 64)
        #expect(arrived == sent)
        #expect(send(pair.server, sent, 64, 0) == 64)
        var sequences: [Int] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        let deadline = MonotonicClock.now() + 20_000_000_000
        while sequences.isEmpty && MonotonicClock.now() < deadline {
            try receiver.wait(timeoutNanoseconds: 100_000_000) { event in
                guard case .readable(7) = event,
                    case .processed(let (count, _))? = try? connection.read(into: buffer)
                else { return }
                _ = try? connection.receive(buffer, count: count) { frame in
                    sequences.append(Int(frame.sequence))
                    return true
                }
            }
        }
        #expect(sequences == [5])

        connection.close()
        #expect(rings(holding: socketName, at: pair.client) == 0)
        // The peer sees the end at once: nothing holds the socket open any more.
        var ready = pollfd(fd: pair.server, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 20_000) == 1)
        var byte: UInt8 = 0
        #expect(recv(pair.server, &byte, 1, Int32(MSG_DONTWAIT)) == 0)
    }
}
