import BenchCore
import BenchNet

/// What every thread of simulated clients runs on, whatever their role (the built-in server's ``EchoClients``, a
/// target's ``ClientGroup`` of subscribers, round-trip clients or chat members): one epoll, the io_uring rings
/// where the run uses them, the read buffer, the kernel's receive stamps, the connect window, the start of each
/// connect and the wait. What differs per role (echo a bench frame; speak a server's protocol) is the role's, around
/// it.
@usableFromInline final class ClientLoop<T: Transport> {
    /// Connects under way at once: enough to keep the listen backlog busy, few enough that no SYN is dropped.
    static var connectWindow: Int { RunConfiguration.connectWindow }

    /// Reconnects under way at once (`--reconnect`): as many as a server's listen backlog takes (4096), so that a storm
    /// of returns measures the server's recovery and the backoff's jitter, not this window (128 at a time stretched
    /// 5,000 returns to 0.9 s).
    static var reconnectWindow: Int { 4_096 }

    let epoll: Epoll
    /// The kernel's receive stamps, when the run uses them.
    let stamps: KernelTimestamps?
    /// Where each read lands: the loop's, reused by every connection of the thread.
    let readBuffer: UnsafeMutableRawBufferPointer
    let settings: TransportSettings
    let maximumQueuedBytes: Int
    /// Spin on non-blocking waits and reads instead of sleeping (`--busy-poll`).
    let busyPoll: Bool
    /// With io_uring, set up on the thread (``startUring(connections:)``): where the connections' reads arrive, and
    /// the batch their writes wait in for the pass's one submission.
    private(set) var receiver: UringReceiver?
    private(set) var batch: SendBatch<T>?
    /// The CPUs the thread was seen on, after each wait.
    private(set) var observedCPUs = CPUSet()
    /// Behind a link (`--link`), set up at the thread's first linked connect: the wake-ups for its connections' exits.
    private(set) var links: LinkScheduler<T>?

    /// A loop for connections of `settings`, reading at least `readSize` bytes at a time; `kernelClock` is given when
    /// the run uses kernel stamps.
    init(
        settings: TransportSettings, maximumQueuedBytes: Int, busyPoll: Bool, kernelClock: KernelClockMapping?,
        readSize: Int
    ) throws(SystemError) {
        self.settings = settings
        self.maximumQueuedBytes = maximumQueuedBytes
        self.busyPoll = busyPoll
        stamps = kernelClock.map { KernelTimestamps(clock: $0) }
        epoll = try Epoll()
        readBuffer = .allocate(byteCount: max(64 << 10, readSize), alignment: 8)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Sets up io_uring on this thread (call it there) for `connections` connections: their reads arrive through its
    /// ring and each pass's writes go out in one submission. The refusal when it cannot: the loop stays on epoll.
    func startUring(connections: Int) -> IOUringRefusal? {
        switch SendBatch<T>.startLoop(
            epoll: epoll, connections: connections, frameSize: settings.maximumFrameSize, clock: stamps?.clock)
        {
        case .success(let rings):
            (receiver, batch) = rings
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// Starts a non-blocking connect to `address` (from `source`, nil: the kernel's choice) as the connection of epoll
    /// token `token`, in this loop's epoll and (unless `onRing` is false: a connection that stays on epoll) its rings:
    /// with kernel receive stamps where the run uses them (and transmit stamps with `transmitStamps`), and busy polling
    /// with `--busy-poll`; with `own` settings where this connection's differ from the loop's (a client's own `--header`
    /// values). The connect time counts from before the socket is made, for every role alike.
    func connect(
        to address: SocketAddress, from source: SocketAddress? = nil, token: UInt64, transmitStamps: Bool,
        onRing: Bool = true, settings own: TransportSettings? = nil
    ) throws -> Connection<T> {
        try Connection<T>.connecting(
            to: address, from: source, token: token, epoll: epoll, settings: own ?? settings,
            maximumQueuedBytes: maximumQueuedBytes, stamps: stamps, transmitStamps: transmitStamps, busyPoll: busyPoll,
            receiver: onRing ? receiver : nil, batch: onRing ? batch : nil)
    }

    /// Starts client `client`'s connect where `routes` says, as ``connect(to:from:token:transmitStamps:onRing:settings:)``
    /// does. Behind a link, the connection carries its own (``ConnectionLink``), without transmit stamps (the time a
    /// write enters the link is its send), and its connect ends no earlier than the link's handshake would
    /// (``Connection/connectNotBefore``): the caller's ``ClientTable`` lets it end then.
    func connect(
        client: Int, routes: ClientRoutes, from source: SocketAddress? = nil, token: UInt64, transmitStamps: Bool,
        onRing: Bool = true, settings own: TransportSettings? = nil
    ) throws -> Connection<T> {
        guard let link = routes.link, routes.isLinked(client) else {
            return try connect(
                to: routes.address(of: client), from: source, token: token, transmitStamps: transmitStamps, onRing: onRing,
                settings: own)
        }
        let connection = try connect(
            to: routes.address(of: client), from: source, token: token, transmitStamps: false, onRing: onRing, settings: own)
        if links == nil { links = LinkScheduler(tally: link.newTally()) }
        if let carried = routes.connectionLink(of: client, startedAt: connection.startedAt) {
            connection.attach(carried, to: links!)
            if stamps == nil && !connection.readsFromRing { links!.stampReceives(on: connection.descriptor) }
        }
        if let end = routes.connectEnd(of: client, startedAt: connection.startedAt) { connection.connectNotBefore = end }
        return connection
    }

    /// Waits for events (a spin with `--busy-poll`, otherwise at most `timeoutNanoseconds`, nil: until one comes) and
    /// hands each to `handle`, epoll's or with io_uring the ring's completions alike (a connection's as its readable
    /// event); behind a link, what came out of it by then (toward a client as its connection's readable event); then
    /// the pass's writes go in one submission. False when `handle` ended the loop.
    func wait(
        timeoutNanoseconds: UInt64?, _ handle: (_ token: UInt64, _ events: EpollEvents) -> Bool
    ) throws(SystemError) -> Bool {
        let timeout = busyPoll ? 0 : timeoutNanoseconds
        var proceed = try epoll.dispatchEvents(through: receiver, timeoutNanoseconds: links?.waitLimit(timeout) ?? timeout, handle)
        if proceed, let links { proceed = links.letOutDue(handle) }
        observedCPUs.insert(CPUPlacement.currentCPU())
        batch?.flush()
        return proceed
    }

    /// Submits what the batch holds now (the messages a loop was ordered to send go before the rest of its pass).
    func flushSends() {
        batch?.flush()
    }
}
