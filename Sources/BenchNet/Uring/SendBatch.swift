/// io_uring for an event loop's writes: a connection's wire bytes wait in its queue, and the loop hands every waiting
/// connection's bytes to the kernel in one submission (``flush()``) — a broadcast's writes, or the echoes of one pass
/// of completions — instead of one `send` call each.
///
/// The sends never wait for room (`MSG_DONTWAIT`): each completes in the `io_uring_enter` that submits it, with what
/// the socket took, so the queue's bytes are not touched by the kernel after ``flush()`` returns. What a socket did not
/// take stays queued and goes out when epoll says it is writable, as without io_uring. A connection is staged once per
/// batch (later bytes join its queue), so its bytes go out in order. One thread uses it.
public final class SendBatch<T: Transport> {
    /// The most connections in one submission; a fuller batch is submitted first.
    public static var capacity: Int { 256 }

    let ring: IOUring
    /// Connections with bytes to send, in the order they were staged. Unretained: a connection flushes the batch
    /// before it closes (``Connection/close(code:)``), and its owner keeps it while it is open.
    private var staged: [Unmanaged<Connection<T>>] = []
    /// Submissions made and sends in them, over the batch's life.
    public private(set) var submissions = 0
    public private(set) var sends = 0

    /// Sets up the ring; call on the loop's thread.
    public init() throws(IOUringRefusal) {
        ring = try IOUring(entries: UInt32(Self.capacity), completions: UInt32(2 * Self.capacity))
        staged.reserveCapacity(Self.capacity)
    }

    /// Sets up an event loop's two rings, on the loop's thread: where its `connections` connections' reads of frames
    /// up to `frameSize` bytes arrive (with the kernel's receive stamps when `clock` is given), and its batch of
    /// writes. The refusal when either cannot be set up: the loop then stays on epoll.
    public static func startLoop(
        epoll: Epoll, connections: Int, frameSize: Int, clock: KernelClockMapping?
    ) -> Result<(UringReceiver, SendBatch<T>), IOUringRefusal> {
        Result { () throws(IOUringRefusal) in
            (try UringReceiver(epoll: epoll, connections: connections, frameSize: frameSize, clock: clock), try SendBatch<T>())
        }
    }

    /// True when the next connection staged makes the batch submit first.
    @inline(__always)
    var isFull: Bool { staged.count == Self.capacity }

    /// `connection` has bytes queued for the next submission.
    @inline(__always)
    func stage(_ connection: Connection<T>) {
        staged.append(Unmanaged.passUnretained(connection))
    }

    /// Sends every staged connection's queued bytes in one submission, and settles what each socket took.
    public func flush() {
        guard !staged.isEmpty else { return }
        for index in staged.indices {
            let queued = staged[index]._withUnsafeGuaranteedRef { connection in
                connection.outbound.withWaitingBytes { ring.send(connection.descriptor, $0, userData: UInt64(index)) }
            }
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
                for connection in staged where connection.takeUnretainedValue().isStaged {
                    connection.takeUnretainedValue().settleBatchedSend(-error.errno)
                }
                break
            }
            while let completion = ring.nextCompletion() {
                staged[Int(completion.userData)]._withUnsafeGuaranteedRef { $0.settleBatchedSend(completion.result) }
                settled += 1
            }
            waits = true  // a send the kernel did not complete inline: its bytes must stay until it does
        }
        staged.removeAll(keepingCapacity: true)
    }
}
