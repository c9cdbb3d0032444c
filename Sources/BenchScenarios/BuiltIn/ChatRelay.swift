import BenchClients
import BenchCore
import BenchNet
import Synchronization

/// The built-in chat server (`bench chat` without `--target`): a relay that keeps rooms and forwards each message to the
/// other members of its sender's room. It measures nothing: the run's clients measure it as they would a user's server
/// (``TargetClients``), speaking its protocol as a `tcp://` target with line framing:
///
///     join <room>\n          the connection's first line: the room it is in from now on
///     <message>\n            every other line: sent on, as it is, to every other member of the room
///
/// One thread, one epoll, non-blocking TCP; with `--io uring`, the members' reads arrive through io_uring and each
/// pass's writes go out in one submission (``UringReceiver``, ``SendBatch``). A member whose write queue is full (`--max-queue`) misses the message,
/// which its client counts as lost, and the relay counts as dropped. No allocation per message: each line is copied
/// once into a scratch buffer with its newline and written to each member.
final class ChatRelay: @unchecked Sendable {
    /// The framing and the subscribe text the run's clients use to speak to it.
    static let framing = MessageFraming.line
    static let joinText = "join {room}"

    /// Where it listens (its port, when port 0 was asked).
    let address: SocketAddress
    /// The listening socket, closed with the relay.
    private let listening: Descriptor
    private var listener: Int32 { listening.rawValue }
    private let epoll: Epoll
    private let stop: EventNotifier
    private let maximumMessageSize: Int
    private let maximumQueuedBytes: Int
    private var connections: [Connection<TCP>?] = []
    private var decoders: [MessageDecoder] = []
    /// Per connection: its room (-1 until it joined); per room: its members' connections.
    private var roomOfConnection: [Int] = []
    private var members: [[Int32]] = []
    private var roomNumbers: [String: Int] = [:]
    private var freeSlots: [Int] = []
    /// Members whose write failed while a line was sent on, closed after it.
    private var closing: [Int] = []
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let scratch: UnsafeMutableRawBufferPointer
    private var thread: NativeThread<Counts>?
    /// The engine asked for, the clients it reads for (the ring's buffers), and with io_uring its ring (set up on the
    /// relay's thread).
    private let engine: IOEngine
    private let clients: Int
    private var receiver: UringReceiver?
    private var batch: SendBatch<TCP>?

    /// What the relay did, told when it stops.
    struct Counts: Sendable {
        /// Messages sent on to members, and those a member's full queue did not take.
        var relayed = 0
        var dropped = 0
        /// The most bytes one member had waiting to be written.
        var peakQueuedBytes = 0
        /// The relay thread's CPU time (ns), the CPUs it was seen on and those it was allowed.
        var cpuTime: UInt64 = 0
        var cpus = CPUSet()
        var allowedCPUs = CPUSet()
        /// Why io_uring was asked for and could not be set up on the relay's thread (it used epoll).
        var uringRefusal: String?
    }

    private var counts = Counts()
    /// Connections that joined a room and are still open: the run sends nothing until every member has (the clients
    /// only know their join was sent, not read).
    let joined = Atomic<Int>(0)
    private static let listenerToken = UInt64.max
    private static let stopToken = UInt64.max - 1

    /// Where the relay's thread runs (`--pin`'s server CPU), nil: where the kernel puts it.
    private let cpu: Int?

    /// Listens on `host`:`port` (0: any free port), to run on `cpu` with `engine` for `clients` members; nothing runs
    /// until ``start()``.
    init(
        host: String, port: UInt16, cpu: Int?, engine: IOEngine, clients: Int, maximumMessageSize: Int,
        maximumQueuedBytes: Int
    ) throws(RunError) {
        self.cpu = cpu
        self.engine = engine
        self.clients = clients
        guard let address = SocketAddress(host: host, port: port) else { throw .invalidHost(host) }
        do throws(SystemError) {
            let (number, bound) = try TCPSocket.listen(on: address)
            listening = Descriptor(owning: number, owner: "the chat relay's listener")  // a throw below closes it
            self.address = bound
        } catch {
            throw .setupFailed("the chat relay cannot listen on \(address): \(error)")
        }
        do throws(SystemError) {
            epoll = try Epoll()
            stop = try EventNotifier()
            try epoll.add(listening.rawValue, interest: .readable, token: Self.listenerToken)
            try epoll.add(stop.descriptor, interest: .readable, token: Self.stopToken)
        } catch {
            throw .system(error)
        }
        self.maximumMessageSize = maximumMessageSize
        self.maximumQueuedBytes = maximumQueuedBytes
        readBuffer = .allocate(byteCount: 64 << 10, alignment: 8)
        scratch = .allocate(byteCount: maximumMessageSize + 1, alignment: 8)
    }

    deinit {
        readBuffer.deallocate()
        scratch.deallocate()
    }

    /// Runs the relay on its own thread (`bench-relay`).
    func start() throws(RunError) {
        do {
            thread = try NativeThread.spawn(name: "bench-relay") { [self] in run() }
        } catch {
            throw .system(error)
        }
    }

    /// Stops the relay, closes every connection and tells what it did.
    func finish() -> Counts {
        stop.notify()
        return thread?.join() ?? counts
    }

    private func run() -> Counts {
        CPUPlacement.minimizeTimerSlack()
        if let cpu { try? CPUPlacement.pinCurrentThread(to: cpu) }  // checked before the run (ScenarioRunner)
        counts.allowedCPUs = CPUPlacement.allowedCPUs()
        let cpuAtStart = ThreadCPUTime.now()
        defer { for case let connection? in connections { connection.close() } }
        if engine == .uring { startUring() }
        while true {
            var stopping = false
            let waited = try? epoll.dispatchEvents(through: receiver, timeoutMilliseconds: -1) { token, events in
                switch token {
                case Self.stopToken: stopping = true
                case Self.listenerToken: acceptAll()
                default: handle(events, at: Int(token))
                }
                return true
            }
            batch?.flush()
            guard waited != nil else { break }
            counts.cpus.insert(CPUPlacement.currentCPU())
            if stopping { break }
        }
        counts.cpuTime = ThreadCPUTime.now() - cpuAtStart
        return counts
    }

    /// Sets up io_uring on the relay's thread; where it cannot, the relay stays on epoll and the run says why.
    private func startUring() {
        switch SendBatch<TCP>.startLoop(epoll: epoll, connections: clients, frameSize: maximumMessageSize, clock: nil) {
        case .success(let rings): (receiver, batch) = rings
        case .failure(let refusal):
            counts.uringRefusal = "io_uring could not be set up on the chat relay's thread (\(refusal)); it used epoll"
        }
    }

    private func acceptAll() {
        while let socket = try? TCPSocket.accept(from: listener) {
            let slot = freeSlots.popLast() ?? connections.count
            if slot == connections.count {
                connections.append(nil)
                decoders.append(MessageDecoder(framing: Self.framing, maximumMessageSize: maximumMessageSize))
                roomOfConnection.append(-1)
            }
            decoders[slot] = MessageDecoder(framing: Self.framing, maximumMessageSize: maximumMessageSize)
            roomOfConnection[slot] = -1
            guard let connection = try? Connection<TCP>(
                descriptor: socket, token: UInt64(slot), epoll: epoll, role: .server,
                settings: TransportSettings(maximumFrameSize: maximumMessageSize), maximumQueuedBytes: maximumQueuedBytes,
                receiver: receiver, batch: batch)
            else {
                freeSlots.append(slot)  // the connection closed its descriptor
                continue
            }
            connections[slot] = connection
            do {
                try connection.start()
            } catch {
                close(slot)
            }
        }
    }

    private func handle(_ events: EpollEvents, at slot: Int) {
        guard slot < connections.count, let connection = connections[slot], connection.isOpen else { return }
        do {
            if events.contains(.writable) { try connection.writeQueued() }
            guard !events.isDisjoint(with: [.readable, .hangUp, .error]) else { return }
            guard case .processed(let (count, _)) = try connection.read(into: readBuffer) else { return }
            guard count > 0 else { return close(slot) }
            try decoders[slot].decode(UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<count])) { line in
                take(line, from: slot)
                return true
            }
        } catch {
            close(slot)
        }
    }

    /// One line from `slot`: its join, or a message for its room.
    private func take(_ line: UnsafeMutableRawBufferPointer, from slot: Int) {
        let room = roomOfConnection[slot]
        guard room >= 0 else { return join(line, slot) }
        scratch.baseAddress!.copyMemory(from: line.baseAddress!, byteCount: line.count)
        scratch[line.count] = UInt8(ascii: "\n")
        let message = UnsafeMutableRawBufferPointer(rebasing: scratch[0...line.count])
        for place in members[room].indices {
            let member = Int(members[room][place])
            guard member != slot, let connection = connections[member], connection.isOpen else { continue }
            do {
                if try connection.send(message) == .dropped { counts.dropped += 1 } else { counts.relayed += 1 }
                counts.peakQueuedBytes = max(counts.peakQueuedBytes, connection.queuedByteCount)
            } catch {
                connection.close()  // taken out of its room once the line is sent on (the room does not change under it)
                closing.append(member)
            }
        }
        for member in closing { close(member) }
        closing.removeAll(keepingCapacity: true)
    }

    /// `join <room>`: the connection's room from now on; any other first line is not this protocol, and closes it.
    private func join(_ line: UnsafeMutableRawBufferPointer, _ slot: Int) {
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("join "), text.count > 5 else { return close(slot) }
        let name = String(text.dropFirst(5))
        let room = roomNumbers[name] ?? {
            members.append([])
            roomNumbers[name] = members.count - 1
            return members.count - 1
        }()
        roomOfConnection[slot] = room
        members[room].append(Int32(slot))
        joined.add(1, ordering: .releasing)
    }

    /// Closes `slot`'s connection and takes it out of its room; the slot is reused.
    private func close(_ slot: Int) {
        guard let connection = connections[slot] else { return }
        connection.close()
        connections[slot] = nil
        let room = roomOfConnection[slot]
        if room >= 0, let place = members[room].firstIndex(of: Int32(slot)) {
            members[room].swapAt(place, members[room].count - 1)
            members[room].removeLast()
            joined.subtract(1, ordering: .releasing)
        }
        roomOfConnection[slot] = -1
        freeSlots.append(slot)
    }
}
