import BenchCore
import BenchNet
import BenchProtocols

/// A share of a target run's clients (`ids`), on a thread of its own (`bench-subs`): they connect to the user's server,
/// subscribe, and read what it relays. Each message found by its marker is stamped at the read that brought it and,
/// like everything else that happens to them, goes to the run's measuring thread (``TargetClients``) through a
/// ``ReportWriter``, once per pass of this thread's event loop.
///
/// In fanout they are the subscribers, and the group ends when its end signal becomes readable (the channel's other
/// end closed, or an agent's run ended). In roundtrip each also sends its own messages (``OwnMessages``): the end
/// signal is the channel the measuring thread's orders come on, and the group ends when it closes. Either way it ends
/// when its channel breaks.
public final class ClientGroup<T: Transport> {
    let configuration: RunConfiguration
    let target: TargetURL
    /// Where each member connects (the server, or its chat relay's process), and behind which link.
    let routes: ClientRoutes
    /// The addresses its connections leave from, client `i` from the `i % count`th; empty: the kernel's choice.
    let sources: [SocketAddress]
    @usableFromInline let ids: Range<Int>
    /// The thread's epoll, rings, read buffer, kernel stamps (the order in which this thread reads does not enter the
    /// spread) and connect window: every client role's.
    @usableFromInline let loop: ClientLoop<T>
    /// Where the group's reports go, with its clients' reads and sends: the channel to the measuring thread.
    @usableFromInline let reports: ReportWriter
    /// Where the measuring thread's orders come (a drop of every connection; in roundtrip and chat, each message to
    /// send), and its end the group's.
    let endSignal: Int32
    /// The orders as they arrive: data frames (sequence, client), and ``FrameKind/dropConnections``.
    var orders = FrameDecoder(maximumFrameSize: WireFormat.minimumMessageSize)
    /// Roundtrip and chat: the clients' own messages, sent on order; nil for a fan-out run's subscribers.
    let own: OwnMessages?
    /// Chat through Redis: the connection the members' messages are published on (theirs are subscribed).
    let publisher: GroupPublisher<T>?
    /// This thread's load, reported every second once its subscribers are all subscribed (counted here).
    @usableFromInline var load = BusyShare()
    @usableFromInline var reportsLoad: Bool { true }
    var subscribedCount = 0
    /// When to look, once, for a subscriber still in its handshake (half the setup's budget after the group began):
    /// where it waits is said to the measuring side, so that a setup that times out names the step.
    var handshakeCheckDue: UInt64 = .max
    /// The protocol's keepalive (MQTT's PINGREQ), sent to every subscriber each interval; and when next. With
    /// `--dead-after` on a protocol without one of its own, a ping each `--heartbeat` (``sendKeepAlives()``).
    let keepAliveInterval: UInt64?
    /// The keepalive is the ping `--dead-after` asks for, not the protocol's own.
    let pingsForLiveness: Bool
    var nextKeepAlive: UInt64 = 0
    /// The subscribers' connections (nil: its connect could not start), their connect times and window, by their place
    /// in `ids`; and their protocol sessions. With `--streams-per-connection`, a place is a connection that carries
    /// ``perConnection`` subscribers (``clients(at:)``), each a call of its own.
    @usableFromInline var table: ClientTable<T>
    /// The subscribers one connection carries: `--streams-per-connection` in a fan-out, 1 elsewhere.
    let perConnection: Int
    var sessions: [ProtocolSession] = []
    /// What each place speaks, as its sessions are made (a reconnect makes a new one), and their largest message.
    let speeches: [ServerProtocol]
    let maximumMessageSize: Int
    /// Per place: the subscriber was ready once (a later connect of it is a return).
    var wasEverReady: [Bool]
    /// Per place: its connects started so far (each connection's name counts them, ``ProtocolSession/connectionName(_:connect:)``).
    var connectsStarted: [Int]
    /// Per place: an open-loop fan-out subscriber's return over plain TCP whose protocol is ready without a word from the
    /// server (a tcp:// target's subscription): the kernel completes a connect to a server that hung, so it is back only
    /// once the server sends something on it (``read(_:)``). A round trip's or a chat's client is back at once (its own
    /// message is what the server answers), and so is closed loop's (it sends nothing while every subscriber is away).
    var returnUnheard: [Bool]
    /// Whether a return over plain TCP waits for the server's word (``returnUnheard``).
    let returnsWaitForAWord: Bool
    /// `--dead-after` (0: never): per place, when its connection last heard from the server (or became ready, or its
    /// reconnect try started), and when the group looks next for one silent too long; silence counts once the run's
    /// messages have begun to arrive here (a long setup is no silence).
    let silenceLimit: UInt64
    var lastHeard: [UInt64]
    var nextSilenceCheck: UInt64 = 0
    var heardTheRun = false

    static var endToken: UInt64 { 0 }

    public init(
        _ configuration: RunConfiguration, ids: Range<Int>, target: TargetURL, routes: ClientRoutes,
        transport: TransportSettings, protocol kind: ServerProtocol, writer: ReportWriter, endSignal: Int32,
        kernelClock: KernelClockMapping?
    ) throws(SystemError) {
        self.configuration = configuration
        self.ids = ids
        self.target = target
        self.routes = routes
        self.sources = configuration.sources(toward: routes.server)
        self.loop = try ClientLoop(
            settings: transport, maximumQueuedBytes: configuration.maximumQueuedBytes, busyPoll: configuration.busyPoll,
            kernelClock: kernelClock, readSize: 2 * configuration.payload)
        self.reports = writer
        self.endSignal = endSignal
        perConnection = configuration.subscribersPerConnection
        table = ClientTable(configuration, ids: ids, clientsPerPlace: perConnection)
        let places = table.count
        let maximum = max(64 << 10, 4 * configuration.payload)
        let rooms = configuration.chatRooms.map { plan in
            let rooms = ChatRooms(clients: configuration.clients, plan: plan, seed: configuration.seed)
            return ids.map { Int(rooms.roomOfClient[$0]) }
        }
        let speeches: [ServerProtocol]
        switch configuration.scenario {
        case .fanout: speeches = ids.map { _ in kind.asFanoutSubscriber }
        case .roundtrip: speeches = ids.map { kind.ownTopic(of: $0) }
        case .chat: speeches = rooms!.map { kind.room($0) }
        }
        let identities = configuration.target?.identities
        let each = zip(ids, speeches).map { client, speech in speech.personalized(by: identities, client: client).numbered(client) }
        // A place's connection speaks as its first subscriber, for each of the subscribers it carries.
        let perConnection = perConnection
        self.speeches = (0..<places).map { place in
            each[place * perConnection].carrying(calls: min(perConnection, ids.count - place * perConnection))
        }
        self.maximumMessageSize = maximum
        wasEverReady = Array(repeating: false, count: places)
        connectsStarted = Array(repeating: 0, count: places)
        returnUnheard = Array(repeating: false, count: places)
        let serverAnswersHandshake = target.scheme.transport.usesTLS || target.scheme.transport.isWebSocket
        returnsWaitForAWord = configuration.scenario == .fanout && !configuration.isClosedLoop && !serverAnswersHandshake
        silenceLimit = configuration.silenceLimit
        lastHeard = Array(repeating: 0, count: places)
        sessions = self.speeches.map { speech in
            ProtocolSession(speech, role: .subscriber, maximumMessageSize: maximum)
        }
        own = configuration.scenario == .fanout
            ? nil : OwnMessages(configuration, sessions: sessions, clients: ids, rooms: rooms, stampsTransmits: kernelClock != nil)
        publisher = GroupPublisher<T>.needed(configuration)
            ? GroupPublisher(
                kind.personalized(by: identities, client: ids.lowerBound), maximumMessageSize: maximum,
                stampsTransmits: kernelClock != nil, members: ids.count)
            : nil
        let ownKeepAlive = sessions.first?.heartbeatInterval
        pingsForLiveness = ownKeepAlive == nil && configuration.silenceLimit > 0 && configuration.heartbeat > 0
        keepAliveInterval = ownKeepAlive ?? (pingsForLiveness ? configuration.heartbeat : nil)
        nextKeepAlive = MonotonicClock.now() + (keepAliveInterval ?? 0)
        try loop.epoll.add(endSignal, interest: .readable, token: Self.endToken)
        handshakeCheckDue = MonotonicClock.now() &+ configuration.setupBudget / 2
    }

    /// Connects, subscribes and reads until the channel closes (the engine's loop, ``ClientEngine/runLoop()``); then
    /// closes every connection.
    public func run() {
        defer {
            for place in sessions.indices {
                if let connection = table[place], connection.isOpen { sessions[place].sendClosing(on: connection) }
            }
            table.closeAll()
            publisher?.connection?.close()
        }
        if configuration.ioEngine == .uring { startUring() }
        runLoop()
    }

    /// A connection's events: the end of its connect, its handshakes, then what it receives. A connection whose connect
    /// ended in this event (plain TCP) opens its session before reading: what the server said first (HTTP/2's
    /// SETTINGS) is answered after the protocol's own first words, never before them.
    func handle(_ events: EpollEvents, at place: Int) {
        guard let connection = table[place], connection.isOpen else { return }
        do {
            if own != nil && loop.stamps != nil && events.contains(.error) { drainTransmitStamps(place) }
            guard try connection.advance(on: events) else { return }  // a connect not over: nothing to read yet
            try openIfEstablished(place, connection)
            if !events.isDisjoint(with: [.readable, .hangUp, .error]) { try read(place) }
            try openIfEstablished(place, connection)  // a read that ended its TLS or WebSocket handshake
        } catch {
            let code = (error as? ConnectionError)?.closeCode
                ?? (error is MessageFramingError ? WebSocketCloseCode.messageTooBig : WebSocketCloseCode.normal)
            close(place, reason: "\(error)", code: code)
        }
    }

    /// Once a connection's handshakes are done (its TCP connect, TLS, the WebSocket upgrade): its session opens, saying
    /// its first words; where the protocol asks for no confirmation, the subscriber is ready.
    private func openIfEstablished(_ place: Int, _ connection: Connection<T>) throws {
        guard table.isSettingUp(place) && connection.isEstablished && connection.isOpen else { return }
        _ = table.handshakesDone(place)
        let name = ProtocolSession.connectionName("\(clients(at: place).lowerBound)", connect: connectsStarted[place] - 1)
        try sessions[place].open(on: connection, name: name)
        guard sessions[place].isReady else { return }
        // A word already read on this connection (a greeting in the event that ended the connect) counts.
        if wasEverReady[place] && returnsWaitForAWord && lastHeard[place] <= connection.startedAt {
            returnUnheard[place] = true
        } else {
            reportReady(place, ready: MonotonicClock.now())
        }
    }

    /// Reads once; every broadcast whose marker is found goes to the measuring thread with the read's times.
    func read(_ place: Int) throws {
        guard let connection = table[place] else { return }
        guard case .processed(let (count, kernelNow)) = try connection.read(into: loop.readBuffer, stamps: loop.stamps) else { return }
        let now = MonotonicClock.now()
        guard count > 0 else {
            return close(place, reason: connection.handshakeRefusal.map { "handshake failed: \($0)" } ?? "closed by \(target)")
        }
        lastHeard[place] = now
        if returnUnheard[place] {  // the server spoke on the return: it is back, before what it brought
            returnUnheard[place] = false
            reportReady(place, ready: now)
        }
        let session = sessions[place]
        let wasReady = session.isReady
        var failure: Error?
        _ = try connection.receiveBytes(loop.readBuffer, count: count) { bytes, endsMessage in
            do {
                try session.received(bytes, endsMessage: endsMessage) { action in
                    switch action {
                    case .delivered(let message): self.received(message, at: place, now: now, kernel: kernelNow)
                    case .ready: break
                    case .serverError(let text): self.report(.serverError, place, text)
                    case .note(let text): self.report(.note, place, text)
                    }
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        try session.sendOwed(on: connection)
        if !wasReady && session.isReady && !table.isSettingUp(place) { reportReady(place, ready: now) }
    }

    /// A relayed message: its marker says which broadcast, in roundtrip which of the client's own messages, in chat
    /// which member's message (the measuring thread checks the sequence); a chat sender's own copy, where the server
    /// sends one (NATS, MQTT), is its message's round trip, reported as an echo (elsewhere left alone).
    @inline(__always)
    func received(_ message: UnsafeRawBufferPointer, at place: Int, now: UInt64, kernel: UInt64) {
        guard let marker = Marker.find(in: message) else {
            // What it was, as far as a person needs to tell (a room's subject, a presence): its first bytes.
            return report(
                .note, place,
                "received a message without a bench marker (\(message.count) bytes: \"\(PeerExcerpt.of(message))\")")
        }
        let client = UInt32(clients(at: place).lowerBound + sessions[place].actingCall)
        heardTheRun = true  // silence counts from here (--dead-after)
        if configuration.scenario == .chat && marker.run == configuration.token {
            guard marker.client != client else {
                guard configuration.chatEchoesToSender else { return }
                return reports.received(sequence: marker.sequence, client: client, at: now, kernel: kernel)
            }
            return reports.delivered(sequence: marker.sequence, sender: marker.client, member: client, at: now, kernel: kernel)
        }
        guard marker.run == configuration.token, own == nil || marker.client == client else {
            return report(.note, place, "received a marker of another run or client (client \(marker.client), message \(marker.sequence))")
        }
        reports.received(sequence: marker.sequence, client: client, at: now, kernel: kernel)
    }

    /// Closes a connection with the reason (and on WebSocket, the status `code`). With `--reconnect`, a subscriber that
    /// was ready once tries again (``scheduleReconnect(_:afterUse:)``); a try that fails is not reported, as the
    /// built-in server's clients' are not.
    func close(_ place: Int, reason: String, code: UInt16 = WebSocketCloseCode.normal) {
        let wasReady = sessions[place].isReady && !returnUnheard[place]
        returnUnheard[place] = false
        guard table.close(place, code: code) != nil else { return }
        guard table.reconnects && wasEverReady[place] else { return report(.closed, place, reason) }
        if wasReady { report(.closed, place, reason) }
        scheduleReconnect(place, afterUse: wasReady)
    }
}
