import BenchCore
import BenchNet

/// The measuring role for a user's publish/subscribe server (`bench fanout --target`): `clients` subscriber
/// connections and one publisher connection, on one thread and one clock.
///
/// Once every subscriber is subscribed (confirmed by Redis and NATS; for ws and tcp servers, once its `--subscribe`
/// text is sent), the publisher sends each broadcast by the timetable (or closed loop); t0 is the time before that
/// send. Each subscriber stamps the read that brought a broadcast's marker: delivery = that read − t0, and spread,
/// completion and lost are as for the built-in server. A relayed message without a marker, or with another run's, is
/// an event, not a measurement.
final class TargetSubscribers<T: Transport>: TargetLoopRole, MeasuringRole {
    typealias Token = TargetToken

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
    /// The kernel's socket stamps, when the run uses them: each subscriber's receive stamp, the publisher's transmit
    /// stamp (t0), so that the order in which this thread reads the subscribers does not enter the spread.
    let stamps: KernelTimestamps?
    /// With kernel stamps: the broadcasts published that wait for their transmit stamp.
    var publisherStamps: TransmitStampQueue?
    /// The measuring core's state: the timetable or the closed loop's turns, and the counts.
    var driver: SendDriver
    let readBuffer: UnsafeMutableRawBufferPointer
    var recording: RunRecording
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    let stream: SettledQueue?
    /// The subscribers (0..<clients), then the publisher.
    var connections: [Connection<T>] = []
    var sessions: [PubSubSession] = []
    var established: [Bool] = []
    var ready = 0
    /// The published message, rewritten per broadcast from `publication` (a WebSocket client masks what it sends).
    let publication: [UInt8]
    let markerOffset: Int
    let outgoing: UnsafeMutableRawBufferPointer
    /// NATS's answer to the server's `PING`, sent from a buffer made once.
    static var pong: StaticString { "PONG\r\n" }
    let pongBuffer: UnsafeMutableRawBufferPointer
    /// Subscribers whose connection is still open (counted, so that the loop does not look at each on every pass).
    var openSubscribers = 0
    /// Closed loop: after a publish the server did not take, the next waits until then.
    var publishingPausedUntil: UInt64 = 0

    init(
        _ configuration: RunConfiguration, target: TargetURL, address: SocketAddress, transport: TransportSettings,
        protocol kind: PubSubSession.Speech, publish template: PublishTemplate, control: RunControl,
        kernelClock: KernelClockMapping?, stream: SettledQueue?
    ) throws(SystemError) {
        self.configuration = configuration
        self.target = target
        self.address = address
        self.settings = transport
        self.control = control
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
        let maximum = max(64 << 10, 4 * configuration.payload)
        for subscriber in 0...configuration.clients {
            sessions.append(PubSubSession(kind, subscriber: subscriber < configuration.clients, maximumMessageSize: maximum))
        }
        let payload = template.expand(size: configuration.payload)
        let (bytes, payloadOffset) = sessions[configuration.clients].publication(of: payload.bytes)
        self.publication = bytes
        self.markerOffset = payloadOffset + payload.markerOffset
        self.outgoing = .allocate(byteCount: bytes.count, alignment: 8)
        self.pongBuffer = .allocate(byteCount: Self.pong.utf8CodeUnitCount, alignment: 8)
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
    }

    deinit {
        readBuffer.deallocate()
        outgoing.deallocate()
        pongBuffer.deallocate()
    }

    var publisher: Int { configuration.clients }

    /// Connects, subscribes, publishes and collects; closes every connection.
    func run() -> Result<RunRecording, RunError> {
        defer { for connection in connections { connection.close() } }
        do throws(RunError) {
            try loop.register()
            try connectAll()
            if !isStopping { try publishAndCollect() }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// Opens every connection (a window at a time) and waits until every subscriber is subscribed.
    func connectAll() throws(RunError) {
        let total = configuration.clients + 1
        try loop.setUp(
            self, timeout: configuration.setupTimeout, isDone: { ready >= total },
            openMore: { () throws(RunError) in
                let settingUp = connections.count - ready
                for _ in 0..<max(0, min(EchoClients<T>.connectWindow - settingUp, total - connections.count)) {
                    try open(connections.count)
                }
            },
            timedOut: {
                let subscribers = (0..<min(connections.count, configuration.clients)).filter { sessions[$0].isReady }.count
                let publisher = connections.count > configuration.clients && sessions[configuration.clients].isReady
                return .setupFailed(
                    "\(subscribers) of \(configuration.clients) subscribers\(publisher ? " and the publisher" : ", not the publisher,")"
                        + " were ready at \(target) within " + DurationText.format(configuration.setupTimeout))
            })
    }

    func open(_ position: Int) throws(RunError) {
        do {
            let descriptor = try TCPSocket.startConnecting(to: address)
            // Before any byte, so that the publisher's stamp offsets count from the first one.
            try? stamps?.enable(on: descriptor, transmit: position == configuration.clients)
            connections.append(try Connection<T>(
                descriptor: descriptor, token: Token.firstConnection + UInt64(position), epoll: epoll, role: .client,
                settings: settings, maximumQueuedBytes: configuration.maximumQueuedBytes, connecting: true))
            established.append(false)
            if position < configuration.clients { openSubscribers += 1 }
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

    /// The publisher's connection closed, or every subscriber's.
    func isEveryoneGone(at now: UInt64) -> Bool {
        !connections[publisher].isOpen || openSubscribers == 0
    }

    /// Closed loop: after a publish the server did not take, the next waits a moment.
    func mayBroadcast(at now: UInt64) -> Bool { now >= publishingPausedUntil }

    func isConnected(_ client: Int) -> Bool { connections[client].isOpen }

    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        preconditionFailure("the subscribers measure fanout only")
    }

    /// Closes a connection with the reason (and on WebSocket, the status `code`); what its subscriber still owed is lost.
    func close(_ position: Int, reason: String, code: UInt16 = WebSocketCloseCode.normal) {
        guard connections[position].isOpen else { return }
        connections[position].close(code: code)
        event(position, reason)
        guard position < configuration.clients else { return }
        openSubscribers -= 1
        for sequence in recording.heldSequences {
            let index = recording.messageIndex(sequence: sequence, client: position)
            if recording.outcome[index] == .written { settle(index, as: .writtenThenClosed) }
        }
    }

    func event(_ position: Int, _ reason: String) {
        let who = position < configuration.clients ? position : nil
        let text = position < configuration.clients ? reason : "publisher: " + reason
        recording.record(ConnectionEvent(side: .clients, client: who, time: MonotonicClock.now(), reason: text))
    }

    func finish() {
        if connections.count > publisher && connections[publisher].isOpen { drainPublisherStamps() }
        finishMeasuring()
        if isStopping {
            recording.status = .interrupted
            recording.statusReason = "stopped on request"
        } else if !connections[publisher].isOpen {
            recording.status = .failed
            recording.statusReason = "the publisher's connection to \(target) closed"
        }
        recording.finishStream(to: stream)
    }

}
