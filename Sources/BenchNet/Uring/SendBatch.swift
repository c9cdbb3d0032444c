import BenchCore

/// io_uring for an event loop's writes: a connection's wire bytes wait in the batch's one buffer (not a reserve of
/// each connection's), and the loop hands every waiting connection's bytes to the kernel in one submission
/// (``flush()``) — a broadcast's writes, or the echoes of one pass of completions — instead of one `send` call each.
///
/// The sends never wait for room (`MSG_DONTWAIT`): each completes in the `io_uring_enter` that submits it, with what
/// the socket took, so the buffer's bytes are not touched by the kernel after ``flush()`` returns. What a socket did
/// not take moves to its connection's queue and goes out when epoll says it is writable, as without io_uring. A
/// connection is staged once per batch (later bytes join its own while they are the buffer's last, or the batch goes
/// first), so its bytes go out in order. One thread uses it.
public final class SendBatch<T: Transport> {
    /// The most connections in one submission; a fuller batch is submitted first.
    public static var capacity: Int { 256 }
    /// The bytes one submission holds for frames up to `frameSize`: two with a WebSocket header for each connection
    /// it holds, at least 128 KiB and at most 4 MiB (only what a pass fills is ever touched). Bytes that do not fit
    /// submit the batch first; a write larger than all of it goes out at once instead.
    public static func bufferSize(frameSize: Int) -> Int {
        min(4 << 20, max(128 << 10, capacity * 2 * (frameSize + WebSocketFrameHeader.maximumSize)))
    }

    let ring: IOUring
    /// Connections with bytes to send, in the order they were staged, and where their bytes are in ``buffer``.
    /// Unretained: a connection flushes the batch before it closes (``Connection/close(code:)``), and its owner keeps it
    /// while it is open.
    private var staged: [(connection: Unmanaged<Connection<T>>, offset: Int, count: Int)] = []
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0
    /// Submissions made and sends in them, over the batch's life.
    public private(set) var submissions = 0
    public private(set) var sends = 0

    /// Sets up the ring for frames up to `frameSize` bytes; call on the loop's thread.
    public init(frameSize: Int) throws(IOUringRefusal) {
        ring = try IOUring(entries: UInt32(Self.capacity), completions: UInt32(2 * Self.capacity))
        staged.reserveCapacity(Self.capacity)
        buffer = .allocate(byteCount: Self.bufferSize(frameSize: frameSize), alignment: 8)
    }

    deinit {
        buffer.deallocate()
    }

    /// Sets up an event loop's two rings, on the loop's thread: where its `connections` connections' reads of frames
    /// up to `frameSize` bytes arrive (with the kernel's receive stamps when `clock` is given), and its batch of
    /// writes. The refusal when either cannot be set up: the loop then stays on epoll.
    public static func startLoop(
        epoll: Epoll, connections: Int, frameSize: Int, clock: KernelClockMapping?
    ) -> Result<(UringReceiver, SendBatch<T>), IOUringRefusal> {
        Result { () throws(IOUringRefusal) in
            (try UringReceiver(epoll: epoll, connections: connections, frameSize: frameSize, clock: clock), try SendBatch<T>(frameSize: frameSize))
        }
    }

    /// Stages `connection`'s bytes, `head` then `body`, for the next submission (the batch submits first when it is
    /// full); false when they are larger than the whole buffer, and are to go out at once instead.
    @inline(__always)
    func stage(_ connection: Connection<T>, _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        let count = head.count + body.count
        guard count <= buffer.count else { return false }
        if staged.count == Self.capacity || used + count > buffer.count { flush() }
        copy(head, body)
        staged.append((Unmanaged.passUnretained(connection), used - count, count))
        return true
    }

    /// Adds `head` and `body` to `connection`'s staged bytes when those are the buffer's last and the rest fits;
    /// false otherwise (the caller submits the batch first).
    @inline(__always)
    func extend(_ connection: Connection<T>, _ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        let count = head.count + body.count
        guard let last = staged.last, last.connection.toOpaque() == Unmanaged.passUnretained(connection).toOpaque(),
            used + count <= buffer.count
        else { return false }
        copy(head, body)
        staged[staged.count - 1].count += count
        return true
    }

    @inline(__always)
    private func copy(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) {
        if !head.isEmpty { (buffer.baseAddress! + used).copyMemory(from: head.baseAddress!, byteCount: head.count) }
        used += head.count
        if !body.isEmpty { (buffer.baseAddress! + used).copyMemory(from: body.baseAddress!, byteCount: body.count) }
        used += body.count
    }

    /// Sends every staged connection's bytes in one submission, and settles what each socket took.
    public func flush() {
        guard !staged.isEmpty else { return }
        for index in staged.indices {
            let bytes = stagedBytes(index)
            let queued = staged[index].connection._withUnsafeGuaranteedRef { ring.send($0.descriptor, bytes, userData: UInt64(index)) }
            precondition(queued, "a batch holds at most its ring's submissions")
        }
        submissions += 1
        sends += staged.count
        var settled = 0
        var waits = false
        while settled < staged.count {
            do {
                try ring.enter(wait: waits)
            } catch {
                // Nothing more will complete: what is still staged did not go out.
                for index in staged.indices where staged[index].connection.takeUnretainedValue().isStaged {
                    settle(index, -error.errno)
                }
                break
            }
            while let completion = ring.nextCompletion() {
                settle(Int(completion.userData), completion.result)
                settled += 1
            }
            waits = true  // a send the kernel did not complete inline: its bytes must stay until it does
        }
        staged.removeAll(keepingCapacity: true)
        used = 0
    }

    /// Tells staged connection `index` what its socket took of its bytes (`result`: a count, or a negative errno).
    @inline(__always)
    private func settle(_ index: Int, _ result: Int32) {
        let bytes = stagedBytes(index)
        staged[index].connection._withUnsafeGuaranteedRef { $0.settleBatchedSend(result, of: bytes) }
    }

    /// Staged connection `index`'s bytes in the buffer.
    @inline(__always)
    private func stagedBytes(_ index: Int) -> UnsafeRawBufferPointer {
        let entry = staged[index]
        return UnsafeRawBufferPointer(rebasing: buffer[entry.offset..<entry.offset + entry.count])
    }
}
