import BenchCore
import Glibc

/// A client's connection through its emulated link (``ConnectionLink``), inside its own loop: its reads take what the
/// socket received into the downlink and hand out what came out of it; its writes enter the uplink, which its loop's
/// ``LinkScheduler`` lets out to the socket (its queue keeps what the socket did not take, as without a link). The
/// bytes it hands out are stamped with their exit (with kernel stamps: the time a phone's own kernel would have
/// received them); the time a write entered the uplink is the client's send, as a phone's kernel would stamp it.
extension Connection {
    /// True when the connection goes through an emulated link.
    public var isLinked: Bool { link != nil }

    /// Puts the connection (a client's, before its connect ends) behind `link`, woken by `scheduler` (its loop's).
    public func attach(_ link: ConnectionLink, to scheduler: LinkScheduler<T>) {
        self.link = link
        linkScheduler = scheduler
        link.slot = scheduler.register(self)
    }

    /// What epoll watches besides writable (`writable`): the socket's reads, unless io_uring reads it; while its link
    /// paused them, nothing, and once at most: a hang-up or an error, which epoll reports whatever it watches, would
    /// come again and again while the downlink still holds what came before it.
    func interest(writable: Bool) -> EpollEvents {
        guard link?.readingPaused == true else {
            return writable ? Self.readInterest(with: receiver).union(.writable) : Self.readInterest(with: receiver)
        }
        return writable ? .writable : .oneShot
    }

    /// A read through the link: what the socket holds enters the downlink (unless the loop woke only to hand out what
    /// was due); then what is out by now is handed out, stamped with the exit of the last segment it reaches (0
    /// without `stamps`: the caller's clock reads it). The server's end comes once the bytes before it are out.
    func readThroughLink(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps?
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        let link = link!
        // A write out of the link failed (the server is gone): once what the link holds toward the client is out.
        if let writeFailure, link.towardClient.isEmpty, !link.serverEnded { throw writeFailure }
        let now = MonotonicClock.now()
        let timed = link.handOutDue
        // io_uring's completions come whether paused or not (those under way when it paused): each is taken.
        if !timed && (!link.readingPaused || receiver != nil) { try takeFromSocket(into: buffer, stamps: stamps, now: now) }
        guard let exit = link.towardClient.nextExit else {
            guard link.serverEnded && !link.forgotten else { return .wouldBlock }
            if let serverError = link.serverError { throw serverError }  // a reset, behind the bytes before it
            return .processed((0, 0))
        }
        guard exit <= now else {
            wakeTowardClient(at: now)
            return .wouldBlock
        }
        let (count, lastExit) = link.towardClient.take(into: buffer, by: now)
        link.lastActivity = now
        if timed { linkScheduler!.tally.lateness.record(now - exit) }
        if link.readingPaused && !link.serverEnded && link.towardClient.count <= ConnectionLink.mostHeld {
            pauseReading(false, at: now)
        }
        wakeTowardClient(at: now)
        return .processed((count, stamps == nil ? 0 : lastExit))
    }

    /// One read of the socket (with io_uring, the completion being handled) into the downlink: its bytes enter when the
    /// kernel received them (never later than now, nor before reading resumed after a pause; the loop's own stamps
    /// where the run takes none). A NAT that forgot the connection lets nothing through.
    private func takeFromSocket(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps?, now: UInt64
    ) throws(SystemError) {
        let link = link!
        let count: Int, stamp: UInt64
        if let receiver {
            var ended = false
            let result: IOResult<(count: Int, stamp: UInt64)>
            do {
                result = try receiver.take(token: token, serial: receiveSerial, into: buffer, ended: &ended)
            } catch where error.errno == ECANCELED {  // the receive a pause cancelled, over
                (result, ended) = (.wouldBlock, true)
            }
            if ended { link.receiveEnded = true }
            if ended && isOpen && !link.readingPaused { armLinkedReceive() }  // paused: once it resumes
            guard case .processed(let (read, received)) = result else { return }
            (count, stamp) = (read, received)
        } else {
            let result: IOResult<(count: Int, stamp: UInt64)>
            do {
                result = try (stamps ?? linkScheduler!.stamps).receive(descriptor, into: buffer)
            } catch {  // a reset: it reaches the client behind what the link still holds toward it
                link.serverError = error
                link.serverEnded = true
                return pauseReading(true, at: now)
            }
            guard case .processed(let (read, received)) = result else { return }
            (count, stamp) = (read, received)
        }
        noteIfForgotten(at: now)
        guard count > 0 else {
            link.serverEnded = true
            return pauseReading(true, at: now)
        }
        guard !link.forgotten else { return }  // the bytes vanish, without a reset
        let entered = max(stamp > 0 ? min(stamp, now) : now, link.readableSince)
        link.lastActivity = now
        link.enterDown(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: entered)
        if link.towardClient.count > ConnectionLink.mostHeld { pauseReading(true, at: now) }
    }

    /// Wire bytes the client sends, into the uplink at once; out to the socket now when the link lets them out at once
    /// (no delay, no rate) and nothing waits before them. A forgotten connection's bytes vanish.
    func sendIntoLink(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        guard writeFailure == nil else { return false }
        let link = link!
        let now = MonotonicClock.now()
        noteIfForgotten(at: now)
        lastOutcome = .written
        guard !link.forgotten else { return true }
        link.lastActivity = now
        link.enterUp(head, body, at: now)
        if let exit = link.towardServer.nextExit, exit <= now, state != .connecting {
            letOutTowardServer(timed: false)
            if !outbound.isEmpty || link.backlog > 0 { lastOutcome = .queued }
            return writeFailure == nil
        }
        if link.backlog > 0 || !outbound.isEmpty { lastOutcome = .queued }
        if outbound.isEmpty { wakeTowardServer() }
        return true
    }

    /// Writes what came out of the uplink by now after what the socket has not taken yet (counting, when the loop woke
    /// for it (`timed`), how late it went): staged in the loop's io_uring batch where there is one, else sent now; what
    /// the socket does not take waits in the connection's queue, which its writable event drains. A failed write is
    /// kept for the next send or read to throw.
    func letOutTowardServer(timed: Bool) {
        guard isOpen, state != .connecting, writeFailure == nil, let link, !link.forgotten else { return }
        let now = MonotonicClock.now()
        if !outbound.isEmpty {  // the socket's own backlog first, in order
            do throws(SystemError) { try sendQueued() } catch { return writeFailure = error }
        }
        if outbound.isEmpty {
            let exit = link.towardServer.nextExit
            // All of it is taken: staged or sent, what the socket does not take queued (it then watches writable).
            let written = link.towardServer.writeOut(by: now) { bytes in
                writeToSocket(UnsafeRawBufferPointer(start: nil, count: 0), bytes) ? bytes.count : 0
            }
            if written > 0 {
                link.lastActivity = now
                if timed, let exit, exit <= now { linkScheduler!.tally.lateness.record(now - exit) }
            }
        }
        guard writeFailure == nil else { return }
        do { try watchWritable(!outbound.isEmpty) } catch { return writeFailure = error }
        // While the socket has not taken what came out, the rest waits for its writable event, not a wake-up: one due
        // now would come back at once, and the loop would never wait.
        if outbound.isEmpty { wakeTowardServer() }
    }

    /// A closing connection's last words (a WebSocket close, a protocol's goodbye) still inside the uplink go at once,
    /// as far as the socket takes them, rather than vanish with it; it leaves its loop's scheduler. True when its NAT
    /// forgot it: its end vanishes too, so its socket is the scheduler's to keep open until the loop ends
    /// (``LinkScheduler/keep(_:)``), and the server finds out as it would of a phone, by its own means.
    func closeLink() -> Bool {
        let link = link!
        if outbound.isEmpty && writeFailure == nil && !link.forgotten {
            let descriptor = self.descriptor
            _ = link.towardServer.writeOutAll { bytes in
                guard case .processed(let sent)? = try? Posix.sendSome(descriptor, bytes) else { return 0 }
                return sent
            }
        }
        linkScheduler?.unregister(link.slot)
        link.slot = -1
        return link.forgotten
    }

    /// Counts the connection as forgotten in its loop's tally when its NAT forgets it now: what waited for the socket
    /// vanishes with what the link held.
    private func noteIfForgotten(at now: UInt64) {
        guard let forgotten = link!.forgets(at: now) else { return }
        linkScheduler!.tally.forgotten[link!.group].add(at: forgotten)
        outbound.removeFirst(outbound.count)
        do { try watchWritable(false) } catch { writeFailure = error }
    }

    /// Arms the connection's io_uring receive again.
    private func armLinkedReceive() {
        link!.receiveEnded = false
        armReceive()
    }

    /// Sets the wake-up for the next exit toward the client (or its end), unless one is set for it.
    private func wakeTowardClient(at now: UInt64) {
        guard let link, let next = link.nextDown(at: now), link.armedDown != next, let linkScheduler else { return }
        link.armedDown = next
        linkScheduler.wake(at: next, slot: link.slot, towardServer: false)
    }

    /// Sets the wake-up for the next exit toward the server, unless one is set for it.
    private func wakeTowardServer() {
        guard let link, let next = link.towardServer.nextExit, link.armedUp != next, let linkScheduler else { return }
        link.armedUp = next
        linkScheduler.wake(at: next, slot: link.slot, towardServer: true)
    }

    /// Stops or resumes watching the socket's reads (the downlink's window closed or open again, or the server's end).
    /// With io_uring, a pause cancels the connection's receive (what it completed meanwhile is still taken: its serial
    /// stays), and resuming arms a new one once the old one ended.
    private func pauseReading(_ paused: Bool, at now: UInt64) {
        let link = link!
        guard link.readingPaused != paused else { return }
        link.readingPaused = paused
        if !paused { link.readableSince = now }
        if let receiver, !link.serverEnded {
            if paused && !link.receiveEnded {
                receiver.cancel(token: token, serial: receiveSerial)
            } else if !paused && link.receiveEnded {
                armLinkedReceive()
            }
        }
        do { try epoll.modify(descriptor, interest: interest(writable: watchingWritable), token: token) } catch {
            writeFailure = error
        }
    }
}
