import BenchCore
import BenchNet
import Glibc

/// The link between this process's clients and the server, emulated in user space (`--link`): the clients connect to
/// its listener, and for each it connects to the server; every byte either way comes out of the connection's
/// ``LinkPath`` of that direction when the path says. It needs no privileges, and a client's kernel stamps are taken on
/// its own socket, after the link, as behind a real one. One thread, started before the clients and ended after them.
///
/// What the model leaves out: the TCP handshake itself (the kernel completes it at once; every byte after it is
/// delayed), and segments: each read is cut into segments of at most 1448 bytes, as loopback's MSS would not.
final class LinkEmulator: @unchecked Sendable {
    /// Where the clients connect.
    let address: SocketAddress
    private let stopSignal: EventNotifier
    private var thread: NativeThread<Void>?

    /// Listens on loopback, and starts the thread that relays to `upstream` through `profile`; each connection's paths
    /// draw their jitter and losses from `seed`.
    init(profile: LinkProfile, upstream: SocketAddress, seed: UInt64) throws(SystemError) {
        let (listener, bound) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        address = bound
        stopSignal = try EventNotifier()
        let loop: LinkLoop
        do {
            loop = try LinkLoop(profile: profile, upstream: upstream, seed: seed, listener: listener, stop: stopSignal)
        } catch {
            Posix.close(listener)
            throw error
        }
        thread = try NativeThread.spawn(name: "bench-link") { loop.run() }
    }

    /// Stops the thread; every connection through the link is closed.
    func end() {
        stopSignal.notify()
        _ = thread?.join()
        thread = nil
    }
}

/// The emulator's thread: its listener, its connections and their links, and a timer for the next segment out.
private final class LinkLoop: @unchecked Sendable {
    /// One client's connection through the link: its socket, the server's, and a queue and a path each way.
    struct Linked {
        var client: Int32
        var server: Int32
        var serverConnected = false
        var down: LinkPath
        var up: LinkPath
        var toClient = LinkQueue()
        var toServer = LinkQueue()
        /// The last byte either way entered the link then (the NAT's idle clock).
        var lastActivity: UInt64
        /// The NAT forgot the connection: its bytes vanish both ways.
        var forgotten = false
        /// Each side sent its end (its bytes then end once the queue is out).
        var clientEnded = false
        var serverEnded = false
        /// A side's socket did not take all that was due: written again once it is writable.
        var clientBlocked = false
        var serverBlocked = false
        /// What epoll watches on each socket now.
        var clientInterest: EpollEvents = .readable
        var serverInterest: EpollEvents = [.readable, .writable]
    }

    static let listenerToken: UInt64 = .max
    static let timerToken: UInt64 = .max - 1
    static let stopToken: UInt64 = .max - 2
    /// Bytes a direction holds before it stops reading its sender (TCP's window, closed).
    static let mostHeld = 4 << 20
    static let segmentSize = 1_448

    let profile: LinkProfile
    let upstream: SocketAddress
    let seed: UInt64
    let listener: Int32
    let stop: EventNotifier
    let epoll: Epoll
    let timer: MonotonicTimer
    let origin = MonotonicClock.now()
    var links: [Linked?] = []
    /// Exit times to wake for, with the direction's token (place × 2, + 1 toward the server).
    var due = MinimumHeap()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)

    init(profile: LinkProfile, upstream: SocketAddress, seed: UInt64, listener: Int32, stop: EventNotifier) throws(SystemError) {
        (self.profile, self.upstream, self.seed, self.listener, self.stop) = (profile, upstream, seed, listener, stop)
        epoll = try Epoll()
        timer = try MonotonicTimer()
        try epoll.add(listener, interest: .readable, token: Self.listenerToken)
        try epoll.add(timer.descriptor, interest: .readable, token: Self.timerToken)
        try epoll.add(stop.descriptor, interest: .readable, token: Self.stopToken)
    }

    func run() {
        defer { shutDown() }
        var armed: UInt64 = 0
        while true {
            if let next = due.minimum, next != armed {
                try? timer.arm(at: next)
                armed = next
            }
            guard let count = try? epoll.wait(timeoutMilliseconds: -1) else { continue }
            for index in 0..<count {
                let (token, events) = epoll.event(at: index)
                switch token {
                case Self.stopToken: return
                case Self.listenerToken: acceptAll()
                case Self.timerToken:
                    timer.drain()
                    armed = 0
                default: handle(events, place: Int(token >> 1), serverSide: token & 1 == 1)
                }
            }
            let now = MonotonicClock.now()
            while let next = due.minimum, next <= now {
                let token = due.removeMinimum()
                flush(place: Int(token >> 1), towardServer: token & 1 == 1, now: now)
            }
        }
    }

    private func acceptAll() {
        while let accepted = try? TCPSocket.accept(from: listener) {
            let client = accepted.relinquish()
            guard let server = try? TCPSocket.startConnecting(to: upstream).relinquish() else {
                Posix.close(client)
                continue
            }
            let place = links.firstIndex(where: { $0 == nil }) ?? links.count
            let now = MonotonicClock.now()
            let linked = Linked(
                client: client, server: server,
                down: LinkPath(profile.down, of: profile, origin: origin, seed: seed, stream: UInt64(2 * place)),
                up: LinkPath(profile.up, of: profile, origin: origin, seed: seed, stream: UInt64(2 * place + 1)),
                lastActivity: now)
            if place == links.count { links.append(linked) } else { links[place] = linked }
            do {
                try epoll.add(client, interest: .readable, token: UInt64(place) << 1)
                try epoll.add(server, interest: [.readable, .writable], token: UInt64(place) << 1 | 1)
            } catch {
                close(place)
            }
        }
    }

    private func handle(_ events: EpollEvents, place: Int, serverSide: Bool) {
        guard place < links.count, links[place] != nil else { return }
        if serverSide && !links[place]!.serverConnected && events.contains(.writable) {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(links[place]!.server, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else {
                return close(place)
            }
            links[place]!.serverConnected = true
        }
        if events.contains(.writable) {
            if serverSide { links[place]!.serverBlocked = false } else { links[place]!.clientBlocked = false }
            flush(place: place, towardServer: serverSide, now: MonotonicClock.now())
        }
        guard links[place] != nil else { return }
        if !events.isDisjoint(with: [.readable, .hangUp, .error]) { read(place: place, serverSide: serverSide) }
    }

    /// Reads what one side sent into the link toward the other.
    private func read(place: Int, serverSide: Bool) {
        let fd = serverSide ? links[place]!.server : links[place]!.client
        let result: IOResult<Int>
        do {
            result = try Posix.read(fd, into: buffer)
        } catch {
            return close(place)  // a reset: the other side sees its connection end
        }
        guard case .processed(let count) = result else { return }
        let now = MonotonicClock.now()
        guard count > 0 else {
            if serverSide { links[place]!.serverEnded = true } else { links[place]!.clientEnded = true }
            return flush(place: place, towardServer: !serverSide, now: now)
        }
        if let idle = profile.natIdle, now - links[place]!.lastActivity > idle, !links[place]!.forgotten {
            links[place]!.forgotten = true
            links[place]!.toClient.removeAll()
            links[place]!.toServer.removeAll()
        }
        guard !links[place]!.forgotten else { return }  // the bytes vanish, both ways, without a reset
        links[place]!.lastActivity = now
        let wasEmpty = serverSide ? links[place]!.toClient.isEmpty : links[place]!.toServer.isEmpty
        var offset = 0
        while offset < count {
            let size = min(Self.segmentSize, count - offset)
            let segment = UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + size])
            if serverSide {
                let exit = links[place]!.down.exit(entering: now, bytes: size)
                links[place]!.toClient.append(segment, exit: exit)
            } else {
                let exit = links[place]!.up.exit(entering: now, bytes: size)
                links[place]!.toServer.append(segment, exit: exit)
            }
            offset += size
        }
        let next = serverSide ? links[place]!.toClient.nextExit : links[place]!.toServer.nextExit
        if wasEmpty, let next { due.insert(next, token: UInt64(place) << 1 | (serverSide ? 0 : 1)) }
        watch(place)
    }

    /// Writes what came out of the link toward one side; the timer wakes for its next segment.
    private func flush(place: Int, towardServer: Bool, now: UInt64) {
        guard place < links.count, var linked = links[place] else { return }
        guard !towardServer || linked.serverConnected else { return }
        guard !(towardServer ? linked.serverBlocked : linked.clientBlocked) else { return }
        let fd = towardServer ? linked.server : linked.client
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
        if towardServer { _ = linked.toServer.writeOut(by: now, write) } else { _ = linked.toClient.writeOut(by: now, write) }
        if towardServer { linked.serverBlocked = blocked } else { linked.clientBlocked = blocked }
        links[place] = linked
        if failed { return close(place) }
        let queue = towardServer ? linked.toServer : linked.toClient
        if !blocked, let next = queue.nextExit, next > now {
            due.insert(next, token: UInt64(place) << 1 | (towardServer ? 1 : 0))
        }
        let senderEnded = towardServer ? linked.clientEnded : linked.serverEnded
        if queue.isEmpty && senderEnded {
            shutdown(fd, Int32(SHUT_WR))  // the sender's end, once its bytes are out
            if linked.clientEnded && linked.serverEnded && linked.toClient.isEmpty && linked.toServer.isEmpty {
                return close(place)
            }
        }
        watch(place)
    }

    /// Watches each socket for what its connection waits for: a side's bytes while it has not ended and the link
    /// toward the other holds less than ``mostHeld`` (TCP's window); writability while a write waits (or the connect).
    private func watch(_ place: Int) {
        guard var linked = links[place] else { return }
        var client: EpollEvents = linked.clientBlocked ? .writable : []
        if !linked.clientEnded && linked.toServer.count <= Self.mostHeld { client.insert(.readable) }
        var server: EpollEvents = linked.serverBlocked || !linked.serverConnected ? .writable : []
        if !linked.serverEnded && linked.toClient.count <= Self.mostHeld { server.insert(.readable) }
        if client != linked.clientInterest {
            try? epoll.modify(linked.client, interest: client, token: UInt64(place) << 1)
            linked.clientInterest = client
        }
        if server != linked.serverInterest {
            try? epoll.modify(linked.server, interest: server, token: UInt64(place) << 1 | 1)
            linked.serverInterest = server
        }
        links[place] = linked
    }

    private func close(_ place: Int) {
        guard place < links.count, let linked = links[place] else { return }
        Posix.close(linked.client)
        Posix.close(linked.server)
        links[place] = nil
    }

    private func shutDown() {
        for place in links.indices { close(place) }
        Posix.close(listener)
        buffer.deallocate()
    }
}

/// Exit times to wake for, least first, each with a token; entries may be stale (a direction flushed since): the
/// loop flushes a direction whenever an entry of it comes due, and finds nothing or the next to do.
struct MinimumHeap {
    private var entries: [(time: UInt64, token: UInt64)] = []

    var minimum: UInt64? { entries.first?.time }

    mutating func insert(_ time: UInt64, token: UInt64) {
        entries.append((time, token))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].time < entries[parent].time else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the least entry and returns its token (the heap must not be empty).
    mutating func removeMinimum() -> UInt64 {
        let token = entries[0].token
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < entries.count && entries[left].time < entries[least].time { least = left }
            if right < entries.count && entries[right].time < entries[least].time { least = right }
            guard least != parent else { return token }
            entries.swapAt(parent, least)
            parent = least
        }
    }
}
