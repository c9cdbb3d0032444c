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
final class TargetSubscribers<T: Transport> {
    private typealias Token = TargetToken

    private let configuration: RunConfiguration
    private let target: TargetURL
    private let address: SocketAddress
    private let settings: TransportSettings
    private let control: RunControl
    /// The kernel's socket stamps, when the run uses them: each subscriber's receive stamp, the publisher's transmit
    /// stamp (t0), so that the order in which this thread reads the subscribers does not enter the spread.
    private let stamps: KernelTimestamps?
    /// With kernel stamps: the broadcasts published that wait for their transmit stamp.
    private var publisherStamps: TransmitStampQueue?
    private let epoll: Epoll
    private let sendTimer: MonotonicTimer
    private let housekeepingTimer: MonotonicTimer
    private let plan: SendPlan?
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var recording: RunRecording
    /// The subscribers (0..<clients), then the publisher.
    private var connections: [Connection<T>] = []
    private var sessions: [PubSubSession] = []
    private var established: [Bool] = []
    private var ready = 0
    /// The published message, rewritten per broadcast from `publication` (a WebSocket client masks what it sends).
    private let publication: [UInt8]
    private let markerOffset: Int
    private let outgoing: UnsafeMutableRawBufferPointer
    /// NATS's answer to the server's `PING`, sent from a buffer made once.
    private static var pong: StaticString { "PONG\r\n" }
    private let pongBuffer: UnsafeMutableRawBufferPointer
    private var nextEvent = 0
    private var currentBroadcast = -1
    private var unresolvedInBroadcast = 0
    private var dispatched = 0
    private var resolved = 0
    private var lastDispatch: UInt64 = 0
    private var stopping = false
    private var running = false
    /// Closed loop: after a publish the server did not take, the next waits until then.
    private var publishingPausedUntil: UInt64 = 0

    init(
        _ configuration: RunConfiguration, target: TargetURL, address: SocketAddress, transport: TransportSettings,
        protocol kind: PubSubSession.Speech, publish template: PublishTemplate, control: RunControl,
        kernelClock: KernelClockMapping?
    ) throws(SystemError) {
        self.configuration = configuration
        self.target = target
        self.address = address
        self.settings = transport
        self.control = control
        self.epoll = try Epoll()
        self.sendTimer = try MonotonicTimer()
        self.housekeepingTimer = try MonotonicTimer()
        self.plan = configuration.isClosedLoop ? nil : SendPlan(configuration: configuration)
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * configuration.payload), alignment: 8)
        self.recording = RunRecording(configuration: configuration)
        self.recording.serverAddress = target.description
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

    private var publisher: Int { configuration.clients }

    /// Connects, subscribes, publishes and collects; closes every connection.
    func run() -> Result<RunRecording, RunError> {
        defer { for connection in connections { connection.close() } }
        do throws(RunError) {
            do {
                try epoll.add(control.serverWake.descriptor, interest: .readable, token: Token.wake)
                try epoll.add(sendTimer.descriptor, interest: .readable, token: Token.sendTimer)
                try epoll.add(housekeepingTimer.descriptor, interest: .readable, token: Token.housekeeping)
            } catch {
                throw RunError.system(error)
            }
            try connectAll()
            if !stopping { try publishAndCollect() }
        } catch {
            return .failure(error)
        }
        finish()
        return .success(recording)
    }

    /// Opens every connection (a window at a time) and waits until every subscriber is subscribed.
    private func connectAll() throws(RunError) {
        let deadline = MonotonicClock.now() + configuration.setupTimeout
        let total = configuration.clients + 1
        while ready < total {
            let settingUp = connections.count - ready
            for _ in 0..<max(0, min(EchoClients<T>.connectWindow - settingUp, total - connections.count)) {
                try open(connections.count)
            }
            let now = MonotonicClock.now()
            guard now < deadline else {
                let subscribers = (0..<min(connections.count, configuration.clients)).filter { sessions[$0].isReady }.count
                let publisher = connections.count > configuration.clients && sessions[configuration.clients].isReady
                throw .setupFailed(
                    "\(subscribers) of \(configuration.clients) subscribers\(publisher ? " and the publisher" : ", not the publisher,")"
                        + " were ready at \(target) within " + DurationText.format(configuration.setupTimeout))
            }
            try waitForEvents(timeoutMilliseconds: Int32(min((deadline - now) / 1_000_000 + 1, 100)))
            if stopping { return }
        }
    }

    private func open(_ position: Int) throws(RunError) {
        do {
            let descriptor = try TCPSocket.startConnecting(to: address)
            // Before any byte, so that the publisher's stamp offsets count from the first one.
            try? stamps?.enable(on: descriptor, transmit: position == configuration.clients)
            connections.append(try Connection<T>(
                descriptor: descriptor, token: Token.firstConnection + UInt64(position), epoll: epoll, role: .client,
                settings: settings, maximumQueuedBytes: configuration.maximumQueuedBytes, connecting: true))
            established.append(false)
        } catch {
            throw .setupFailed("cannot connect to \(target): \(error)")
        }
    }

    private func publishAndCollect() throws(RunError) {
        let now = MonotonicClock.now()
        recording.startNanoseconds = now
        recording.startUnixNanoseconds = WallClock.nowUnixNanoseconds()
        control.isRunning.store(true, ordering: .relaxed)
        running = true
        do {
            try housekeepingTimer.arm(at: now + 50_000_000, period: 50_000_000)
        } catch {
            throw .system(error)
        }
        dispatchDueEvents()
        while true {
            let now = MonotonicClock.now()
            if plan == nil && !stopping && unresolvedInBroadcast == 0
                && currentBroadcast + 1 < configuration.sequencesPerClient && now >= publishingPausedUntil
            {
                broadcast(currentBroadcast + 1, scheduled: now)
            }
            if isFinished(at: MonotonicClock.now()) {
                recording.endNanoseconds = MonotonicClock.now()
                return
            }
            try waitForEvents(timeoutMilliseconds: 100)
        }
    }

    private func waitForEvents(timeoutMilliseconds: Int32) throws(RunError) {
        let count: Int
        do {
            count = try epoll.wait(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw .system(error)
        }
        for index in 0..<count {
            let (token, events) = epoll.event(at: index)
            switch token {
            case Token.wake:
                control.serverWake.drain()
                if control.isStopRequested { stopping = true }
            case Token.sendTimer:
                sendTimer.drain()
                dispatchDueEvents()
            case Token.housekeeping:
                housekeepingTimer.drain()
                housekeeping(at: MonotonicClock.now())
            default:
                if let failure = handle(events, position: Int(token - Token.firstConnection)) { throw failure }
            }
        }
    }

    /// A connection's events: the end of its connect, its handshakes, then what it receives.
    private func handle(_ events: EpollEvents, position: Int) -> RunError? {
        let connection = connections[position]
        guard connection.isOpen else { return nil }
        do {
            if position == publisher && stamps != nil && events.contains(.error) { drainPublisherStamps() }
            if events.contains(.writable) { try connection.writeQueued() }
            if !events.isDisjoint(with: [.readable, .hangUp, .error]) { try read(position) }
            if !established[position] && connection.isEstablished {
                established[position] = true
                if position < configuration.clients {
                    recording.connectTimes[position] = connection.establishedAt - connection.startedAt
                }
                let opening = sessions[position].opening(subscriber: position < configuration.clients)
                if !opening.isEmpty { try send(opening, on: connection) }
                if sessions[position].isReady { ready += 1 }
            }
        } catch let refusal as RunError {
            return refusal
        } catch {
            if !running { return .setupFailed("\(target) refused the connection or its handshake: \(error)") }
            close(position, reason: "\(error)")
        }
        return nil
    }

    private func send(_ bytes: [UInt8], on connection: Connection<T>) throws {
        var copy = bytes
        _ = try copy.withUnsafeMutableBytes { try connection.send($0) }
    }

    /// Reads once; a subscriber settles every broadcast whose marker it finds.
    private func read(_ position: Int) throws {
        let connection = connections[position]
        guard case .processed(let (count, kernelNow)) = try connection.read(into: readBuffer, stamps: stamps) else { return }
        let now = MonotonicClock.now()
        guard count > 0 else {
            if !running { throw RunError.setupFailed("\(target) closed the connection") }
            close(position, reason: "closed by \(target)")
            return
        }
        let session = sessions[position]
        let wasReady = session.isReady
        var failure: Error?
        var pongs = 0
        var refusal: String?
        _ = try connection.receiveBytes(readBuffer, count: count) { bytes, endsMessage in
            do {
                pongs += try session.consume(bytes, endsMessage: endsMessage) { event in
                    switch event {
                    case .message(let message):
                        if position < self.configuration.clients { self.settle(message, subscriber: position, at: now, kernel: kernelNow) }
                    case .ready:
                        break
                    case .error(let text):
                        if !self.running { refusal = text }
                        self.event(position, "the server said \(text)")
                    }
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        if let refusal { throw RunError.setupFailed("\(target) refused \(position < configuration.clients ? "a subscriber" : "the publisher"): \(refusal)") }
        for _ in 0..<pongs {
            pongBuffer.copyMemory(from: UnsafeRawBufferPointer(start: Self.pong.utf8Start, count: Self.pong.utf8CodeUnitCount))
            _ = try connection.send(pongBuffer)
        }
        if !wasReady && session.isReady { ready += 1 }
    }

    /// A relayed message at `subscriber`: its marker says which broadcast.
    private func settle(_ message: UnsafeRawBufferPointer, subscriber: Int, at now: UInt64, kernel: UInt64) {
        guard let marker = Marker.find(in: message) else {
            event(subscriber, "received a message without a bench marker (\(message.count) bytes)")
            return
        }
        let sequence = Int(marker.sequence)
        guard marker.run == configuration.token, sequence <= currentBroadcast else {
            event(subscriber, "received a marker of another run (message \(marker.sequence))")
            return
        }
        let index = recording.messageIndex(sequence: sequence, client: subscriber)
        switch recording.outcome[index] {
        case .written:
            recording.received[index] = now
            if recording.usesKernelStamps { recording.receivedKernel[index] = kernel }
            let inTime = now - recording.broadcastStart[sequence] <= configuration.timeout
            settle(index, as: inTime ? .echoed : .late)
        case .timedOut:
            recording.received[index] = now
            if recording.usesKernelStamps { recording.receivedKernel[index] = kernel }
            recording.outcome[index] = .late
        case .echoed, .late:
            recording.duplicateEchoes += 1
        default:
            break  // published while it was not subscribed: not counted
        }
    }

    private func dispatchDueEvents() {
        guard let plan, running, !stopping else { return }
        let start = recording.startNanoseconds
        while nextEvent < plan.offsets.count {
            let due = start + plan.offsets[nextEvent]
            guard due <= MonotonicClock.now() else {
                try? sendTimer.arm(at: due)
                return
            }
            broadcast(plan.targets[nextEvent], scheduled: due)
            nextEvent += 1
        }
    }

    /// Publishes broadcast `sequence`; t0 is the time before the send.
    private func broadcast(_ sequence: Int, scheduled: UInt64) {
        let clients = configuration.clients
        recording.scheduled[sequence] = scheduled
        currentBroadcast = sequence
        unresolvedInBroadcast = 0
        publication.withUnsafeBytes { outgoing.copyMemory(from: $0) }
        Marker(run: configuration.token, client: UInt32(publisher), sequence: UInt32(sequence))
            .write(into: UnsafeMutableRawBufferPointer(rebasing: outgoing[markerOffset...]))
        if case .custom(let framing?, _) = sessions[publisher].kind { framing.frame(outgoing) }  // stx: its CRC
        let time = MonotonicClock.now()
        recording.broadcastStart[sequence] = time
        var outcome: Connection<T>.SendOutcome?
        if connections[publisher].isOpen {
            do {
                outcome = try connections[publisher].send(outgoing, stamped: stamps != nil)
                if outcome != .dropped {
                    _ = publisherStamps?.expect(message: sequence, lastByte: connections[publisher].bytesTaken &- 1)
                }
            } catch {
                close(publisher, reason: "publishing failed: \(error)")
            }
        }
        if outcome == .dropped {
            // The server does not take the publisher's bytes: this broadcast is lost to everyone, and closed loop
            // waits for the next housekeeping tick before it tries the next one.
            event(publisher, "the server took no more bytes (--max-queue full): broadcast \(sequence) was not published")
            publishingPausedUntil = time + 50_000_000
        }
        for client in 0..<clients {
            let index = recording.messageIndex(sequence: sequence, client: client)
            if outcome == .dropped {
                settle(index, as: .droppedQueueFull)
            } else if outcome != nil && connections[client].isOpen {
                recording.written[index] = time
                recording.outcome[index] = .written
                unresolvedInBroadcast += 1
            } else {
                settle(index, as: .droppedClosed)
            }
        }
        dispatched += clients
        lastDispatch = MonotonicClock.now()
    }

    private func settle(_ index: Int, as outcome: MessageOutcome) {
        let wasInFlight = recording.outcome[index] == .written
        recording.outcome[index] = outcome
        resolved += 1
        if wasInFlight && index / configuration.clients == currentBroadcast { unresolvedInBroadcast -= 1 }
        if outcome == .echoed { control.echoedMessages.add(1, ordering: .relaxed) }
    }

    private func housekeeping(at now: UInt64) {
        if plan == nil && unresolvedInBroadcast > 0 && now >= recording.broadcastStart[currentBroadcast] + configuration.timeout {
            for client in 0..<configuration.clients {
                let index = recording.messageIndex(sequence: currentBroadcast, client: client)
                if recording.outcome[index] == .written { settle(index, as: .timedOut) }
            }
        }
        control.dispatchedMessages.store(dispatched, ordering: .relaxed)
    }

    private func isFinished(at now: UInt64) -> Bool {
        if !connections[publisher].isOpen || connections.prefix(configuration.clients).allSatisfy({ !$0.isOpen }) {
            return true
        }
        guard stopping || dispatched == configuration.totalMessages else { return false }
        return resolved == dispatched || now >= lastDispatch + configuration.timeout
    }

    private func close(_ position: Int, reason: String) {
        guard connections[position].isOpen else { return }
        connections[position].close()
        event(position, reason)
        guard position < configuration.clients else { return }
        for sequence in 0..<configuration.sequencesPerClient {
            let index = recording.messageIndex(sequence: sequence, client: position)
            if recording.outcome[index] == .written { settle(index, as: .writtenThenClosed) }
        }
    }

    private func event(_ position: Int, _ reason: String) {
        let who = position < configuration.clients ? position : nil
        let text = position < configuration.clients ? reason : "publisher: " + reason
        recording.record(ConnectionEvent(side: .clients, client: who, time: MonotonicClock.now(), reason: text))
    }

    /// The publisher's transmit stamps: each is its broadcast's t0 as the kernel saw it (every subscriber's write
    /// time, as the built-in server's first write of a broadcast).
    private func drainPublisherStamps() {
        guard let stamps else { return }
        while let stamp = try? stamps.nextTransmitStamp(on: connections[publisher].descriptor) {
            publisherStamps?.stamp(key: stamp.key, time: stamp.time) { sequence, time in
                for client in 0..<configuration.clients {
                    recording.writtenKernel[recording.messageIndex(sequence: sequence, client: client)] = time
                }
            }
        }
    }

    private func finish() {
        if connections.count > publisher && connections[publisher].isOpen { drainPublisherStamps() }
        recording.computeKernelBroadcastStarts()
        for index in recording.outcome.indices where recording.outcome[index] == .written {
            recording.outcome[index] = .timedOut
        }
        if recording.endNanoseconds == 0 { recording.endNanoseconds = MonotonicClock.now() }
        if stopping {
            recording.status = .interrupted
            recording.statusReason = "stopped on request"
        } else if !connections[publisher].isOpen {
            recording.status = .failed
            recording.statusReason = "the publisher's connection to \(target) closed"
        }
        control.dispatchedMessages.store(dispatched, ordering: .relaxed)
    }
}
