import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

/// The measuring role for a user's server (`--target`): the run's measuring core on one thread, with the clients on
/// threads, in child processes or in agents (``ClientGroup``s) that report over one channel each.
///
/// - Fanout (`bench fanout --target`): once every subscriber is subscribed (confirmed by the protocol; for ws and tcp
///   servers, once its `--subscribe` text is sent), the ``TargetPublisher`` sends each broadcast by the timetable (or
///   closed loop); t0 is the time before that send. Each subscriber stamps the read that brought a broadcast's
///   marker: delivery = that read − t0, and spread, completion and lost are as for the built-in server.
/// - Roundtrip (`bench roundtrip --target`): each message's turn is this thread's; it orders the client's group to
///   send it (``sendMessage(_:sequence:scheduled:)``), and the group stamps the write and the read that brings the
///   echo back on its own clock: rtt = read − write.
///
/// A message without a marker, or with another run's, is an event, not a measurement. What a channel says is checked
/// as a peer's would be.
final class TargetClients<T: Transport>: MeasuringLoopRole {
    let configuration: RunConfiguration
    let target: TargetURL
    let address: SocketAddress
    let settings: TransportSettings
    let control: RunControl
    /// The event loop: epoll, timers, stop and start.
    let loop: MeasuringLoop
    /// The kernel's transmit stamps of the publisher (t0), when the run uses kernel stamps.
    let stamps: KernelTimestamps?
    /// The measuring core's state: the timetable or the closed loop's turns, and the counts.
    var driver: SendDriver
    let readBuffer: UnsafeMutableRawBufferPointer
    var recording: RunRecording
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    let stream: SettledQueue?
    /// Fanout's publisher; nil in roundtrip, where each client sends its own messages.
    let publisher: TargetPublisher<T>?
    /// The clients' channels: threads', children's and agents' (epoll positions 2, 3, …; the publisher is 0, the
    /// agents' listener 1), each with its decoder and what waits to be written on it.
    var channels: [ClientGroupChannel]
    var channelDecoders: [FrameDecoder]
    var outboxes: [ChannelOutbox]
    /// Roundtrip: the channel that carries each client (-1: none yet), for its orders.
    var channelOfClient: [Int32]
    /// Roundtrip with agents: each message's write as the agent's clock stamped it, so that its echo's times are
    /// put on this clock by the same shift and the rtt stays what the agent measured; chat: each member's message's,
    /// for its transmit stamp.
    var agentWrites: [UInt64] = []
    /// Per client: subscribed (connected and ready), and its connection not closed since.
    var subscriberOpen: [Bool]
    /// When sending was over, and whether what went to the clients away then was dropped with their connections
    /// (``settleAwayOnceSendingIsOver(at:)``).
    var sendingOverAt: UInt64 = 0
    var awaySettledAtEnd = false
    var subscribed = 0
    /// The last note on a subscriber's stuck handshake (its step and last message), for a setup that times out.
    var stuckHandshake: String?
    /// The run is over and its children's and agents' link events are read (``collectLinkEvents()``): nothing else
    /// they send is taken.
    var collectingLinkEvents = false
    /// Each client thread's latest busy share (percent) since its clients were all ready, by its first id: here, in
    /// children and in agents.
    var subscriberThreadLoad: [Int: Double] = [:]
    /// Clients whose connection is still open (counted, so that the loop does not look at each on every pass).
    var openSubscribers = 0
    /// `--reconnect`: per client, its place in the recording's outages while it is away during the run (-1: it is
    /// not); and since when nobody has been connected (0: somebody is).
    var outageOfClient: [Int]
    var emptySince: UInt64 = 0
    /// The last client left before the timetable was done (and none came back since): a fan-out that measured nothing
    /// to its end.
    var everyoneLeftEarly = false
    /// Why the last subscriber to close closed: the run's failure says it when every one did (a server's refusal).
    var lastCloseReason = ""
    /// `--reconnect`: per client, it will not come back (it used its tries, or its group's channel ended); how many.
    var gaveUp: [Bool]
    var gaveUpCount = 0
    /// `bench serve fanout|roundtrip --target`: where agents connect (this role closes it), the ids given to them so
    /// far, and what each is sent after its welcome.
    let listener: SharedDescriptor?
    var agentSubscribers = 0
    let agentSpec: [UInt8]
    /// What the server says it still waits for before the run may send (nil: nothing), when it can tell.
    let serverWait: TargetRunner.ServerWait?

    /// A role whose clients report over `channels` (each non-blocking, with the ids it carries; this role does not close
    /// them) or, with a `listener`, come from agents (`agentSpec`: the client spec they are sent).
    init(
        _ configuration: RunConfiguration, target: TargetURL, address: SocketAddress, transport: TransportSettings,
        protocol kind: ServerProtocol, channels: [ClientGroupChannel], listener: SharedDescriptor?, agentSpec: [UInt8],
        control: RunControl, kernelClock: KernelClockMapping?, stream: SettledQueue?, serverWait: TargetRunner.ServerWait? = nil
    ) throws(SystemError) {
        self.serverWait = serverWait
        self.listener = listener
        self.agentSpec = agentSpec
        self.configuration = configuration
        self.target = target
        self.address = address
        self.settings = transport
        self.control = control
        self.channels = channels
        self.channelDecoders = channels.map { _ in Self.channelDecoder() }
        self.outboxes = channels.map { _ in ChannelOutbox() }
        self.loop = try MeasuringLoop(control: control)
        self.driver = SendDriver(configuration: configuration)
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * configuration.payload), alignment: 8)
        self.stream = stream
        self.recording = RunRecording(
            configuration: configuration, window: stream == nil ? nil : RunRecording.window(for: configuration))
        self.recording.begin(serverAddress: target.description, kernelClock: kernelClock)
        self.stamps = kernelClock.map { KernelTimestamps(clock: $0) }
        self.subscriberOpen = Array(repeating: false, count: configuration.clients)
        self.outageOfClient = Array(repeating: -1, count: configuration.expectsReconnects ? configuration.clients : 0)
        self.gaveUp = Array(repeating: false, count: configuration.reconnect == nil ? 0 : configuration.clients)
        self.channelOfClient = Array(repeating: -1, count: configuration.scenario == .fanout ? 0 : configuration.clients)
        switch configuration.scenario {
        case .fanout:
            publisher = TargetPublisher(  // as row 0 of --clients-file, where there is one
                configuration, protocol: kind.personalized(by: configuration.target?.identities, client: 0).asPublisher,
                stampsTransmits: kernelClock != nil)
        case .roundtrip, .chat:
            publisher = nil
            for (place, channel) in channels.enumerated() { carry(channel.ids, on: place) }
            if listener != nil {  // per message in roundtrip, per broadcast (a member's message) in chat
                let count = configuration.scenario == .chat ? recording.ledger.broadcastStart.count : recording.ledger.written.count
                agentWrites = Array(repeating: 0, count: count)
            }
        }
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// A channel's decoder: the largest frame a client's share sends is a client report.
    static func channelDecoder() -> FrameDecoder {
        FrameDecoder(maximumFrameSize: WireFormat.clientReportMaximumSize)
    }

    /// What the run's clients are called in messages: fanout's subscribe, roundtrip's send and read their echoes.
    var clientNoun: String {
        switch configuration.scenario {
        case .fanout: "subscriber"
        case .roundtrip: "client"
        case .chat: "member"
        }
    }

    /// Roundtrip and chat: clients `ids` are reached through channel `place`.
    func carry(_ ids: Range<Int>, on place: Int) {
        guard configuration.scenario != .fanout else { return }
        for client in ids { channelOfClient[client] = Int32(place) }
    }

    /// Connects, waits for the clients, sends and collects; closes the publisher's connection.
    func run() -> Result<RunRecording, RunError> {
        defer {
            _ = publisher?.close()
            for channel in channels where channel.isAgent { channel.end.close() }
            listener?.close()
        }
        do throws(RunError) {
            do {
                if let listener { try epoll.add(listener.rawValue, interest: .readable, token: MeasuringLoop.token(ofPosition: 1)) }
                for (place, channel) in channels.enumerated() {
                    try epoll.add(channel.descriptor, interest: .readable, token: Self.token(ofChannel: place))
                }
            } catch {
                throw .system(error)
            }
            try connectAll()
            if !isStopping { try measure() }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// The epoll token of channel `place`.
    static func token(ofChannel place: Int) -> UInt64 { MeasuringLoop.token(ofPosition: place + 2) }

    /// Opens the publisher's connection (fanout) and waits until it and every client are ready.
    func connectAll() throws(RunError) {
        try loop.setUp(
            self, timeout: configuration.setupBudget,
            isDone: { subscribed >= configuration.clients && publisher?.isReady != false && serverWait?() == nil },
            openMore: { () throws(RunError) in
                try openPublisher()
                keepPublisherAlive(at: MonotonicClock.now())
            },
            timedOut: {
                let publisherSays = publisher.map { publisher in
                    publisher.isReady ? "; the publisher was"
                        : "; the publisher was not either" + (publisher.session.machine.handshakeState.map { " (\($0))" } ?? "")
                }
                return .setupFailed(
                    "after \(DurationText.format(configuration.setupBudget)), \(subscribed) of \(configuration.clients) "
                        + "\(clientNoun)s were ready at \(target)\(publisherSays ?? "")"
                        + (stuckHandshake.map { " (\($0))" } ?? "")
                        + (serverWait?().map { " (\($0))" } ?? "") + agentsSummary)
            })
    }

    func measure() throws(RunError) {
        try loop.beginSending(self)
        try loop.measure(self, busyPoll: configuration.busyPoll)
    }

    /// The publisher's connection closed for good (fanout; with `--reconnect`, once it gave up), or every client's
    /// (with `--reconnect`, once none came back in time: ``isWaitingForReturns(at:)``).
    func isEveryoneGone(at now: UInt64) -> Bool {
        if let publisher, !publisher.isOpen, !publisher.mayReturn { return true }
        return openSubscribers == 0 && !isWaitingForReturns(at: now)
    }

    func isConnected(_ client: Int) -> Bool { subscriberOpen[client] }

    var connectedClients: Int { openSubscribers }
    var reportedClientThreadPercent: Double? { subscriberThreadLoad.values.max() }

    /// Client `client`'s connection closed at `time`, for `reason`: what it still owed is lost (with `--reconnect`, its
    /// outage begins).
    func subscriberClosed(_ client: Int, reason: String, at time: UInt64) {
        recording.record(ConnectionEvent(side: .clients, client: client, time: time, reason: reason))
        guard subscriberOpen[client] else { return }
        subscriberOpen[client] = false
        lastCloseReason = reason
        openSubscribers -= 1
        if openSubscribers == 0 && isRunning { everyoneLeftEarly = !isTimetableDone(at: time) }
        clientGone(client)
        outageBegan(client, at: time)
    }

    func finish() {
        if publisher?.isOpen == true { drainPublisherStamps() }
        if let publisher, let connection = publisher.connection, connection.isOpen {
            publisher.session.sendClosing(on: connection)  // its protocol's last word, where it has one
        }
        finishMeasuring()
        // Nobody left to measure ended the run early: not a measurement of the whole timetable (a fan-out's
        // subscribers closed once its last broadcast went, waiting for stragglers, took nothing from it).
        let droppedForGood = recording.server.connectionsDroppedAt != 0
            && !recording.outages.contains { $0.closed >= recording.server.connectionsDroppedAt && $0.back != 0 }
        let everyoneLeft = droppedForGood
            ? "every \(clientNoun) was dropped (--drop-connections-at) and none came back"
            : "\(target) closed every connection (the last: \(lastCloseReason))"
        let endedEarly = configuration.scenario != .fanout || everyoneLeftEarly
        let failure = publisher.map { !$0.isOpen && !$0.mayReturn } == true
            ? "the publisher's connection to \(target) closed"
            : openSubscribers == 0 && endedEarly ? everyoneLeft : nil
        recordEnding(stopped: "stopped on request", failure: failure)
        collectLinkEvents()
        recording.finishStream(to: stream)
    }
}
