import BenchClients
import BenchCore
import BenchNet
import Glibc
import Synchronization

/// A server shard's end of its channel to the run's process (``ShardFrame``): it says it is ready and hears when
/// sending starts (its server's thread, during setup), streams its settled entries (``forward(_:)``, on a thread of its
/// own) and sends its summary at the end. Writes are whole frames, one at a time.
public final class ShardChannel: ServerStartGate {
    public let descriptor: Int32
    private let writing = Mutex<Void>(())
    private let reading = Mutex<(saidReady: Bool, start: UInt64?, reader: ShardFrameReader)>((false, nil, ShardFrameReader()))

    /// The channel on `descriptor` (inherited as descriptor 3); it stays open for the process's life.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Sends one frame whole.
    public func send(_ kind: ShardFrame.Kind, body: [UInt8] = []) throws(SystemError) {
        let frame = ShardFrame.encode(kind, body: body)
        try writing.withLock { _ throws(SystemError) in try Posix.sendAll(descriptor, frame) }
    }

    /// The server's clients are all here: says so (once), and returns when sending starts once the run's process
    /// said it (nil until then). Throws when the run's process is gone or says what no shard is told.
    public func startTime() throws(SystemError) -> UInt64? {
        let saidReady = reading.withLock { state in
            defer { state.saidReady = true }
            return state.saidReady
        }
        if !saidReady { try send(.ready) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer { buffer.deallocate() }
        let result = try Posix.receiveWithoutWaiting(descriptor, into: buffer)
        return try reading.withLock { state throws(SystemError) -> UInt64? in
            switch result {
            case .wouldBlock: return state.start
            case .processed(0): throw SystemError("recv: the run's process closed the channel", errno: EPIPE)
            case .processed(let count):
                var start: UInt64?
                do {
                    try state.reader.take(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { kind, body in
                        if kind == .start && body.count == 8 { start = UInt64(littleEndian: body.loadUnaligned(as: UInt64.self)) }
                    }
                } catch {
                    throw SystemError("recv: \(error)", errno: EPROTO)
                }
                state.start = state.start ?? start
                return state.start
            }
        }
    }

    /// Whether the run's process closed its end for writing, or is gone (a chat relay process's stop: it is sent
    /// nothing else, so anything read says the same).
    public func isEndedByRunsProcess() -> Bool {
        var byte: UInt8 = 0
        let result = withUnsafeMutableBytes(of: &byte) { try? Posix.receiveWithoutWaiting(descriptor, into: $0) }
        if case .wouldBlock? = result { return false }
        return true
    }

    /// Sends what `queue` hands on until its end (``SettledMessage/Kind/end``), in frames of many entries: the
    /// writer of a shard's run. When a send fails (the run's process is gone), `failed` is called once and the rest is
    /// taken and dropped, so that the run never waits for room, and the failure is thrown at its end.
    public func forward(_ queue: SettledQueue, failed: () -> Void) throws(SystemError) {
        var failure: SystemError?
        let perFrame = 600
        let header = ShardFrame.headerSize
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: header + perFrame * ShardFrame.entrySize, alignment: 8)
        defer { buffer.deallocate() }
        var count = 0
        var ended = false
        func flush() {
            guard count > 0, failure == nil else {
                count = 0
                return
            }
            buffer[0] = ShardFrame.Kind.entries.rawValue
            buffer.storeBytes(of: UInt32(count * ShardFrame.entrySize).littleEndian, toByteOffset: 1, as: UInt32.self)
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<(header + count * ShardFrame.entrySize)])
            do {
                try writing.withLock { _ throws(SystemError) in try Posix.sendAll(descriptor, bytes) }
            } catch {
                failure = error
                failed()
            }
            count = 0
        }
        while !ended {
            guard let entry = queue.pop() else {
                flush()
                queue.waitForEntries(upTo: 100_000_000)
                continue
            }
            ShardFrame.encode(entry, into: buffer, at: header + count * ShardFrame.entrySize)
            count += 1
            ended = entry.kind == .end
            if count == perFrame || ended { flush() }
        }
        if let failure { throw failure }
    }
}
