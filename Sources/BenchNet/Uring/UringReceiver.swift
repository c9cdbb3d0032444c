import Glibc

/// The io_uring side of an event loop: its connections' reads arrive as completions of multishot receives, with
/// their bytes in provided buffers (no `epoll_wait` and `read` per socket), and everything else the loop watches —
/// timers, wake-ups, the listener, connects under way, full sockets, error queues — stays in its epoll, which
/// this ring polls as one more request.
///
/// The loop waits here (``wait(timeoutNanoseconds:_:)``) and hears two things: the epoll is ready (it runs its
/// usual `epoll_wait` without blocking), or a connection has bytes. Then it handles that connection as if epoll had
/// said readable, and the connection's ``Connection/read(into:stamps:)`` takes the bytes from here
/// (``take(token:serial:into:ended:)``) instead of calling `read`. Each receive is armed with a serial, so a completion of
/// a connection closed meanwhile (its token taken by the next one) is recognised and dropped. One thread uses it.
public final class UringReceiver {
    /// What a wait heard.
    public enum Event {
        /// The epoll has events: `epoll_wait` with a zero timeout.
        case epollReady
        /// The connection with this token has bytes (or its end) to take.
        case readable(token: UInt64)
    }

    /// The ring's size: room for every receive to be armed again in one pass would be ideal but is not needed; a
    /// full submission queue is submitted and refilled.
    static let entries: UInt32 = 256

    let ring: IOUring
    let epoll: Epoll
    /// The kernel stamps' conversion, for rings that receive them.
    let clock: KernelClockMapping?
    private var nextSerial: UInt32 = 1
    private var epollPolled = false
    /// The completion being handed to its connection.
    private var current: (
        token: UInt64, serial: UInt32, result: Int32, more: Bool, bytes: UnsafeMutableRawBufferPointer, stamp: Int64
    )?
    /// Receives that ended (for want of buffers, or because the kernel ends a multishot when it likes) and were
    /// armed again, over the ring's life.
    public private(set) var rearms = 0

    private static let epollUserData: UInt64 = 1 << 63
    private static let cancelUserData: UInt64 = 1 << 62

    /// A ring beside `epoll` with buffers for `connections` connections' reads of frames up to `frameSize` bytes, and
    /// the kernel's receive stamps when `clock` is given. Set it up on the loop's thread. `buffers` (at most 32,768)
    /// overrides how many provided buffers it has (tests make them run out).
    public init(
        epoll: Epoll, connections: Int, frameSize: Int, clock: KernelClockMapping?, buffers: Int? = nil
    ) throws(IOUringRefusal) {
        // A completion fills one buffer whatever it holds: room for a frame and its neighbours' ends, no more (the
        // buffers are most of the engine's memory per connection, and a larger frame comes in pieces).
        let size = UInt32(min(max(256, Self.powerOfTwo(atLeast: frameSize + 128)), 16 << 10))
        // A buffer a connection and half as many again (every connection's completion of one pass, and more for some)
        // up to 4,096 connections, and one for every four beyond (their memory is most of a large run's per
        // connection, and so many connections' reads do not all wait at once); at most 64 MiB and 32,768 buffers. A
        // receive that finds none ends and is armed again, losing nothing.
        let perConnection = min(connections + connections / 2, Self.fullyBuffered * 3 / 2 + max(0, connections - Self.fullyBuffered) / 4)
        let count = UInt32(buffers ?? min(max(perConnection, 256), 32_768, (64 << 20) / Int(size)))
        ring = try IOUring(
            entries: Self.entries, completions: max(4_096, count), bufferCount: count, bufferSize: size,
            stamps: clock != nil)
        self.epoll = epoll
        self.clock = clock
    }

    /// Connections that each have a buffer and a half; one more buffer for every four beyond.
    static var fullyBuffered: Int { 4_096 }

    static func powerOfTwo(atLeast value: Int) -> Int {
        var power = 1
        while power < value { power <<= 1 }
        return power
    }

    /// Arms a multishot receive of `fd`, whose completions are handed on as `token`'s. Returns the serial its
    /// completions carry.
    public func arm(_ fd: Int32, token: UInt64) -> UInt32 {
        let serial = nextSerial
        nextSerial = nextSerial == UInt32(1 << 30) - 1 ? 1 : nextSerial + 1
        prepare { $0.receive(fd, userData: Self.userData(token: token, serial: serial)) }
        return serial
    }

    /// Cancels the receive of `token` armed with `serial` (its connection is closing); its last completions are
    /// dropped.
    public func cancel(token: UInt64, serial: UInt32) {
        prepare { $0.cancel(Self.userData(token: token, serial: serial), userData: Self.cancelUserData) }
        // Submitted at once: the socket stays open in the kernel until its receive is cancelled.
        try? ring.enter(wait: false)
    }

    /// Hands the bytes of the completion being handled to the connection `token`, armed with `serial`: copied into
    /// `buffer`, with the kernel's receive stamp (monotonic ns, 0 for none). `.processed((0, _))` is the end of the
    /// stream; `.wouldBlock` when nothing is there for this connection. `ended` says the receive is over while the
    /// stream is not (its buffers ran out, or the kernel ended it): the connection arms a new one.
    @inline(__always)
    public func take(
        token: UInt64, serial: UInt32, into buffer: UnsafeMutableRawBufferPointer, ended: inout Bool
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        guard let current, current.token == token, current.serial == serial else { return .wouldBlock }
        self.current = nil
        ended = current.result == -ENOBUFS || (current.result > 0 && !current.more)
        if ended { rearms += 1 }
        if current.result == -ENOBUFS { return .wouldBlock }
        if current.result < 0 { throw SystemError("recv (io_uring)", errno: -current.result) }
        let count = min(current.bytes.count, buffer.count)
        if count > 0 { buffer.baseAddress!.copyMemory(from: current.bytes.baseAddress!, byteCount: count) }
        let stamp = current.stamp == 0 ? 0 : clock.map { $0.monotonic(fromRealtime: current.stamp) } ?? 0
        return .processed((count, stamp))
    }

    /// Submits what is prepared, waits for completions (at most `timeoutNanoseconds`; nil: until one comes; 0: not
    /// at all) and hands each on to `handle`.
    public func wait(timeoutNanoseconds: UInt64?, _ handle: (Event) -> Void) throws(SystemError) {
        if !epollPolled {
            prepare { $0.poll(epoll.descriptor, events: UInt32(POLLIN), userData: Self.epollUserData) }
            epollPolled = true
        }
        try ring.enter(wait: timeoutNanoseconds != 0, timeoutNanoseconds: timeoutNanoseconds)
        while let completion = ring.nextCompletion() {
            let userData = completion.userData
            if userData == Self.epollUserData {
                epollPolled = false
                handle(.epollReady)
                continue
            }
            guard userData & Self.cancelUserData == 0 else { continue }
            let token = userData & 0xFFFF_FFFF
            let serial = UInt32(truncatingIfNeeded: userData >> 32)
            let received = ring.received(completion)
            current = (
                token, serial, completion.result, completion.hasMore,
                received?.bytes ?? UnsafeMutableRawBufferPointer(start: nil, count: 0), received?.stamp ?? 0)
            handle(.readable(token: token))
            current = nil
            if let received { ring.recycle(received.buffer) }
        }
    }

    /// Prepares a submission, submitting what waits first when the queue is full.
    private func prepare(_ submission: (IOUring) -> Bool) {
        while !submission(ring) {
            try? ring.enter(wait: false)
        }
    }

    @inline(__always)
    static func userData(token: UInt64, serial: UInt32) -> UInt64 { UInt64(serial) << 32 | (token & 0xFFFF_FFFF) }
}
