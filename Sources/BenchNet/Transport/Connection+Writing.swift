import BenchCore
import CBenchLinux
import Glibc

/// Writing: wire bytes go out in one call when nothing waits, otherwise into the bounded queue, which epoll's
/// writable events drain; a client's connect ends here too (its socket turns writable).
extension Connection {
    /// Writes what the queue holds, as far as the socket takes it; call on ``EpollEvents/writable``. While a client's
    /// connect is under way, this is where it ends: the socket's error is checked and the handshakes start.
    public func writeQueued() throws(ConnectionError) {
        if state == .connecting {
            guard connectNotBefore <= MonotonicClock.now() else { return try holdConnect() }
            try finishConnecting()
            if link != nil { letOutTowardServer(timed: false) }  // what it wrote meanwhile, if out by now
            return try check()
        }
        if link != nil {  // the socket took less than came out of the link
            letOutTowardServer(timed: false)
            return try check()
        }
        do {
            try sendQueued()
            if outbound.isEmpty { try watchWritable(false) }
        } catch {
            throw .system(error)
        }
    }

    /// Sends what the queue holds, as far as the socket takes it.
    func sendQueued() throws(SystemError) {
        let descriptor = self.descriptor
        let result = outbound.withWaitingBytes { bytes in
            Result { () throws(SystemError) in
                try Posix.nonBlockingCall("send") {
                    Glibc.send(descriptor, bytes.baseAddress, bytes.count, CBenchMSG_NOSIGNAL)
                }
            }
        }
        if case .processed(let count) = try result.get() { outbound.removeFirst(count) }
    }

    /// Bytes of the framing layer's own (handshake, pong, close), sent through the stream layer. They are not sent
    /// while the queue is full: a peer that floods pings without reading cannot grow it past its limit (RFC 6455
    /// lets a pong answer only the latest ping).
    func writeLayerBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard waiting == 0 || waiting + bytes.count <= maximumQueuedBytes else { return true }
        return stream.send(head: UnsafeRawBufferPointer(start: nil, count: 0), body: bytes, write: writeWire)
    }

    /// Why a message of `count` bytes was not taken though the queue had room: its framing layer's word (an HTTP/2
    /// window closed, a message larger than a frame); nil for none.
    public func refusal(of count: Int) -> String? { framing.refusal(of: count) }

    /// The most a queue may hold, the transport's own bytes included: twice the messages' limit and 64 KiB.
    static func hardLimit(_ maximumQueuedBytes: Int) -> Int { 2 * maximumQueuedBytes + (64 << 10) }

    /// Bytes a framing layer owes the peer (``FramingLayer/owesItsReplies``): queued up to the hard cap, as a protocol's
    /// owed bytes are; false beyond it (the peer does not read), which fails the connection.
    func writeOwedLayerBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard waiting + bytes.count <= Self.hardLimit(maximumQueuedBytes) else { return false }
        return stream.send(head: UnsafeRawBufferPointer(start: nil, count: 0), body: bytes, write: writeWire)
    }

    /// Bytes of the framing layer's own, by what they are to the peer (owed, or left out while the queue is full).
    @inline(__always)
    func writeLayer(_ bytes: UnsafeRawBufferPointer) -> Bool {
        T.Framing.owesItsReplies ? writeOwedLayerBytes(bytes) : writeLayerBytes(bytes)
    }

    /// Writes wire bytes, `head` then `body`, in one call, queuing what the socket does not take. The queue limit is
    /// not checked here: ``send(_:stamped:)`` did, for whole frames.
    @inline(__always)
    func writeWire(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        guard writeFailure == nil else { return false }
        bytesTaken += UInt64(head.count + body.count)
        return link == nil ? writeToSocket(head, body) : sendIntoLink(head, body)
    }

    /// Writes wire bytes to the socket, as ``writeWire(_:_:)`` does without a link (and its link's bytes once they came
    /// out of it): staged for io_uring's batch, or sent now, what the socket does not take queued.
    @inline(__always)
    func writeToSocket(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        let total = head.count + body.count
        // Bytes join this connection's in the batch while those are the batch's last; otherwise the batch goes first
        // (and what the socket did not take of it is queued), as does a write that asks for a transmit stamp.
        if isStaged, let batch {
            if !stampNextWrite && batch.extend(self, head, body) {
                stagedByteCount += total
                lastOutcome = .written
                return true
            }
            batch.flush()
            guard writeFailure == nil else { return false }
        }
        guard outbound.isEmpty && state != .connecting else {
            // Frames were checked against the limit; the transport's own bytes (TLS records it must answer with)
            // were not: a peer that makes it answer without ever reading is cut off at twice the limit.
            guard outbound.count + total <= Self.hardLimit(maximumQueuedBytes) else {
                writeFailure = SystemError("send (the peer reads nothing; the queue is full)", errno: ENOBUFS)
                return false
            }
            outbound.append(head)
            outbound.append(body)
            lastOutcome = .queued
            return true
        }
        let stamped = stampNextWrite
        // io_uring: staged for the loop's next submission, with its other writes (a write larger than the batch holds
        // goes at once, below).
        if let batch, !stamped, batch.stage(self, head, body) {
            (isStaged, stagedByteCount) = (true, total)
            lastOutcome = .written
            return true
        }
        let descriptor = self.descriptor
        let result: IOResult<Int>
        do {
            result = try Posix.nonBlockingCall("send") {
                head.isEmpty && !stamped
                    ? Glibc.send(descriptor, body.baseAddress, body.count, CBenchMSG_NOSIGNAL)
                    : CBench_sendPair(
                        descriptor, head.baseAddress, UInt(head.count), body.baseAddress, UInt(body.count),
                        stamped ? 1 : 0)
            }
        } catch {
            writeFailure = error
            return false
        }
        var written = 0
        if case .processed(let count) = result {
            if count == total {
                lastOutcome = .written
                return true
            }
            written = count
        }
        if written < head.count {
            outbound.append(UnsafeRawBufferPointer(rebasing: head[written...]))
            outbound.append(body)
        } else {
            outbound.append(UnsafeRawBufferPointer(rebasing: body[(written - head.count)...]))
        }
        lastOutcome = .queued
        do {
            try watchWritable(true)
        } catch {
            writeFailure = error
            return false
        }
        return true
    }

    /// A client loop's writable, error or hang-up event of this connection, before it reads: the queue drained, or
    /// the connect ended. A connect held for its link's handshake (``connectNotBefore``) watches nothing meanwhile
    /// (what the server sent first waits in the socket); an error or a hang-up ends it at once (it failed: the socket's
    /// error, or the end read next says why). False while the connect is not over: nothing is read before it.
    public func advance(on events: EpollEvents) throws(ConnectionError) -> Bool {
        if state == .connecting && !events.isDisjoint(with: [.hangUp, .error]) {
            connectNotBefore = 0
            watchingWritable = true  // whatever it watched (nothing, if held): its connect's end sets its reads' interest
            try finishConnecting()
        } else if events.contains(.writable) {
            try writeQueued()
        }
        return state != .connecting
    }

    /// Sets a connect whose socket is connected before its link's handshake would be aside: its epoll watches nothing
    /// (not even what the server sent first) until ``letConnectEnd()``.
    private func holdConnect() throws(ConnectionError) {
        do {
            try epoll.modify(descriptor, interest: [], token: token)
        } catch {
            throw .system(error)
        }
        watchingWritable = false
    }

    /// A client's connect may end once ``connectNotBefore`` came: it watches for it again, and the next wait finds the
    /// socket connected (or, should the kernel still be connecting, when it is).
    public func letConnectEnd() throws(ConnectionError) {
        guard isOpen, state == .connecting else { return }
        connectNotBefore = 0
        watchingWritable = false  // held, it watched nothing: what it reads comes back with the writable
        do { try watchWritable(true) } catch { throw .system(error) }
    }

    func finishConnecting() throws(ConnectionError) {
        let error = Posix.connectOutcome(descriptor)
        guard error == 0 else { throw .system(SystemError("connect", errno: error)) }
        connectedAt = MonotonicClock.now()
        state = .handshaking
        armReceive()
        do {
            if outbound.isEmpty { try watchWritable(false) }
        } catch {
            throw .system(error)
        }
        try start()
    }

    func watchWritable(_ watch: Bool) throws(SystemError) {
        guard watch != watchingWritable else { return }
        watchingWritable = watch
        try epoll.modify(descriptor, interest: interest(writable: watch), token: token)
    }

    /// Sends the transport's own heartbeat (a WebSocket ping). False when it has none: bench framing sends heartbeat
    /// frames instead.
    public func sendPing() throws(SystemError) -> Bool {
        guard isOpen else { throw SystemError("send (the connection is closed)", errno: ENOTCONN) }
        guard !isPlain else { return false }
        let size = framing.ping(into: scratch)
        guard size > 0 else { return false }
        _ = writeLayer(UnsafeRawBufferPointer(rebasing: scratch[0..<size]))
        if let writeFailure { throw writeFailure }
        return true
    }
}
