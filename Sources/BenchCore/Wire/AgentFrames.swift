/// The two frames of an agent's control connection (`bench clients` → `bench serve`), as values: written into and
/// read from ``WireFormat/agentFrameSize`` bytes, big-endian, at the offsets ``WireFormat`` gives.
public struct AgentHello: Equatable, Sendable {
    /// Client ids the agent asks for.
    public var clients: UInt32
    /// The hash of the token given to both sides (``AgentToken``).
    public var token: UInt64
    /// The agent's process id and host name (its first 16 bytes), for `agents.csv` and messages.
    public var pid: UInt32
    public var host: String
    /// A hash of the agent's boot id: the same on the server's host, whose monotonic clock it shares.
    public var boot: UInt64

    public init(clients: UInt32, token: UInt64, pid: UInt32, host: String, boot: UInt64) {
        self.clients = clients
        self.token = token
        self.pid = pid
        self.host = host
        self.boot = boot
    }

    /// Reads an agent hello frame (the decoder checked its kind and size).
    public init(_ frame: Frame) {
        clients = frame.load(UInt32.self, at: 8)
        token = frame.load(UInt64.self, at: 12)
        pid = frame.load(UInt32.self, at: 20)
        boot = frame.load(UInt64.self, at: 24)
        host = String(decoding: frame.bytes[32..<48].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Writes the frame into the first ``WireFormat/agentFrameSize`` bytes of `buffer`.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        let frame = Frame.encodeFixed(.agentHello, size: WireFormat.agentFrameSize, into: buffer)
        frame.bytes[5] = WireFormat.version
        frame.store(clients, at: 8)
        frame.store(token, at: 12)
        frame.store(pid, at: 20)
        frame.store(boot, at: 24)
        for (offset, byte) in host.utf8.prefix(16).enumerated() { frame.bytes[32 + offset] = byte }
    }
}

/// The server's answer to an agent: its client ids and what its clients need of the run's settings.
public struct AgentWelcome: Equatable, Sendable {
    /// 0: fanout, 1: roundtrip.
    public var scenario: UInt8
    /// 0: user, 1: kernel, 2: both.
    public var timestamps: UInt8
    public var firstClient: UInt32
    public var clients: UInt32
    /// The run's own random token, which every client's hello carries.
    public var runToken: UInt64
    public var payload: UInt32
    public var totalClients: UInt32
    public var heartbeat: UInt64

    public init(
        scenario: UInt8, timestamps: UInt8, firstClient: UInt32, clients: UInt32, runToken: UInt64, payload: UInt32,
        totalClients: UInt32, heartbeat: UInt64
    ) {
        self.scenario = scenario
        self.timestamps = timestamps
        self.firstClient = firstClient
        self.clients = clients
        self.runToken = runToken
        self.payload = payload
        self.totalClients = totalClients
        self.heartbeat = heartbeat
    }

    /// Reads a welcome frame (the decoder checked its kind and size).
    public init(_ frame: Frame) {
        scenario = frame.bytes[5]
        timestamps = frame.bytes[6]
        firstClient = frame.load(UInt32.self, at: 8)
        clients = frame.load(UInt32.self, at: 12)
        runToken = frame.load(UInt64.self, at: 16)
        payload = frame.load(UInt32.self, at: 24)
        totalClients = frame.load(UInt32.self, at: 28)
        heartbeat = frame.load(UInt64.self, at: 32)
    }

    /// Writes the frame into the first ``WireFormat/agentFrameSize`` bytes of `buffer`.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        let frame = Frame.encodeFixed(.agentWelcome, size: WireFormat.agentFrameSize, into: buffer)
        frame.bytes[5] = scenario
        frame.bytes[6] = timestamps
        frame.store(firstClient, at: 8)
        frame.store(clients, at: 12)
        frame.store(runToken, at: 16)
        frame.store(payload, at: 24)
        frame.store(totalClients, at: 28)
        frame.store(heartbeat, at: 32)
    }
}

/// The token both sides are given (`--token`), as the frames carry it: the first 8 bytes of its SHA-1, so that a
/// token of any length fits and is never sent as it is.
public enum AgentToken {
    public static func hash(_ text: String) -> UInt64 {
        SHA1.digest(Array(text.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The token the clients of the agent given ids from `firstClient` carry in their hellos: derived from the run's
    /// own token, one way, so that an agent cannot say hello for another agent's ids (nor learn the run's token).
    public static func clients(ofRun run: UInt64, from firstClient: Int) -> UInt64 {
        hash("\(run)/\(firstClient)") | 1
    }
}
