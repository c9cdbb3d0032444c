import BenchCore
import BenchNet
import Glibc

/// The emulator's thread: its entrances (a listener per link of a mix), its connections and their links, and a timer
/// for the next segment out.
/// A connection's place is never reused in a run (a reconnect takes a new one): an event or a wake-up of one that
/// closed finds nothing there.
final class LinkLoop: @unchecked Sendable {
    /// One side of a connection through the link: its socket (-1 once closed), and what it did. The loop owns its
    /// sides' sockets as raw numbers, the one place outside BenchNet that does: they sit in an array read for every
    /// segment moved, where an owning object would cost a retain and a release each time; ``close(_:)`` and the
    /// side's own close in `flush` are the only closes, each setting the number to -1 first.
    struct Side {
        var socket: Int32
        /// It sent its end (read as 0 bytes): nothing more is read from it.
        var ended = false
        /// Its end was passed on to the other side, once the bytes before it were out.
        var shut = false
        /// It did not take all that was due: written again once it is writable.
        var blocked = false
        /// What epoll watches on it now.
        var interest: EpollEvents
        /// The exit time a wake-up is set for, of the direction toward it (0: none).
        var armed: UInt64 = 0
        /// When the link last began reading it again after it held too much from it (TCP's window, open again): what
        /// waited in its socket meanwhile enters the link then, not when the kernel received it.
        var readableSince: UInt64 = 0
    }

    /// One client's connection through the link: both sides, and a path and a queue toward each.
    struct Linked {
        var client: Side
        var server: Side
        var serverConnected = false
        var down: LinkPath
        var up: LinkPath
        var toClient = LinkQueue()
        var toServer = LinkQueue()
        /// The last byte either way entered or left the link then (the NAT's idle clock).
        var lastActivity: UInt64
        /// Its entrance's place in ``LinkLoop/entrances``: whose link it is.
        var entrance: UInt8
        /// The NAT forgot the connection: its bytes, and its ends, vanish both ways.
        var forgotten = false

        subscript(serverSide: Bool) -> Side {
            get { serverSide ? server : client }
            set { if serverSide { server = newValue } else { client = newValue } }
        }
    }

    static let timerToken: UInt64 = .max
    static let stopToken: UInt64 = .max - 1
    static let releaseToken: UInt64 = .max - 2
    /// The first entrance's token; the others' follow it.
    static let firstEntranceToken: UInt64 = .max - 3 - UInt64(LinkMix.mostGroups)
    /// Bytes a direction holds before it stops reading its sender (TCP's window, closed).
    static let mostHeld = 4 << 20
    static let segmentSize = 1_448
    /// The client's side and the server's, as ``Linked``'s subscript takes them (a constant: no array per call).
    static let sides = [false, true]

    /// Each entrance: its listening socket, and the link of the connections it accepts.
    let entrances: [(listener: SharedDescriptor, profile: LinkProfile)]
    let upstream: SocketAddress
    let seed: UInt64
    let stop: EventNotifier
    /// The server is done: a connection the NAT forgot is closed both ways from now on, since nothing it sends can arrive
    /// (a phone finds out at its next send, or never; a harness must end).
    let release: EventNotifier
    var released = false
    let epoll: Epoll
    let timer: MonotonicTimer
    let origin = MonotonicClock.now()
    var links: [Linked?] = []
    /// Per entrance: the connections its NAT forgot (read once the thread ended).
    var forgotten: [LinkOutages.Forgotten]
    /// Exit times to wake for, with the direction's token (place × 2, + 1 toward the server).
    var due = MinimumHeap()
    /// No descriptor was left to accept with: the listener rests until a connection closes or until then (monotonic
    /// ns; 0: it listens).
    var acceptPausedUntil: UInt64 = 0
    /// How long the listener rests after an accept found no descriptor.
    static let acceptPause: UInt64 = 20_000_000
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
    /// How late each write out of the link was, behind its first segment's exit (ns): the thread's own delay, its
    /// reads' included (a segment enters the link when the kernel received it, not when the thread came to read it).
    var lateness = LatencyHistogram()
    /// The kernel's receive stamps of the bytes read from either side: when they entered the link.
    let stamps = KernelTimestamps(clock: KernelClockMapping.measure())

    init(
        entrances: [(listener: SharedDescriptor, profile: LinkProfile)], upstream: SocketAddress, seed: UInt64, stop: EventNotifier,
        release: EventNotifier
    ) throws(SystemError) {
        (self.entrances, self.upstream, self.seed, self.stop, self.release) = (entrances, upstream, seed, stop, release)
        forgotten = entrances.map { _ in LinkOutages.Forgotten() }
        do {
            epoll = try Epoll()
            timer = try MonotonicTimer()
            for (index, entrance) in entrances.enumerated() {
                try epoll.add(entrance.listener.rawValue, interest: .readable, token: Self.firstEntranceToken + UInt64(index))
            }
            try epoll.add(timer.descriptor, interest: .readable, token: Self.timerToken)
            try epoll.add(stop.descriptor, interest: .readable, token: Self.stopToken)
            try epoll.add(release.descriptor, interest: .readable, token: Self.releaseToken)
        } catch {
            buffer.deallocate()
            throw error
        }
    }

    func run() {
        defer { shutDown() }
        var armed: UInt64 = 0
        while true {
            if acceptPausedUntil != 0 && MonotonicClock.now() >= acceptPausedUntil { resumeAccepting() }
            var wake = due.minimum
            if acceptPausedUntil != 0 { wake = min(wake ?? .max, acceptPausedUntil) }
            if let wake, wake != armed {
                try? timer.arm(at: wake)
                armed = wake
            }
            guard let count = try? epoll.wait(timeoutMilliseconds: -1) else { continue }
            for index in 0..<count {
                let (token, events) = epoll.event(at: index)
                switch token {
                case Self.stopToken: return
                case Self.releaseToken:
                    release.drain()
                    released = true
                    for place in links.indices where links[place]?.forgotten == true { close(place) }
                case Self.timerToken:
                    timer.drain()
                    armed = 0
                case Self.firstEntranceToken...: acceptAll(entrance: Int(token - Self.firstEntranceToken))
                default: handle(events, place: Int(token >> 1), serverSide: token & 1 == 1)
                }
            }
            // The clock is read per write: a pass that writes thousands is late for the last of them, and counts it.
            while let next = due.minimum, next <= MonotonicClock.now() {
                let (time, token) = due.removeMinimum()
                let (place, towardServer) = (Int(token >> 1), token & 1 == 1)
                guard place < links.count, links[place]?[towardServer].armed == time else { continue }  // stale
                links[place]![towardServer].armed = 0
                flush(place: place, towardServer: towardServer, now: MonotonicClock.now(), timed: true)
            }
        }
    }

    private func handle(_ events: EpollEvents, place: Int, serverSide: Bool) {
        guard place < links.count, let linked = links[place], linked[serverSide].socket >= 0 else { return }
        if serverSide && !linked.serverConnected && events.contains(.writable) {
            guard Posix.connectOutcome(linked.server.socket) == 0 else { return close(place) }
            links[place]!.serverConnected = true
        }
        if events.contains(.writable) {
            links[place]![serverSide].blocked = false
            flush(place: place, towardServer: serverSide, now: MonotonicClock.now())
        }
        // A side that ended is read no more: its hang-up, once the other way is shut, closed its socket in flush.
        guard links[place]?[serverSide].ended == false else { return }
        if !events.isDisjoint(with: [.readable, .hangUp, .error]) { read(place: place, serverSide: serverSide) }
    }

    /// Reads what one side sent into the link toward the other.
    private func read(place: Int, serverSide: Bool) {
        let result: IOResult<(count: Int, stamp: UInt64)>
        do {
            result = try stamps.receive(links[place]![serverSide].socket, into: buffer)
        } catch {
            return close(place)  // a reset: the other side sees its connection end
        }
        guard case .processed(let (count, stamp)) = result else { return }
        let now = MonotonicClock.now()
        // What one read took entered when the kernel received its last part (never later than now): the time the
        // thread took to come to it is the link's own, which the model's delay covers, not adds to. Bytes that waited
        // while the link held too much from this side (its window closed) enter when it opened again.
        let entered = max(stamp > 0 ? min(stamp, now) : now, links[place]![serverSide].readableSince)
        let entrance = Int(links[place]!.entrance)
        if let idle = entrances[entrance].profile.natIdle, now - links[place]!.lastActivity > idle, !links[place]!.forgotten {
            if released { return close(place) }
            links[place]!.forgotten = true
            forgotten[entrance].add(at: links[place]!.lastActivity + idle)
            links[place]!.toClient.removeAll()
            links[place]!.toServer.removeAll()
        }
        guard count > 0 else {
            links[place]![serverSide].ended = true
            if links[place]!.forgotten { return watch(place) }  // a forgotten connection's end vanishes as its bytes do
            return flush(place: place, towardServer: !serverSide, now: now)
        }
        guard !links[place]!.forgotten else { return }  // the bytes vanish, both ways, without a reset
        links[place]!.lastActivity = now
        var offset = 0
        while offset < count {
            let size = min(Self.segmentSize, count - offset)
            let segment = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + size])
            if serverSide {
                let exit = links[place]!.down.exit(entering: entered, bytes: size)
                links[place]!.toClient.append(segment, exit: exit)
            } else {
                let exit = links[place]!.up.exit(entering: entered, bytes: size)
                links[place]!.toServer.append(segment, exit: exit)
            }
            offset += size
        }
        schedule(place: place, towardServer: !serverSide)
        watch(place)
    }

    /// Writes what came out of the link toward one side, passes on the other side's end once its bytes are out, and
    /// sets a wake-up for the next segment. On its wake-up (`timed`), a write counts its lateness behind the model
    /// (``lateness``); one that waited for a side to take it (a reader's backpressure) does not.
    private func flush(place: Int, towardServer: Bool, now: UInt64, timed: Bool = false) {
        guard place < links.count, links[place] != nil else { return }
        defer { if links[place] != nil { watch(place) } }
        guard !towardServer || links[place]!.serverConnected, !links[place]![towardServer].blocked else { return }
        let fd = links[place]![towardServer].socket
        var failed = false
        var blocked = false
        func write(_ bytes: UnsafeRawBufferPointer) -> Int {
            switch try? Posix.sendSome(fd, bytes) {
            case .processed(let sent)?:
                blocked = sent < bytes.count
                return sent
            case .wouldBlock?:
                blocked = true
                return 0
            case nil:
                failed = true
                return 0
            }
        }
        let exit = towardServer ? links[place]!.toServer.nextExit : links[place]!.toClient.nextExit
        // In place: a copy of the connection would copy its queues' storage.
        let written = towardServer
            ? links[place]!.toServer.writeOut(by: now, write) : links[place]!.toClient.writeOut(by: now, write)
        if failed { return close(place) }
        if written > 0 {
            links[place]!.lastActivity = now
            if timed, let exit, exit <= now { lateness.record(now - exit) }
        }
        links[place]![towardServer].blocked = blocked
        if !blocked { schedule(place: place, towardServer: towardServer) }
        let empty = towardServer ? links[place]!.toServer.isEmpty : links[place]!.toClient.isEmpty
        if empty && links[place]![!towardServer].ended && !links[place]![towardServer].shut {
            Posix.shutdownWriting(fd)  // the sender's end, once its bytes are out
            links[place]![towardServer].shut = true
        }
        // A side whose end came and that was given the other's is done with: closed, so that its hang-up is not
        // reported again and again.
        for side in Self.sides where links[place]![side].ended && links[place]![side].shut && links[place]![side].socket >= 0 {
            let socket = links[place]![side].socket
            links[place]![side].socket = -1
            Posix.close(socket)  // closing removes it from epoll
        }
        if links[place]!.client.socket < 0 && links[place]!.server.socket < 0 { close(place) }
    }

    /// Sets a wake-up for the next segment toward one side, unless one is set for it.
    private func schedule(place: Int, towardServer: Bool) {
        let next = towardServer ? links[place]!.toServer.nextExit : links[place]!.toClient.nextExit
        guard let next, links[place]![towardServer].armed != next else { return }
        links[place]![towardServer].armed = next
        due.insert(next, token: UInt64(place) << 1 | (towardServer ? 1 : 0))
    }

    /// Watches each socket for what its connection waits for: a side's bytes while it has not ended and the link
    /// toward the other holds less than ``mostHeld`` (TCP's window); writability while a write waits (or the connect).
    private func watch(_ place: Int) {
        guard links[place] != nil else { return }
        for serverSide in Self.sides where links[place]![serverSide].socket >= 0 {
            let side = links[place]![serverSide]
            let held = serverSide ? links[place]!.toClient.count : links[place]!.toServer.count
            var interest: EpollEvents = side.blocked || (serverSide && !links[place]!.serverConnected) ? .writable : []
            if !side.ended && held <= Self.mostHeld { interest.insert(.readable) }
            guard interest != side.interest else { continue }
            if interest.contains(.readable) && !side.interest.contains(.readable) {
                links[place]![serverSide].readableSince = MonotonicClock.now()
            }
            try? epoll.modify(side.socket, interest: interest, token: UInt64(place) << 1 | (serverSide ? 1 : 0))
            links[place]![serverSide].interest = interest
        }
    }

    func close(_ place: Int) {
        guard place < links.count, let linked = links[place] else { return }
        links[place] = nil
        for fd in [linked.client.socket, linked.server.socket] where fd >= 0 { Posix.close(fd) }
        if acceptPausedUntil != 0 { resumeAccepting() }  // a descriptor is free again
    }

    func shutDown() {
        for place in links.indices { close(place) }
        for entrance in entrances { entrance.listener.close() }
        buffer.deallocate()
    }
}
