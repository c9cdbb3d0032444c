import BenchCore
import Glibc

/// A client's connection through its emulated link (``ConnectionLink``), inside its own loop: its reads take what the
/// socket received into the downlink and hand out what came out of it; its writes enter the uplink, which its loop's
/// ``LinkScheduler`` lets out to the socket. The bytes it hands out are stamped with their exit (with kernel stamps:
/// the time a phone's own kernel would have received them); the time a write entered the uplink is the client's
/// send, as a phone's kernel would stamp it.
extension Connection {
    /// True when the connection goes through an emulated link.
    public var isLinked: Bool { link != nil }

    /// Puts the connection (a client's, before its connect ends) behind `link`, woken by `scheduler` (its loop's).
    public func attach(_ link: ConnectionLink, to scheduler: LinkScheduler<T>) {
        self.link = link
        linkScheduler = scheduler
        self.link!.slot = scheduler.register(self)
    }

    /// What epoll watches of its reads: the socket's, unless io_uring reads it or its link paused them.
    var readsWatched: EpollEvents { link?.readingPaused == true ? [] : Self.readInterest(with: receiver) }

    /// A read through the link: what the socket holds enters the downlink (unless the loop woke only to hand out what
    /// was due); then what is out by now is handed out, stamped with the exit of the last segment it reaches (0
    /// without `stamps`: the caller's clock reads it). The server's end comes once the bytes before it are out.
    func readThroughLink(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps?
    ) throws(SystemError) -> IOResult<(count: Int, stamp: UInt64)> {
        let now = MonotonicClock.now()
        let timed = link!.handOutDue
        link!.handOutDue = false
        // io_uring's completions come whether paused or not (those under way when it paused): each is taken.
        if !timed && (!link!.readingPaused || receiver != nil) { try takeFromSocket(into: buffer, stamps: stamps, now: now) }
        guard let exit = link!.towardClient.nextExit else {
            if link!.serverEnded && !link!.forgotten { return .processed((0, 0)) }
            return .wouldBlock
        }
        guard exit <= now else {
            wakeTowardClient(at: now)
            return .wouldBlock
        }
        let (count, lastExit) = link!.towardClient.take(into: buffer, by: now)
        link!.lastActivity = now
        if timed { linkScheduler!.tally.lateness.record(now - exit) }
        if link!.readingPaused && !link!.serverEnded && link!.towardClient.count <= ConnectionLink.mostHeld {
            pauseReading(false, at: now)
        }
        wakeTowardClient(at: now)
        return .processed((count, stamps == nil ? 0 : lastExit))
    }

    /// One read of the socket (with io_uring, the completion being handled) into the downlink: its bytes enter when the
    /// kernel received them (never later than now, nor before reading resumed after a pause). A NAT that forgot the
    /// connection lets nothing through.
    private func takeFromSocket(
        into buffer: UnsafeMutableRawBufferPointer, stamps: KernelTimestamps?, now: UInt64
    ) throws(SystemError) {
        let count: Int, stamp: UInt64
        if let receiver {
            var ended = false
            let result: IOResult<(count: Int, stamp: UInt64)>
            do {
                result = try receiver.take(token: token, serial: receiveSerial, into: buffer, ended: &ended)
            } catch where error.errno == ECANCELED {  // the receive a pause cancelled, over
                (result, ended) = (.wouldBlock, true)
            }
            if ended { link!.receiveEnded = true }
            if ended && isOpen && !link!.readingPaused { armLinkedReceive() }  // paused: once it resumes
            guard case .processed(let (read, received)) = result else { return }
            (count, stamp) = (read, received)
        } else if let stamps {
            guard case .processed(let (read, received)) = try stamps.receive(descriptor, into: buffer) else { return }
            (count, stamp) = (read, received)
        } else {
            guard case .processed(let read) = try Posix.read(descriptor, into: buffer) else { return }
            (count, stamp) = (read, 0)
        }
        if let forgotten = link!.forgets(at: now) { linkScheduler!.tally.forgotten[link!.group].add(at: forgotten) }
        guard count > 0 else {
            link!.serverEnded = true
            return pauseReading(true, at: now)
        }
        guard !link!.forgotten else { return }  // the bytes vanish, without a reset
        let entered = max(stamp > 0 ? min(stamp, now) : now, link!.readableSince)
        link!.lastActivity = now
        link!.enterDown(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), at: entered)
        if link!.towardClient.count > ConnectionLink.mostHeld { pauseReading(true, at: now) }
    }

    /// Wire bytes the client sends, into the uplink at once (the socket gets them when it lets them out); while the
    /// uplink holds ``ConnectionLink/mostHeld``, into the connection's queue, as a full socket's would go. A forgotten
    /// connection's bytes vanish.
    func sendIntoLink(_ head: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) -> Bool {
        let now = MonotonicClock.now()
        if let forgotten = link!.forgets(at: now) { linkScheduler!.tally.forgotten[link!.group].add(at: forgotten) }
        lastOutcome = .written
        guard !link!.forgotten else { return true }
        guard link!.towardServer.count <= ConnectionLink.mostHeld else {
            outbound.append(head)
            outbound.append(body)
            lastOutcome = .queued
            return true
        }
        link!.lastActivity = now
        link!.enterUp(head, body, at: now)
        // Out already (a link without delay or rate): to the socket now, as the write would have gone without a link.
        if let exit = link!.towardServer.nextExit, exit <= now, !link!.socketBlocked, state != .connecting {
            letOutTowardServer(timed: false)
            return writeFailure == nil
        }
        wakeTowardServer()
        return true
    }

    /// Writes what came out of the uplink by now to the socket (counting, when the loop woke for it (`timed`), how late
    /// it went), then moves what waited in the queue into the uplink while it has room. A failed write is kept for the
    /// next send or read to throw.
    func letOutTowardServer(timed: Bool) {
        guard isOpen, state != .connecting, writeFailure == nil else { return }
        let now = MonotonicClock.now()
        let descriptor = self.descriptor
        let exit = link!.towardServer.nextExit
        var blocked = false
        var failure: SystemError?
        let written = link!.towardServer.writeOut(by: now) { bytes in
            do throws(SystemError) {
                guard case .processed(let sent) = try Posix.sendSome(descriptor, bytes) else {
                    blocked = true
                    return 0
                }
                blocked = sent < bytes.count
                return sent
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { return writeFailure = failure }
        if written > 0 {
            link!.lastActivity = now
            if timed, let exit, exit <= now { linkScheduler!.tally.lateness.record(now - exit) }
        }
        if !outbound.isEmpty && link!.towardServer.count <= ConnectionLink.mostHeld {
            let moved = outbound.withWaitingBytes { bytes in
                link!.enterUp(bytes, UnsafeRawBufferPointer(start: nil, count: 0), at: now)
                return bytes.count
            }
            outbound.removeFirst(moved)
        }
        link!.socketBlocked = blocked
        do { try watchWritable(blocked) } catch { writeFailure = error }  // and not for what waited: it moved
        if !blocked { wakeTowardServer() }
    }

    /// A closing connection's last words (a WebSocket close, a protocol's goodbye) still inside the uplink go at once,
    /// as far as the socket takes them, rather than vanish with it; it leaves its loop's scheduler.
    func closeLink() {
        if link!.socketBlocked == false && writeFailure == nil && !link!.forgotten {
            let descriptor = self.descriptor
            _ = link!.towardServer.writeOutAll { bytes in
                guard case .processed(let sent)? = try? Posix.sendSome(descriptor, bytes) else { return 0 }
                return sent
            }
        }
        linkScheduler?.unregister(link!.slot)
        link!.slot = -1
    }

    /// Arms the connection's io_uring receive again.
    private func armLinkedReceive() {
        link!.receiveEnded = false
        armReceive()
    }

    /// Sets the wake-up for the next exit toward the client (or its end), unless one is set for it.
    private func wakeTowardClient(at now: UInt64) {
        guard let next = link!.nextDown(at: now), link!.armedDown != next, let linkScheduler else { return }
        link!.armedDown = next
        linkScheduler.wake(at: next, slot: link!.slot, towardServer: false)
    }

    /// Sets the wake-up for the next exit toward the server, unless one is set for it.
    private func wakeTowardServer() {
        guard let next = link!.towardServer.nextExit, link!.armedUp != next, let linkScheduler else { return }
        link!.armedUp = next
        linkScheduler.wake(at: next, slot: link!.slot, towardServer: true)
    }

    /// Stops or resumes watching the socket's reads (the downlink's window closed or open again, or the server's end).
    /// With io_uring, a pause cancels the connection's receive (what it completed meanwhile is still taken: its serial
    /// stays), and resuming arms a new one once the old one ended.
    private func pauseReading(_ paused: Bool, at now: UInt64) {
        guard link!.readingPaused != paused else { return }
        link!.readingPaused = paused
        if !paused { link!.readableSince = now }
        if let receiver, !link!.serverEnded {
            if paused && !link!.receiveEnded {
                receiver.cancel(token: token, serial: receiveSerial)
            } else if !paused && link!.receiveEnded {
                armLinkedReceive()
            }
        }
        let interest = watchingWritable ? readsWatched.union(.writable) : readsWatched
        do { try epoll.modify(descriptor, interest: interest, token: token) } catch { writeFailure = error }
    }
}
