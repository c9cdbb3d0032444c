import BenchCore
import BenchNet

/// The simulated clients of a run: one connection each, in one epoll loop on one thread, each echoing every
/// data frame at once with the time its read returned, and sending a heartbeat every `heartbeat`.
///
/// They connect one after the other, each saying hello with its id, then echo until the server closes every
/// connection (the end of the run) or the run's control wakes them. A single client has nothing to multiplex:
/// it blocks in read on its socket, as sockperf's server does, which saves an epoll_wait per message.
final class EchoClients {
    /// What the clients' side saw, merged into the ``RunRecording`` after the run.
    struct Report: Sendable {
        var observedCPUs = CPUSet()
        var allowedCPUs = CPUSet()
        var events: [ConnectionEvent] = []
        /// Echoes not sent because the connection's write queue was full.
        var droppedEchoes = 0
        /// Heartbeats sent.
        var heartbeats = 0
    }

    private enum Token {
        static let wake: UInt64 = 0
        static let heartbeatTimer: UInt64 = 1
        static let firstConnection: UInt64 = 2
    }

    /// Heartbeats go out in slices on this tick (or on every heartbeat, if that is shorter), so that ten
    /// thousand clients do not all write at the same instant.
    private static let heartbeatTick: UInt64 = 100_000_000

    private let address: SocketAddress
    private let ids: Range<Int>
    private let token: UInt64
    private let heartbeat: UInt64
    private let maximumFrameSize: Int
    private let maximumQueuedBytes: Int
    /// Spin on non-blocking reads instead of sleeping in epoll_wait or read.
    private let busyPoll: Bool
    private let control: RunControl
    /// The kernel's receive stamps, when the run uses them.
    private let stamps: KernelTimestamps?
    private let epoll: Epoll
    private let heartbeatTimer: MonotonicTimer
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// A heartbeat frame, rewritten with each sender's id.
    private let heartbeatFrame: UnsafeMutableRawBufferPointer
    private var connections: [Connection] = []
    /// Connections not closed yet; the loop ends when none is left.
    private var openConnections = 0
    private var heartbeatCursor = 0
    private var report = Report()

    /// Clients `ids` of the run `configuration`, whose server listens at `address`; `kernelClock` is given when
    /// the run uses kernel stamps.
    init(
        _ configuration: RunConfiguration,
        ids: Range<Int>,
        address: SocketAddress,
        control: RunControl,
        kernelClock: KernelClockMapping?
    ) throws(SystemError) {
        self.address = address
        self.ids = ids
        self.token = configuration.token
        self.heartbeat = configuration.heartbeat
        self.maximumFrameSize = max(configuration.payload, WireFormat.minimumMessageSize)
        self.maximumQueuedBytes = configuration.maximumQueuedBytes
        self.busyPoll = configuration.busyPoll
        self.control = control
        self.stamps = kernelClock.map { KernelTimestamps(clock: $0) }
        self.epoll = try Epoll()
        self.heartbeatTimer = try MonotonicTimer()
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * maximumFrameSize), alignment: 8)
        self.heartbeatFrame = .allocate(byteCount: WireFormat.heartbeatFrameSize, alignment: 8)
        connections.reserveCapacity(ids.count)
    }

    deinit {
        readBuffer.deallocate()
        heartbeatFrame.deallocate()
    }

    /// Connects every client, echoes until the run ends, closes every connection.
    func run() -> Report {
        report.allowedCPUs = CPUPlacement.allowedCPUs()
        defer {
            for connection in connections { connection.close() }
        }
        do {
            try epoll.add(control.clientsWake.descriptor, interest: .readable, token: Token.wake)
            try epoll.add(heartbeatTimer.descriptor, interest: .readable, token: Token.heartbeatTimer)
        } catch {
            control.failSetup("the clients' event loop could not start: \(error)")
            return report
        }
        guard connectAll() else { return report }
        if connections.count == 1 { return echoOnBlockingSocket(connections[0]) }
        if heartbeat > 0 {
            let tick = min(heartbeat, Self.heartbeatTick)
            try? heartbeatTimer.arm(at: MonotonicClock.now() + tick, period: tick)
        }
        while openConnections > 0 {
            let count: Int
            do {
                count = try epoll.wait(timeoutMilliseconds: busyPoll ? 0 : -1)
            } catch {
                record(client: nil, reason: "\(error)")
                return report
            }
            report.observedCPUs.insert(CPUPlacement.currentCPU())
            for index in 0..<count {
                let (token, events) = epoll.event(at: index)
                switch token {
                case Token.wake:
                    return report
                case Token.heartbeatTimer:
                    heartbeatTimer.drain()
                    sendHeartbeatSlice()
                default:
                    let position = Int(token - Token.firstConnection)
                    if connections[position].isOpen && !handle(events, position: position) {
                        close(position)
                    }
                }
            }
        }
        return report
    }

    /// Opens every client's connection and sends its hello. False (after telling the server) on failure.
    private func connectAll() -> Bool {
        let hello = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.helloFrameSize, alignment: 8)
        defer { hello.deallocate() }
        for (position, client) in ids.enumerated() {
            if control.isStopRequested { return false }
            do {
                let descriptor = try TCPSocket.connect(to: address)
                try? stamps?.enable(on: descriptor, transmit: false)  // without: user-space times, counted
                if busyPoll { TCPSocket.pollBusily(descriptor) }
                let connection = try Connection(
                    descriptor: descriptor,
                    token: Token.firstConnection + UInt64(position),
                    epoll: epoll,
                    maximumFrameSize: maximumFrameSize,
                    maximumQueuedBytes: maximumQueuedBytes
                )
                connections.append(connection)
                openConnections += 1
                Frame.encodeHello(into: hello, client: UInt32(client), token: token)
                _ = try connection.send(UnsafeRawBufferPointer(hello))
            } catch {
                control.failSetup("client \(client) could not connect to \(address): \(error)")
                return false
            }
        }
        return true
    }

    /// Handles epoll's events for one client's connection. False when the connection is done.
    private func handle(_ events: EpollEvents, position: Int) -> Bool {
        let connection = connections[position]
        do {
            if events.contains(.writable) { try connection.writeQueued() }
            guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return true }
            return try echoWhatArrives(on: connection, client: ids.lowerBound + position)
        } catch {
            record(client: ids.lowerBound + position, reason: "\(error)")
            return false
        }
    }

    /// Echoes on the only client's socket made blocking, until the server closes it at the end of the run.
    /// A receive timeout of one heartbeat wakes it to send heartbeats when nothing arrives.
    private func echoOnBlockingSocket(_ connection: Connection) -> Report {
        let client = ids.lowerBound
        do {
            var nextHeartbeat = UInt64.max
            if !busyPoll {  // busy polling spins on the non-blocking socket instead
                try Posix.setNonBlocking(connection.descriptor, false)
                if heartbeat > 0 { try Posix.setReceiveTimeout(connection.descriptor, nanoseconds: heartbeat) }
            }
            if heartbeat > 0 { nextHeartbeat = MonotonicClock.now() + heartbeat }
            while try echoWhatArrives(on: connection, client: client) {
                report.observedCPUs.insert(CPUPlacement.currentCPU())
                let now = MonotonicClock.now()
                if now >= nextHeartbeat {
                    try sendHeartbeat(on: connection, client: client)
                    nextHeartbeat = now + heartbeat
                }
            }
        } catch {
            record(client: client, reason: "\(error)")
        }
        return report
    }

    /// Sends heartbeats for this tick's share of the clients, round-robin, so that each gets one per heartbeat.
    private func sendHeartbeatSlice() {
        let tick = min(heartbeat, Self.heartbeatTick)
        let share = (connections.count * Int(tick) + Int(heartbeat) - 1) / Int(heartbeat)
        for _ in 0..<min(share, connections.count) {
            let position = heartbeatCursor
            heartbeatCursor = (heartbeatCursor + 1) % connections.count
            guard connections[position].isOpen else { continue }
            do {
                try sendHeartbeat(on: connections[position], client: ids.lowerBound + position)
            } catch {
                record(client: ids.lowerBound + position, reason: "\(error)")
                close(position)
            }
        }
    }

    private func close(_ position: Int) {
        guard connections[position].isOpen else { return }
        connections[position].close()
        openConnections -= 1
    }

    private func sendHeartbeat(on connection: Connection, client: Int) throws(SystemError) {
        Frame.encodeHeartbeat(into: heartbeatFrame, client: UInt32(client))
        if try connection.send(UnsafeRawBufferPointer(heartbeatFrame)) != .dropped { report.heartbeats += 1 }
    }

    /// Reads once and echoes every data frame read, stamped with the time the read returned (and the kernel's
    /// receive stamp, with kernel stamps). False when the connection is done: the server closed it (the end of the
    /// run) or sent something that is not data.
    private func echoWhatArrives(on connection: Connection, client: Int) throws -> Bool {
        guard case .processed(let (count, kernelNow)) = try connection.read(into: readBuffer, stamps: stamps) else {
            return true
        }
        let now = MonotonicClock.now()
        guard count > 0 else { return false }  // the server closed: the run is over
        var sendError: SystemError?
        let proceed = try connection.decoder.decode(.init(rebasing: readBuffer[0..<count])) { frame in
            guard frame.kind == .data else {
                self.record(client: client, reason: "the server sent \(frame.kind.withArticle) frame")
                return false
            }
            frame.convertToEcho(receivedNanoseconds: now, receivedKernelNanoseconds: kernelNow)
            do throws(SystemError) {
                if try connection.send(UnsafeRawBufferPointer(frame.bytes)) == .dropped {
                    self.report.droppedEchoes += 1
                }
            } catch {
                sendError = error
                return false
            }
            return true
        }
        if let sendError { throw sendError }
        return proceed
    }

    private func record(client: Int?, reason: String) {
        report.events.append(
            ConnectionEvent(side: .clients, client: client, time: MonotonicClock.now(), reason: reason))
    }
}
