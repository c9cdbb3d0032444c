import BenchClients
import BenchCore
import BenchNet

/// What a server shard's run measured besides its stream of messages, sent once at its end: the ``RunRecording``
/// facts the run's reports read, by the shard's own client ids (the run's process moves them to its share,
/// ``RunRecording/merge(shard:_:clients:)``).
public struct ShardSummary: Sendable, Equatable {
    public var status: RunStatus = .complete
    public var statusReason: String?
    public var endedWhenDecided = false
    public var serverAddress = ""
    public var tlsCertificateFingerprint = ""
    public var startNanoseconds: UInt64 = 0
    public var endNanoseconds: UInt64 = 0
    public var measuringThreadCPU: UInt64 = 0
    public var measuringThreadRunQueueWait: UInt64?
    public var busiestClientThreadPercent: Double?
    public var windowWaits = 0
    public var writerWaits = 0
    public var duplicateEchoes = 0
    public var echoesAfterHandOn = 0
    /// Its ledger's rows: the sequences it could hold in flight at once (run.csv's `window_sequences`).
    public var window = 0
    /// Its events kept (at most ``RunRecording/maximumEvents``), and its counts of every event by side, kept or not:
    /// server, clients, listener, link.
    public var events: [ConnectionEvent] = []
    public var eventCounts: [Int] = [0, 0, 0, 0]
    public var clientThreads = ClientThreadsTally()
    public var server = BuiltInServerTally()
    public var queueFullDrops: [Int] = []
    public var connectTimes: [UInt64] = []
    /// Its clients' connect phases over tls, ws and wss (``RunRecording/connectPhases``); empty over plain tcp.
    public var connectPhases: [ConnectPhases?] = []
    public var outages: [ClientOutage] = []

    public init() {}

    /// The summary's bytes (a `summary` frame's body).
    public func encoded() -> [UInt8] {
        var w = ShardBytesWriter()
        w.byte(status == .complete ? 0 : status == .interrupted ? 1 : 2)
        w.text(statusReason)
        w.number(endedWhenDecided ? 1 : 0)
        w.text(serverAddress)
        w.text(tlsCertificateFingerprint)
        for value in [startNanoseconds, endNanoseconds, measuringThreadCPU] { w.number(value) }
        w.number(measuringThreadRunQueueWait.map { $0 &+ 1 } ?? 0)
        w.number(busiestClientThreadPercent.map { $0.bitPattern &+ 1 } ?? 0)
        for value in [windowWaits, writerWaits, duplicateEchoes, echoesAfterHandOn, window] { w.number(value) }
        w.number(events.count)
        for event in events {
            w.text(event.side.rawValue)
            w.number(event.client.map { $0 + 1 } ?? 0)
            w.number(event.time)
            w.text(event.reason)
        }
        w.numbers(eventCounts)
        for value in [clientThreads.droppedEchoes, clientThreads.heartbeatsSent, clientThreads.reconnects, clientThreads.gaveUp] {
            w.number(value)
        }
        w.numbers(clientThreads.cpus.cpus)
        w.numbers(clientThreads.allowedCPUs.cpus)
        w.number(server.heartbeatsReceived)
        w.numbers(server.deadClients)
        for value in [server.connectionsDroppedAt, UInt64(server.peakQueuedBytes), UInt64(server.acceptFailures), server.relayCPUTime] {
            w.number(value)
        }
        w.numbers(server.cpus.cpus)
        w.numbers(server.allowedCPUs.cpus)
        w.numbers(queueFullDrops)
        w.numbers(connectTimes.map { Int(clamping: $0) })
        // Three numbers a client, its TCP phase one more than it is (0: the client reported none), or none at all.
        w.numbers(connectPhases.flatMap { phases in
            phases.map { [Self.clamped($0.tcp) + 1, Self.clamped($0.tls), Self.clamped($0.webSocket)] } ?? [0, 0, 0]
        })
        w.number(outages.count)
        for outage in outages {
            w.number(outage.client)
            w.number(outage.closed)
            w.number(outage.back)
        }
        return w.bytes
    }

    /// A phase as it is sent: at most ``ConnectPhases/longest``, as it is read.
    private static func clamped(_ phase: UInt64) -> Int { Int(min(phase, ConnectPhases.longest)) }

    /// Reads a summary of a shard with `clients` clients from `bytes`; nil when they are not one.
    public init?(decoding bytes: UnsafeRawBufferPointer, clients: Int) {
        var r = ShardBytesReader(bytes)
        guard let status = r.byte(), status <= 2 else { return nil }
        self.status = [RunStatus.complete, .interrupted, .failed][Int(status)]
        statusReason = r.text()
        endedWhenDecided = r.number() == 1
        serverAddress = r.text() ?? ""
        tlsCertificateFingerprint = r.text() ?? ""
        guard let start = r.number(), let end = r.number(), let cpu = r.number(), let wait = r.number(),
            let busiest = r.number()
        else { return nil }
        (startNanoseconds, endNanoseconds, measuringThreadCPU) = (start, end, cpu)
        measuringThreadRunQueueWait = wait == 0 ? nil : wait - 1
        busiestClientThreadPercent = busiest == 0 ? nil : Double(bitPattern: busiest - 1)
        guard let counts = r.counts(5) else { return nil }
        (windowWaits, writerWaits, duplicateEchoes, echoesAfterHandOn) = (counts[0], counts[1], counts[2], counts[3])
        window = counts[4]
        guard let eventCount = r.count(atMost: RunRecording.maximumEvents) else { return nil }
        for _ in 0..<eventCount {
            guard let sideName = r.text(), let side = ConnectionEvent.Side(rawValue: sideName), let client = r.number(),
                client <= UInt64(clients), let time = r.number(), let reason = r.text()
            else { return nil }
            events.append(ConnectionEvent(side: side, client: client == 0 ? nil : Int(client) - 1, time: time, reason: reason))
        }
        guard let eventCounts = r.numbers(), eventCounts.count == 4, let threads = r.counts(4),
            let threadCPUs = r.numbers(), let allowedThreadCPUs = r.numbers(), let heartbeats = r.count(atMost: 1 << 48),
            let dead = r.numbers(), dead.allSatisfy({ $0 < clients }), let droppedAt = r.number(), let peak = r.number(),
            let failures = r.number(), failures < 1 << 48, let relay = r.number(), relay < 1 << 58, let serverCPUs = r.numbers(), let allowedServerCPUs = r.numbers(),
            let drops = r.numbers(), drops.count == clients, let connects = r.numbers(), connects.count == clients
        else { return nil }
        let longest = Int(ConnectPhases.longest)
        guard let phases = r.numbers(), phases.isEmpty || phases.count == 3 * clients,
            phases.enumerated().allSatisfy({ $0.element <= ($0.offset % 3 == 0 ? longest + 1 : longest) }),
            let outageCount = r.count(atMost: RunRecording.maximumOutages)
        else { return nil }
        self.eventCounts = eventCounts
        (clientThreads.droppedEchoes, clientThreads.heartbeatsSent, clientThreads.reconnects, clientThreads.gaveUp) =
            (threads[0], threads[1], threads[2], threads[3])
        (clientThreads.cpus, clientThreads.allowedCPUs) = (CPUSet(threadCPUs), CPUSet(allowedThreadCPUs))
        server.heartbeatsReceived = heartbeats
        server.deadClients = dead
        server.connectionsDroppedAt = droppedAt
        (server.peakQueuedBytes, server.acceptFailures) = (Int(clamping: peak), Int(clamping: failures))
        server.relayCPUTime = relay
        (server.cpus, server.allowedCPUs) = (CPUSet(serverCPUs), CPUSet(allowedServerCPUs))
        queueFullDrops = drops
        connectTimes = connects.map { UInt64($0) }
        connectPhases = stride(from: 0, to: phases.count, by: 3).map { (start: Int) -> ConnectPhases? in
            guard phases[start] > 0 else { return nil }
            let (tcp, tls, webSocket) = (UInt64(phases[start] - 1), UInt64(phases[start + 1]), UInt64(phases[start + 2]))
            return ConnectPhases(tcp: tcp, tls: tls, webSocket: webSocket, subscribe: 0)
        }
        for _ in 0..<outageCount {
            guard let client = r.number(), client < UInt64(clients), let closed = r.number(), let back = r.number(),
                back == 0 || back >= closed
            else { return nil }
            outages.append(ClientOutage(client: Int(client), closed: closed, back: back))
        }
        guard r.isAtEnd else { return nil }
    }
}

/// Little-endian numbers and length-prefixed texts: a ``ShardSummary``'s bytes.
struct ShardBytesWriter {
    private(set) var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }
    mutating func number(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func number(_ value: Int) { number(UInt64(max(0, value))) }
    mutating func numbers(_ values: [Int]) {
        number(values.count)
        for value in values { number(value) }
    }
    /// A text, or none (nil): its length + 1 (0 for none), then its UTF-8.
    mutating func text(_ value: String?) {
        guard let value else { return number(0) }
        number(value.utf8.count + 1)
        bytes += value.utf8
    }
}

/// Reads what ``ShardBytesWriter`` wrote: nil for anything cut off or out of range.
struct ShardBytesReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func number() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// A count or size no larger than `limit` (nor than what is left to read, at a byte each).
    mutating func count(atMost limit: Int) -> Int? {
        guard let value = number(), value <= UInt64(limit), value <= UInt64(Int.max) else { return nil }
        return Int(value)
    }

    /// `n` counts, each below 2^48 (so that 64 shards' sums stay in range).
    mutating func counts(_ n: Int) -> [Int]? {
        var values: [Int] = []
        for _ in 0..<n {
            guard let value = count(atMost: 1 << 48) else { return nil }
            values.append(value)
        }
        return values
    }

    mutating func numbers() -> [Int]? {
        guard let n = count(atMost: .max), n <= (bytes.count - offset) / 8 else { return nil }
        return counts(n)
    }

    mutating func text() -> String? {
        guard let length = count(atMost: .max), length > 0, length - 1 <= bytes.count - offset else { return nil }
        defer { offset += length - 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length - 1]), as: UTF8.self)
    }
}
