import BenchClients
import BenchCore
import BenchNet
import Glibc

/// `bench clients`: an agent that simulates some of a `bench serve` run's clients in this process.
///
/// It opens a control connection to the server, asks for `clients` client ids with the run's `--token`, and from the
/// server's welcome learns its ids and what its clients need of the run (scenario, payload, heartbeat, timestamps,
/// the run's own token); then its echo clients connect like the built-in ones and echo until the server ends the
/// run by closing their connections. The control connection stays open meanwhile: closing it is how the server sees
/// an agent go. Before its clients connect, it measures the server's clock over it (`measureClock`) and its clients add
/// the offset to every stamp they echo.
public enum AgentRunner {
    /// What an agent did.
    public struct Outcome: Sendable {
        /// The server's welcome: its ids and the run's settings.
        public let welcome: AgentWelcome
        /// What its clients were told to speak.
        public let spec: ClientSpec
        /// What it found of the server's clock; its clients' stamps were corrected by it.
        public let clock: ClockEstimate
        /// What the agent's own options did not do, and why (for people).
        public var notes: [String] = []
    }

    /// Joins the run served at `address` with `clients` clients, waiting at most `joinTimeout` for the welcome; with
    /// `link` (one link, `bench clients --link`), its clients sit behind it, and the run reports them as a group.
    ///
    /// - Throws: ``RunError/setupFailed(_:)`` when the server cannot be reached, refuses the agent, or the clients
    ///   cannot connect.
    public static func run(
        server address: SocketAddress, clients: Int, token: String, clientThreads: Int, joinTimeout: UInt64,
        reconnect: ReconnectBackoff? = nil, sourceAddresses: [String] = [], tlsTrust: TLSTrustOption? = nil,
        serverName: String? = nil, link: LinkMix? = nil, control: RunControl, status: AgentStatus? = nil
    ) throws(RunError) -> Outcome {
        defer { status?.enter(.ended) }
        let limit = DescriptorLimit.raiseToHardLimit()
        guard clients + 1 + RunError.reservedDescriptors <= limit else {
            throw .tooManyClients(requested: clients, descriptorLimit: limit, perClient: 1)
        }
        let welcome: AgentWelcome
        var spec: ClientSpec
        let controlConnection: SharedDescriptor
        do {
            (controlConnection, welcome, spec) = try join(address, clients: clients, token: token, timeout: joinTimeout)
        } catch {
            throw .setupFailed("cannot join the run at \(address): \(error)")
        }
        defer { controlConnection.close() }
        let controlSocket = controlConnection.rawValue
        if let tlsTrust, spec.tlsTrust != nil {  // the agent's own way to trust the server, over the welcome's
            do throws(TLSError) {
                spec.tlsTrust = try TLSTrust.reading(tlsTrust, otherwise: .insecure)
            } catch {
                throw .tls(error)
            }
        }
        status?.joined(welcome, spec)
        guard welcome.clients == UInt32(clients) else {
            throw .setupFailed("the server at \(address) gave \(welcome.clients) ids, not the \(clients) asked for")
        }
        if let link { try bringOwn(link, to: &spec, welcome: welcome, on: controlSocket) }
        if spec.chat != nil, let host = spec.target?.url.host, host == "0.0.0.0" || host == "::" {
            spec.target?.url.host = address.host  // the built-in chat relay listens on every address of the run's host
        }
        if spec.target != nil {  // bench serve fanout --target: subscribers of the user's server
            let clock = try startMeasured(on: controlSocket, server: address, status: status)
            try runTargetClients(
                welcome, spec, sources: sourceAddresses, controlSocket: controlSocket,
                threads: max(1, min(clientThreads, clients)), control: control, status: status)
            var outcome = Outcome(welcome: welcome, spec: spec, clock: clock)
            if reconnect != nil && reconnect != spec.reconnect {
                outcome.notes.append(
                    "this agent's --reconnect was not used: a --target run's clients reconnect as the run says ("
                        + (spec.reconnect == nil ? "not at all: give --reconnect to bench serve" : "its --reconnect") + ")")
            }
            return outcome
        }
        var configuration = try RunConfiguration(welcome: welcome, spec: spec)
        configuration.clientThreads = max(1, min(clientThreads, clients))
        configuration.reconnect = reconnect
        configuration.sourceAddresses = sourceAddresses
        configuration.seed = UInt64(truncatingIfNeeded: Posix.processID)  // the reconnects' jitter differs per agent
        let clock = try startMeasured(on: controlSocket, server: address, status: status)
        let kernelClock = configuration.timestamps.usesKernel ? KernelClockMapping.measure() : nil
        var settings = TransportSettings(
            maximumFrameSize: max(configuration.payload, WireFormat.minimumMessageSize),
            webSocketPath: spec.webSocketPath, webSocketHost: address.description)
        if spec.transport.usesTLS {
            do {
                try OpenSSL.load()
                settings.tls = try (spec.tlsTrust ?? .insecure).clientContext()
                settings.expectServer(named: serverName ?? address.host)
            } catch {
                throw .setupFailed("the run is over \(spec.transport.rawValue), and the server cannot be trusted: \(error)")
            }
        }
        let (link, routes) = try Self.link(spec.link, to: address, ids: configuration.localClients)
        let parts = (configuration, routes, settings, kernelClock)
        switch spec.transport {
        case .tcp: runClients(parts, over: TCP.self, controlSocket: controlSocket, control: control, status: status)
        case .ws: runClients(parts, over: WebSocket.self, controlSocket: controlSocket, control: control, status: status)
        case .tls: runClients(parts, over: TLS.self, controlSocket: controlSocket, control: control, status: status)
        case .wss: runClients(parts, over: SecureWebSocket.self, controlSocket: controlSocket, control: control, status: status)
        }
        if let reason = control.setupFailureReason { throw .setupFailed(reason) }
        if let link {  // the run is over (the server shut its side): what the link did, for the run's events
            let writer = ReportWriter(descriptor: controlSocket)
            link.report(on: writer, client: welcome.firstClient)
        }
        return Outcome(welcome: welcome, spec: spec, clock: clock)
    }

    /// Runs the agent's clients over `T` until they are done, watching the control connection meanwhile; their
    /// reports (connect times, events, load) go to the server on it as they come, each write whole under one lock with
    /// the clock rounds'.
    private static func runClients<T: Transport>(
        _ parts: (RunConfiguration, ClientRoutes, TransportSettings, KernelClockMapping?), over: T.Type,
        controlSocket: Int32, control: RunControl, status: AgentStatus?
    ) {
        let lock = SocketWriteLock()
        let threads = ClientThreads<T>(
            parts.0, routes: parts.1, settings: parts.2, control: control, kernelClock: parts.3,
            controlSocket: controlSocket, writeLock: lock)
        watchControlConnection(controlSocket, until: { threads.allFinished }, writeLock: lock, control: control, status: status)
        _ = threads.join()
    }

    /// Probes to measure the server's clock with: the shortest round trip of them sets the estimate.
    static var clockProbes: Int { 32 }

    /// Measures the server's clock before the clients start (``measureClock(on:)``), and tells `status` the clients
    /// are starting.
    private static func startMeasured(
        on socket: Int32, server address: SocketAddress, status: AgentStatus?
    ) throws(RunError) -> ClockEstimate {
        let clock: ClockEstimate
        do {
            clock = try measureClock(on: socket)
        } catch {
            throw .setupFailed("cannot measure the server's clock at \(address): \(error)")
        }
        status?.measured(clock)
        status?.enter(.running)
        return clock
    }

    /// NTP-style: a ``ClockRound`` of ``clockProbes`` probes on the (blocking) control connection, each reply awaited
    /// (the receive timeout bounds the wait), the best kept (``ClockEstimate``) and reported to the server. At most twice
    /// as many replies as probes are read: a server whose replies match no probe is not waited for without end.
    private static func measureClock(on socket: Int32) throws(SystemError) -> ClockEstimate {
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.clockFrameSize, alignment: 8)
        defer { frame.deallocate() }
        var round = ClockRound()
        try round.sendProbe(on: socket, writeLock: nil)
        for _ in 0..<2 * clockProbes {
            try readExactly(
                socket, into: frame, what: "clock reply in time",
                whenClosed: "the server closed the connection instead of sending a clock reply")
            guard frame[4] == FrameKind.clockReply.rawValue else {
                throw SystemError("the server's answer is not a clock reply (kind \(frame[4]))", errno: EPROTO)
            }
            guard let result = try round.take(Frame(kind: .clockReply, bytes: frame), on: socket, writeLock: nil) else {
                continue
            }
            guard let estimate = result else {
                throw SystemError("no clock reply of the server's could be true", errno: EPROTO)
            }
            return estimate
        }
        throw SystemError("the server's clock replies match none of this agent's probes", errno: EPROTO)
    }

    /// Reads exactly `buffer.count` bytes from the blocking `socket` (its receive timeout bounds the wait): "no
    /// `what`" when it passes, `whenClosed` when the server closes first.
    static func readExactly(
        _ socket: Int32, into buffer: UnsafeMutableRawBufferPointer, what: String, whenClosed: String
    ) throws(SystemError) {
        var received = 0
        while received < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[received...])
            guard case .processed(let count) = try Posix.read(socket, into: rest) else {
                throw SystemError("no \(what)", errno: ETIMEDOUT)
            }
            // The peer closed: no call failed, and no errno says more than `whenClosed`.
            guard count > 0 else { throw SystemError(whenClosed, errno: 0) }
            received += count
        }
    }

    /// Connects the control connection, says the agent's hello and reads the server's welcome.
    private static func join(
        _ address: SocketAddress, clients: Int, token: String, timeout: UInt64
    ) throws(SystemError) -> (SharedDescriptor, AgentWelcome, ClientSpec) {
        let connection = SharedDescriptor(owning: try TCPSocket.connect(to: address), owner: "an agent's control connection")
        let socket = connection.rawValue
        do throws(SystemError) {
            try Posix.setNonBlocking(socket, false)
            try Posix.setReceiveTimeout(socket, nanoseconds: timeout)
            let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
            defer { frame.deallocate() }
            AgentHello(
                clients: UInt32(clients), token: AgentToken.hash(token), pid: UInt32(Posix.processID),
                host: Posix.hostName, boot: AgentToken.hash(Posix.bootIdentifier)
            ).encode(into: frame)
            try Posix.writeAll(socket, UnsafeRawBufferPointer(frame), what: "send the agent's hello")
            let welcome = try readWelcome(
                socket, what: "welcome within \(DurationText.format(timeout))",
                whenClosed: "the server closed the connection instead of welcoming this agent: a wrong --token, more "
                    + "clients than the run has left, or the run already began (the run's events.csv names it, once that run is done)")
            return (connection, welcome, try readClientSpec(socket))
        } catch {
            connection.close()
            throw error
        }
    }
}

extension AgentRunner {
    /// Reads a welcome (`what` for the message when it does not come in time, `whenClosed` when the other end closes).
    static func readWelcome(_ socket: Int32, what: String, whenClosed: String) throws(SystemError) -> AgentWelcome {
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.agentFrameSize, alignment: 8)
        defer { frame.deallocate() }
        try readExactly(socket, into: frame, what: what, whenClosed: whenClosed)
        guard frame[4] == FrameKind.agentWelcome.rawValue,
            UInt32(bigEndian: frame.loadUnaligned(as: UInt32.self)) == UInt32(WireFormat.agentFrameSize - 4)
        else {
            throw SystemError("the answer is not a welcome (kind \(frame[4]))", errno: EPROTO)
        }
        return AgentWelcome(Frame(kind: .agentWelcome, bytes: frame))
    }

    /// Reads the client spec that follows the welcome.
    static func readClientSpec(_ socket: Int32) throws(SystemError) -> ClientSpec {
        let head = UnsafeMutableRawBufferPointer.allocate(byteCount: 5, alignment: 8)
        defer { head.deallocate() }
        let closed = "the server closed the connection instead of sending the client spec"
        try readExactly(socket, into: head, what: "client spec", whenClosed: closed)
        let size = Int(UInt32(bigEndian: head.loadUnaligned(as: UInt32.self))) + WireFormat.lengthFieldSize
        guard head[4] == FrameKind.clientSpec.rawValue, (5...WireFormat.clientSpecMaximumSize).contains(size) else {
            throw SystemError("the server's answer is not a client spec (kind \(head[4]), \(size) bytes)", errno: EPROTO)
        }
        let fields = UnsafeMutableRawBufferPointer.allocate(byteCount: size - 5, alignment: 8)
        defer { fields.deallocate() }
        if size > 5 { try readExactly(socket, into: fields, what: "client spec", whenClosed: closed) }
        do {
            return try ClientSpec(fields: fields)
        } catch {
            throw SystemError(error.description, errno: EPROTO)
        }
    }
}
