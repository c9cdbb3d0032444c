import BenchCore
import BenchNet

/// The measuring role for a user's publish/subscribe server (`bench fanout --target`): one publisher connection
/// and the run's measuring core, on one thread, with `clients` subscribers on threads of their own
/// (``SubscriberGroup``, `--client-threads` of them) that report what they receive over one channel each.
///
/// Once every subscriber is subscribed (confirmed by Redis and NATS; for ws and tcp servers, once its `--subscribe`
/// text is sent), the publisher sends each broadcast by the timetable (or closed loop); t0 is the time before that
/// send. Each subscriber stamps the read that brought a broadcast's marker: delivery = that read − t0, and spread,
/// completion and lost are as for the built-in server. A relayed message without a marker, or with another run's, is
/// an event, not a measurement. What a channel says is checked as a peer's would be.
final class TargetSubscribers<T: Transport>: TargetLoopRole, MeasuringRole {
    let configuration: RunConfiguration
    let target: TargetURL
    let address: SocketAddress
    let settings: TransportSettings
    let control: RunControl
    /// The event loop: epoll, timers, stop and start.
    let loop: TargetLoop
    var epoll: Epoll { loop.epoll }
    var sendTimer: MonotonicTimer { loop.sendTimer }
    var isStopping: Bool { loop.stopping }
    var isRunning: Bool { loop.running }
    /// The kernel's transmit stamps of the publisher (t0), when the run uses kernel stamps.
    let stamps: KernelTimestamps?
    /// With kernel stamps: the broadcasts published that wait for their transmit stamp.
    var publisherStamps: TransmitStampQueue?
    /// The measuring core's state: the timetable or the closed loop's turns, and the counts.
    var driver: SendDriver
    let readBuffer: UnsafeMutableRawBufferPointer
    var recording: RunRecording
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    let stream: SettledQueue?
    /// The publisher's connection, once opened, and its protocol session.
    var publisher: Connection<T>?
    let publisherSession: PubSubSession
    var publisherEstablished = false
    /// The subscribers' channels: threads', children's and agents' (epoll positions 2, 3, …; the publisher is 0, the
    /// agents' listener 1).
    var channels: [SubscriberChannel]
    /// Each channel's decoder (apart from `channels`, which the frames it decodes are checked against).
    var channelDecoders: [FrameDecoder]
    /// Per subscriber: subscribed, and its connection not closed since.
    var subscriberOpen: [Bool]
    var subscribed = 0
    /// Each subscribers' thread's latest busy share (percent) since its subscribers were all subscribed, by its first
    /// id: here, in children and in agents.
    var subscriberThreadLoad: [Int: Double] = [:]
    /// Subscribers whose connection is still open (counted, so that the loop does not look at each on every pass).
    var openSubscribers = 0
    /// The published message, rewritten per broadcast from `publication` (a WebSocket client masks what it sends).
    let publication: [UInt8]
    let markerOffset: Int
    /// Where the published message's packet identifier is rewritten per broadcast (MQTT at QoS 1 or 2).
    let packetIDOffset: Int?
    let outgoing: UnsafeMutableRawBufferPointer
    /// The protocol's keepalive to the publisher (MQTT's PINGREQ), and when next.
    var nextKeepAlive: UInt64 = 0
    /// Closed loop: after a publish the server did not take, the next waits until then.
    var publishingPausedUntil: UInt64 = 0
    /// `bench serve fanout --target`: where agents connect (this role closes it), the ids given to them so far, and
    /// what each is sent after its welcome.
    let listener: Int32?
    var agentSubscribers = 0
    let agentSpec: [UInt8]

    /// A role whose subscribers report over `channels` (each non-blocking, with the ids it carries; this role does
    /// not close them) or, with a `listener`, come from agents (`agentSpec`: the client spec they are sent).
    init(
        _ configuration: RunConfiguration, target: TargetURL, address: SocketAddress, transport: TransportSettings,
        protocol kind: PubSubSession.Speech, publish template: PublishTemplate, channels: [SubscriberChannel],
        listener: Int32?, agentSpec: [UInt8], control: RunControl, kernelClock: KernelClockMapping?,
        stream: SettledQueue?
    ) throws(SystemError) {
        self.listener = listener
        self.agentSpec = agentSpec
        self.configuration = configuration
        self.target = target
        self.address = address
        self.settings = transport
        self.control = control
        self.channels = channels
        self.channelDecoders = channels.map { _ in FrameDecoder(maximumFrameSize: WireFormat.subscriberReportMaximumSize) }
        self.loop = try TargetLoop(control: control)
        self.driver = SendDriver(configuration: configuration)
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * configuration.payload), alignment: 8)
        self.stream = stream
        self.recording = RunRecording(
            configuration: configuration, window: stream == nil ? nil : RunRecording.window(for: configuration))
        self.recording.serverAddress = target.description
        self.recording.startUnixNanoseconds = WallClock.nowUnixNanoseconds()  // until sending begins
        self.recording.kernelClockAtStart = kernelClock
        self.stamps = kernelClock.map { KernelTimestamps(clock: $0) }
        self.publisherStamps = kernelClock.map { _ in TransmitStampQueue() }
        self.subscriberOpen = Array(repeating: false, count: configuration.clients)
        publisherSession = PubSubSession(kind, subscriber: false, maximumMessageSize: max(64 << 10, 4 * configuration.payload))
        let payload = template.expand(size: configuration.payload)
        let (bytes, payloadOffset, packetIDOffset) = publisherSession.publication(of: payload.bytes)
        self.publication = bytes
        self.markerOffset = payloadOffset + payload.markerOffset
        self.packetIDOffset = packetIDOffset
        self.outgoing = .allocate(byteCount: bytes.count, alignment: 8)
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
    }

    deinit {
        readBuffer.deallocate()
        outgoing.deallocate()
    }

    /// Connects, waits for the subscribers, publishes and collects; closes the publisher's connection.
    func run() -> Result<RunRecording, RunError> {
        defer {
            publisher?.close()
            for channel in channels where channel.isAgent && channel.isOpen { Posix.close(channel.descriptor) }
            listener.map(Posix.close)
        }
        do throws(RunError) {
            try loop.register()
            do {
                if let listener { try epoll.add(listener, interest: .readable, token: TargetToken.firstConnection + 1) }
                for (place, channel) in channels.enumerated() {
                    try epoll.add(channel.descriptor, interest: .readable, token: TargetToken.firstConnection + UInt64(place + 2))
                }
            } catch {
                throw .system(error)
            }
            try connectAll()
            if !isStopping { try publishAndCollect() }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// Opens the publisher's connection and waits until it and every subscriber are ready.
    func connectAll() throws(RunError) {
        try loop.setUp(
            self, timeout: configuration.setupTimeout,
            isDone: { subscribed >= configuration.clients && publisherEstablished && publisherSession.isReady },
            openMore: { () throws(RunError) in if publisher == nil { try openPublisher() } },
            timedOut: {
                let ready = publisherEstablished && publisherSession.isReady
                return .setupFailed(
                    "\(subscribed) of \(configuration.clients) subscribers\(ready ? " and the publisher" : ", not the publisher,")"
                        + " were ready at \(target) within " + DurationText.format(configuration.setupTimeout) + agentsSummary)
            })
    }

    func openPublisher() throws(RunError) {
        do {
            // An sse:// target's publisher POSTs to --publish-url, which may be another address.
            let publishTo = configuration.publishURL.flatMap { SocketAddress(resolving: $0.host, port: $0.port) } ?? address
            let descriptor = try TCPSocket.startConnecting(to: publishTo)
            // Before any byte, so that the publisher's stamp offsets count from the first one.
            try? stamps?.enable(on: descriptor, transmit: true)
            publisher = try Connection<T>(
                descriptor: descriptor, token: TargetToken.firstConnection, epoll: epoll, role: .client,
                settings: settings, maximumQueuedBytes: configuration.maximumQueuedBytes, connecting: true)
        } catch {
            throw .setupFailed("cannot connect to \(target): \(error)")
        }
    }

    func publishAndCollect() throws(RunError) {
        driver.startMeasuring()
        try loop.start(&recording, streamingTo: stream)
        sendTimerFired()
        while true {
            sendClosedLoop(at: MonotonicClock.now())
            if isFinished(at: MonotonicClock.now()) {
                recording.endNanoseconds = MonotonicClock.now()
                return
            }
            try loop.wait(for: self, timeoutMilliseconds: 100)
        }
    }

    var isPublisherOpen: Bool { publisher?.isOpen == true }

    /// The publisher's connection closed, or every subscriber's.
    func isEveryoneGone(at now: UInt64) -> Bool {
        !isPublisherOpen || openSubscribers == 0
    }

    /// Closed loop: after a publish the server did not take, the next waits a moment.
    func mayBroadcast(at now: UInt64) -> Bool { now >= publishingPausedUntil }

    func isConnected(_ client: Int) -> Bool { subscriberOpen[client] }

    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        preconditionFailure("the subscribers measure fanout only")
    }

    /// Subscriber `client`'s connection closed at `time`, for `reason`: what it still owed is lost.
    func subscriberClosed(_ client: Int, reason: String, at time: UInt64) {
        recording.record(ConnectionEvent(side: .clients, client: client, time: time, reason: reason))
        guard subscriberOpen[client] else { return }
        subscriberOpen[client] = false
        openSubscribers -= 1
        for sequence in recording.heldSequences {
            let index = recording.messageIndex(sequence: sequence, client: client)
            if recording.outcome[index] == .written { settle(index, as: .writtenThenClosed) }
        }
    }

    /// Closes the publisher's connection with the reason (and on WebSocket, the status `code`).
    func closePublisher(reason: String, code: UInt16 = WebSocketCloseCode.normal) {
        guard let publisher, publisher.isOpen else { return }
        publisher.close(code: code)
        recording.record(ConnectionEvent(side: .clients, client: nil, time: MonotonicClock.now(), reason: "publisher: " + reason))
    }

    func finish() {
        if isPublisherOpen { drainPublisherStamps() }
        finishMeasuring()
        recording.busiestClientThreadPercent = subscriberThreadLoad.values.max()
        if isStopping {
            recording.status = .interrupted
            recording.statusReason = "stopped on request"
        } else if !isPublisherOpen {
            recording.status = .failed
            recording.statusReason = "the publisher's connection to \(target) closed"
        }
        recording.finishStream(to: stream)
    }
}
