import BenchCore
import BenchNet

/// The measuring role for a user's echo server (`bench roundtrip --target`): `clients` connections to it, each sending
/// its messages by the run's timetable (or closed loop) and stamping the echo's arrival, on one thread and one clock.
///
/// A message is the marker (run, client, sequence) padded to `--payload` bytes on the wire, framed by `--framing` on
/// `tcp://` targets or one WebSocket message on `ws://`/`wss://`. The echo is found by its marker; a reply without one,
/// or with another run's or another client's, is an event, not a measurement, and the run goes on. Everything lands
/// in a ``RunRecording`` as the built-in server's would: written = the time before the send, echoed = received = the
/// time the read returned, so the reports are the same.
final class TargetEchoClients<T: Transport>: TargetLoopRole, MeasuringRole {
    typealias Token = TargetToken

    let configuration: RunConfiguration
    let target: TargetURL
    let address: SocketAddress
    let settings: TransportSettings
    let framing: MessageFraming?
    let control: RunControl
    /// The event loop: epoll, timers, stop and start.
    let loop: TargetLoop
    var epoll: Epoll { loop.epoll }
    var sendTimer: MonotonicTimer { loop.sendTimer }
    var isStopping: Bool { loop.stopping }
    var isRunning: Bool { loop.running }
    /// The kernel's socket stamps, when the run uses them: a transmit stamp per message, a receive stamp per echo.
    let stamps: KernelTimestamps?
    /// The measuring core's state: the timetable or the closed loop's turns, and the counts.
    var driver: SendDriver
    let readBuffer: UnsafeMutableRawBufferPointer
    var recording: RunRecording
    /// Where settled rows go to the run's writer as the run goes on; nil keeps the whole run in `recording`.
    let stream: SettledQueue?
    var peers: [TargetPeer<T>] = []
    var established = 0
    /// Connections still open (counted, so that the loop does not look at every connection on each pass).
    var openConnections = 0

    init(
        _ configuration: RunConfiguration, target: TargetURL, address: SocketAddress, transport: TransportSettings,
        control: RunControl, kernelClock: KernelClockMapping?, stream: SettledQueue?
    ) throws(SystemError) {
        self.configuration = configuration
        self.target = target
        self.address = address
        self.settings = transport
        self.framing = target.scheme == .tcp ? configuration.framing : nil
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
        control.totalMessages.store(configuration.totalMessages, ordering: .relaxed)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Connects, sends and collects until every message is settled or its timeout passed; closes every connection.
    func run() -> Result<RunRecording, RunError> {
        defer { for peer in peers { peer.connection.close() } }
        do throws(RunError) {
            try loop.register()
            try connectAll()
            if !isStopping { try sendAndCollect() }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// Opens every connection (at most ``EchoClients/connectWindow`` at a time) and waits for their handshakes.
    func connectAll() throws(RunError) {
        try loop.setUp(
            self, timeout: configuration.setupTimeout, isDone: { established >= configuration.clients },
            openMore: { () throws(RunError) in
                while peers.count < configuration.clients && peers.count - established < EchoClients<T>.connectWindow {
                    try open(client: peers.count)
                }
            },
            timedOut: {
                .setupFailed(
                    "\(established) of \(configuration.clients) connections to \(target) were set up within "
                        + DurationText.format(configuration.setupTimeout))
            })
    }

    func open(client: Int) throws(RunError) {
        do {
            let descriptor = try TCPSocket.startConnecting(to: address)
            // Before any byte, so that the kernel's offsets count from the first one (handshakes included). A socket
            // the kernel will not stamp keeps the user-space times, counted as missing stamps.
            try? stamps?.enable(on: descriptor, transmit: true)
            if configuration.busyPoll { TCPSocket.pollBusily(descriptor) }
            let connection = try Connection<T>(
                descriptor: descriptor, token: Token.firstConnection + UInt64(client), epoll: epoll, role: .client,
                settings: settings, maximumQueuedBytes: configuration.maximumQueuedBytes, connecting: true)
            peers.append(try TargetPeer(
                connection: connection, configuration: configuration, framing: framing, stampsTransmits: stamps != nil))
            openConnections += 1
        } catch {
            throw .setupFailed("cannot connect to \(target): \(error)")
        }
    }

    func sendAndCollect() throws(RunError) {
        driver.startMeasuring()
        try loop.start(&recording, streamingTo: stream)
        sendTimerFired()
        driver.allClientsReady()
        while true {
            sendClosedLoop(at: MonotonicClock.now())
            let now = MonotonicClock.now()
            if isFinished(at: now) {
                recording.endNanoseconds = now
                return
            }
            try loop.wait(for: self, timeoutMilliseconds: configuration.busyPoll ? 0 : 100)
        }
    }

    /// Handles epoll's events for one connection; a setup failure ends the run (exit 3), anything later closes only it.
    func handle(_ events: EpollEvents, position client: Int) -> RunError? {
        let peer = peers[client]
        guard peer.connection.isOpen else { return nil }
        let wasEstablished = peer.connection.isEstablished
        do {
            if stamps != nil && events.contains(.error) { drainTransmitStamps(client) }
            if events.contains(.writable) { try peer.connection.writeQueued() }
            if !events.isDisjoint(with: [.readable, .hangUp, .error]) { try read(client) }
        } catch {
            if !isRunning {
                return .setupFailed("\(target) refused the connection or its handshake: \(error)")
            }
            close(client, reason: "\(error)", code: error.closeCode)
            return nil
        }
        if !wasEstablished && peer.connection.isEstablished {  // false for a connection closed meanwhile
            established += 1
            recording.connectTimes[client] = peer.connection.establishedAt - peer.connection.startedAt
        }
        return nil
    }

    /// Reads once and settles every echo in it.
    func read(_ client: Int) throws(ConnectionError) {
        let peer = peers[client]
        let result: IOResult<(count: Int, stamp: UInt64)>
        do {
            result = try peer.connection.read(into: readBuffer, stamps: stamps)
        } catch {
            throw .system(error)
        }
        guard case .processed(let (count, kernelNow)) = result else { return }
        let now = MonotonicClock.now()
        guard count > 0 else {
            if !isRunning { throw .closedByPeer("\(target) closed the connection before the run began") }
            close(client, reason: "closed by \(target)")
            return
        }
        var unreadable: MessageFramingError?
        _ = try peer.connection.receiveBytes(readBuffer, count: count) { bytes, endsMessage in
            do throws(MessageFramingError) {
                try peer.messages(in: bytes, endsMessage: endsMessage) { message in
                    self.settle(echo: message, client: client, at: now, kernel: kernelNow)
                }
            } catch {
                unreadable = error
                return false
            }
            return true
        }
        if let unreadable { close(client, reason: "\(unreadable)", code: WebSocketCloseCode.messageTooBig) }
    }

    /// One reply from the target: its marker says which message it echoes.
    func settle(echo message: UnsafeRawBufferPointer, client: Int, at now: UInt64, kernel: UInt64) {
        guard let marker = Marker.find(in: message) else {
            event(client, "sent a message without a bench marker (\(message.count) bytes)")
            return
        }
        let sequence = Int(marker.sequence)
        guard marker.run == configuration.token, Int(marker.client) == client,
            sequence < recording.heldSequences.upperBound
        else {
            event(client, "sent a marker of another run or client (client \(marker.client), message \(marker.sequence))")
            return
        }
        guard sequence >= recording.flushedUpTo else {
            recording.echoesAfterHandOn += 1  // its fate was sealed long ago (timed out): nothing changes
            return
        }
        let index = recording.messageIndex(sequence: sequence, client: client)
        switch recording.outcome[index] {
        case .written, .timedOut:
            let first = recording.outcome[index] == .written
            recording.received[index] = now
            recording.echoed[index] = now
            if recording.usesKernelStamps {
                recording.receivedKernel[index] = kernel
                recording.echoedKernel[index] = kernel
            }
            let inTime = first && now - recording.written[index] <= configuration.timeout
            if first { settle(index, as: inTime ? .echoed : .late) } else { recording.changeTimedOut(index, to: .late) }
            driver.countEcho()
        case .echoed, .late:
            recording.duplicateEchoes += 1
        default:
            event(client, "echoed message \(sequence), which was never sent on this connection")
        }
    }


    /// Closes a client's connection with the reason (and on WebSocket, the status `code`); what it still owed is lost.
    func close(_ client: Int, reason: String, code: UInt16 = WebSocketCloseCode.normal) {
        guard peers[client].connection.isOpen else { return }
        peers[client].connection.close(code: code)
        openConnections -= 1
        event(client, reason)
        for sequence in recording.heldSequences {
            let index = recording.messageIndex(sequence: sequence, client: client)
            if recording.outcome[index] == .written { settle(index, as: .writtenThenClosed) }
        }
    }

    func event(_ client: Int, _ reason: String) {
        // The measuring side here is the clients': what they saw is theirs (and not a connection the server closed).
        recording.record(ConnectionEvent(side: .clients, client: client, time: MonotonicClock.now(), reason: reason))
    }

    func finish() {
        for client in peers.indices where peers[client].connection.isOpen { drainTransmitStamps(client) }
        finishMeasuring()
        if isStopping {
            recording.status = .interrupted
            recording.statusReason = "stopped on request"
        } else if openConnections == 0 {
            recording.status = .failed
            recording.statusReason = "\(target) closed every connection"
        }
        recording.finishStream(to: stream)
    }

    // MARK: MeasuringRole

    func isConnected(_ client: Int) -> Bool { peers[client].connection.isOpen }

    /// Fanout is the subscribers' role, not this one's.
    func mayBroadcast(at now: UInt64) -> Bool { false }

    func sendBroadcast(_ sequence: Int, scheduled: UInt64) {
        preconditionFailure("the echo clients measure roundtrip only")
    }

    func isEveryoneGone(at now: UInt64) -> Bool { openConnections == 0 }
}
