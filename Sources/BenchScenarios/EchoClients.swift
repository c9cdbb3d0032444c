import BenchCore
import BenchNet

/// The simulated clients of a run: N connections in one epoll loop on one thread, each echoing every data
/// frame at once with the time its read returned.
///
/// They connect one after the other, each saying hello with its id, then echo until the server closes
/// every connection (the end of the run) or the run's control wakes them. A single client has nothing to
/// multiplex: it blocks in read on its socket, as sockperf's server does, which saves an epoll_wait per message.
final class EchoClients {
    /// What the clients' side saw, merged into the ``RunRecording`` after the run.
    struct Report: Sendable {
        var observedCPUs = CPUSet()
        var allowedCPUs = CPUSet()
        var events: [ConnectionEvent] = []
        /// Echoes not sent because the connection's write queue was full.
        var droppedEchoes = 0
    }

    private static let wakeToken: UInt64 = 0

    private let address: SocketAddress
    private let clients: Int
    private let maximumFrameSize: Int
    private let maximumQueuedBytes: Int
    private let control: RunControl
    private let epoll: Epoll
    private let readBuffer: UnsafeMutableRawBufferPointer
    private var connections: [Connection] = []
    private var report = Report()

    init(
        address: SocketAddress,
        clients: Int,
        maximumFrameSize: Int,
        maximumQueuedBytes: Int,
        control: RunControl
    ) throws(SystemError) {
        self.address = address
        self.clients = clients
        self.maximumFrameSize = maximumFrameSize
        self.maximumQueuedBytes = maximumQueuedBytes
        self.control = control
        self.epoll = try Epoll()
        self.readBuffer = .allocate(byteCount: max(64 << 10, 2 * maximumFrameSize), alignment: 8)
        connections.reserveCapacity(clients)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Connects every client, echoes until the run ends, closes every connection.
    func run() -> Report {
        report.allowedCPUs = CPUPlacement.allowedCPUs()
        defer {
            for connection in connections { connection.close() }
        }
        do {
            try epoll.add(control.clientsWake.descriptor, interest: .readable, token: Self.wakeToken)
        } catch {
            control.failSetup("the clients' event loop could not start: \(error)")
            return report
        }
        guard connectAll() else { return report }
        if clients == 1 { return echoOnBlockingSocket(connections[0]) }
        var open = clients
        while open > 0 {
            let count: Int
            do {
                count = try epoll.wait(timeoutMilliseconds: -1)
            } catch {
                record(client: nil, reason: "\(error)")
                return report
            }
            report.observedCPUs.insert(CPUPlacement.currentCPU())
            for index in 0..<count {
                let (token, events) = epoll.event(at: index)
                if token == Self.wakeToken { return report }
                let client = Int(token - 1)
                if connections[client].isOpen && !handle(events, client: client) {
                    connections[client].close()
                    open -= 1
                }
            }
        }
        return report
    }

    /// Opens every client's connection and sends its hello. False (after telling the server) on failure.
    private func connectAll() -> Bool {
        let hello = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.helloFrameSize, alignment: 8)
        defer { hello.deallocate() }
        for client in 0..<clients {
            if control.isStopRequested { return false }
            do {
                let connection = try Connection(
                    descriptor: try TCPSocket.connect(to: address),
                    token: UInt64(client) + 1,
                    epoll: epoll,
                    maximumFrameSize: maximumFrameSize,
                    maximumQueuedBytes: maximumQueuedBytes
                )
                connections.append(connection)
                Frame.encodeHello(into: hello, client: UInt32(client))
                _ = try connection.send(UnsafeRawBufferPointer(hello))
            } catch {
                control.failSetup("client \(client) could not connect to \(address): \(error)")
                return false
            }
        }
        return true
    }

    /// Handles epoll's events for one client's connection. False when the connection is done.
    private func handle(_ events: EpollEvents, client: Int) -> Bool {
        let connection = connections[client]
        do {
            if events.contains(.writable) { try connection.writeQueued() }
            guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return true }
            return try echoWhatArrives(on: connection, client: client)
        } catch {
            record(client: client, reason: "\(error)")
            return false
        }
    }

    /// Echoes on client 0's socket made blocking, until the server closes it at the end of the run.
    private func echoOnBlockingSocket(_ connection: Connection) -> Report {
        do {
            try Posix.setNonBlocking(connection.descriptor, false)
            while try echoWhatArrives(on: connection, client: 0) {}
        } catch {
            record(client: 0, reason: "\(error)")
        }
        return report
    }

    /// Reads once and echoes every data frame read, stamped with the time the read returned. False when the
    /// connection is done: the server closed it (the end of the run) or sent something that is not data.
    private func echoWhatArrives(on connection: Connection, client: Int) throws -> Bool {
        guard case .processed(let count) = try connection.read(into: readBuffer) else { return true }
        let now = MonotonicClock.now()
        guard count > 0 else { return false }  // the server closed: the run is over
        var sendError: SystemError?
        let proceed = try connection.decoder.decode(.init(rebasing: readBuffer[0..<count])) { frame in
            guard frame.kind == .data else {
                self.record(client: client, reason: "the server sent a \(frame.kind) frame")
                return false
            }
            frame.convertToEcho(receivedNanoseconds: now)
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
