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
        let bytes = UnsafeRawBufferPointer(frame.bytes)
        clients = bytes.bigEndian(at: 8)
        token = bytes.bigEndian(at: 12)
        pid = bytes.bigEndian(at: 20)
        boot = bytes.bigEndian(at: 24)
        host = String(decoding: bytes[32..<48].prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Writes the frame into the first ``WireFormat/agentFrameSize`` bytes of `buffer`.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        let bytes = AgentFrame.start(.agentHello, in: buffer)
        bytes[5] = WireFormat.version
        bytes.storeBigEndian(clients, at: 8)
        bytes.storeBigEndian(token, at: 12)
        bytes.storeBigEndian(pid, at: 20)
        bytes.storeBigEndian(boot, at: 24)
        for (offset, byte) in host.utf8.prefix(16).enumerated() { bytes[32 + offset] = byte }
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
        let bytes = UnsafeRawBufferPointer(frame.bytes)
        scenario = bytes[5]
        timestamps = bytes[6]
        firstClient = bytes.bigEndian(at: 8)
        clients = bytes.bigEndian(at: 12)
        runToken = bytes.bigEndian(at: 16)
        payload = bytes.bigEndian(at: 24)
        totalClients = bytes.bigEndian(at: 28)
        heartbeat = bytes.bigEndian(at: 32)
    }

    /// Writes the frame into the first ``WireFormat/agentFrameSize`` bytes of `buffer`.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) {
        let bytes = AgentFrame.start(.agentWelcome, in: buffer)
        bytes[5] = scenario
        bytes[6] = timestamps
        bytes.storeBigEndian(firstClient, at: 8)
        bytes.storeBigEndian(clients, at: 12)
        bytes.storeBigEndian(runToken, at: 16)
        bytes.storeBigEndian(payload, at: 24)
        bytes.storeBigEndian(totalClients, at: 28)
        bytes.storeBigEndian(heartbeat, at: 32)
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

private enum AgentFrame {
    /// Zeroes the frame's bytes and writes its length and kind.
    static func start(_ kind: FrameKind, in buffer: UnsafeMutableRawBufferPointer) -> UnsafeMutableRawBufferPointer {
        precondition(buffer.count >= WireFormat.agentFrameSize)
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<WireFormat.agentFrameSize])
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        bytes.storeBigEndian(UInt32(WireFormat.agentFrameSize - WireFormat.lengthFieldSize), at: 0)
        bytes[4] = kind.rawValue
        return bytes
    }
}

extension UnsafeRawBufferPointer {
    fileprivate func bigEndian<T: FixedWidthInteger>(at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension UnsafeMutableRawBufferPointer {
    fileprivate func storeBigEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        storeBytes(of: value.bigEndian, toByteOffset: offset, as: T.self)
    }
}
