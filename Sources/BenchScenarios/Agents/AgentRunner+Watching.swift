import BenchClients
import BenchCore
import BenchNet
import Glibc

/// What an agent does on its control connection while its clients run (their threads send their own reports on it): it
/// measures the collector's clock again every ``AgentRunner/clockRoundInterval`` (a ``ClockRound``, taken a reply at a time among
/// whatever else arrives), passes a target run's orders on to the client threads they are for
/// (``OrderRelay``), and takes the connection's end for the run's.
extension AgentRunner {
    /// How often the agent looks at its control connection while its clients run.
    static var controlPollInterval: UInt64 { 50_000_000 }

    /// How often the agent measures the server's clock again while its clients run: the server corrects its stamps
    /// for the drift between the first round and the latest (``ClockModel``).
    static var clockRoundInterval: UInt64 { 5_000_000_000 }

    /// While the clients run: a clock round every ``clockRoundInterval``; orders relayed to their threads; the control
    /// connection closing is the server ending the run (or going): the clients stop then, even those waiting to
    /// reconnect. A round whose replies are late (a server busy for seconds) is given up when the next is due, not
    /// taken for the end; its late replies match no probe and are dropped. Returns when `finished` or on a stop request.
    ///
    /// Other threads write to the control connection too (an agent's clients' reports): each write here holds
    /// `writeLock`.
    static func watchControlConnection(
        _ socket: Int32, until finished: () -> Bool, relay: OrderRelay? = nil, writeLock: SocketWriteLock?,
        control: RunControl, status: AgentStatus? = nil
    ) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        defer { buffer.deallocate() }
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.minimumMessageSize)
        var round: ClockRound?
        var nextRound = MonotonicClock.now() + clockRoundInterval
        try? Posix.setReceiveTimeout(socket, nanoseconds: controlPollInterval)
        while !finished() && !control.isStopRequested {
            do {
                if MonotonicClock.now() >= nextRound {
                    nextRound = MonotonicClock.now() + clockRoundInterval
                    round = ClockRound()
                    try round!.sendProbe(on: socket, writeLock: writeLock)
                }
                let result = try Posix.read(socket, into: buffer)
                guard case .processed(let count) = result else { continue }
                guard count > 0 else { break }
                var broken = false
                try decoder.decode(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])) { frame in
                    switch frame.kind {
                    case .clockReply where frame.bytes.count == WireFormat.clockFrameSize:
                        do throws(SystemError) {
                            if let estimate = try round?.take(frame, on: socket, writeLock: writeLock) {
                                if let estimate { status?.measured(estimate) }
                                round = nil
                            }
                        } catch {
                            broken = true
                        }
                    case .data:
                        relay?.take(frame)
                    case .dropConnections:
                        relay?.takeForEveryShare(frame)
                    default:
                        break  // nothing else is the agent's: ignored
                    }
                    return !broken
                }
                relay?.flush()
                if broken { break }
            } catch {
                break
            }
        }
        relay?.end()
        control.clientsWake.notify()  // the server closed (or broke) the control connection: the run is over
    }
}

/// A clock round while the clients run: ``AgentRunner/clockProbes`` probes, one at a time, each sent when the last
/// one's reply came in; the best of them is reported to the server (``ClockEstimate``).
struct ClockRound {
    private var exchanges: [(reply: ClockProbe, t4: UInt64)] = []
    /// The probe out now (its send time); a reply of another is a late one of an earlier round.
    private var pending: UInt64 = 0

    /// Sends the next probe.
    mutating func sendProbe(on socket: Int32, writeLock: SocketWriteLock?) throws(SystemError) {
        pending = MonotonicClock.now()
        try Self.write(on: socket, writeLock: writeLock) { ClockProbe(t1: pending).encode(.clockProbe, into: $0) }
    }

    /// Takes a clock reply read just now: nil while the round goes on; once it is over, its estimate (reported to the
    /// server), or .some(nil) when none could be true.
    mutating func take(_ frame: Frame, on socket: Int32, writeLock: SocketWriteLock?) throws(SystemError) -> ClockEstimate?? {
        let t4 = MonotonicClock.now()
        let reply = ClockProbe(frame)
        guard reply.t1 == pending else { return nil }
        exchanges.append((reply, t4))
        guard exchanges.count == AgentRunner.clockProbes else {
            try sendProbe(on: socket, writeLock: writeLock)
            return nil
        }
        guard let estimate = ClockEstimate.best(of: exchanges) else { return .some(nil) }
        try Self.write(on: socket, writeLock: writeLock) { estimate.encode(into: $0) }
        return estimate
    }

    /// Writes a clock frame made by `encode`, whole, under `writeLock` when given.
    private static func write(
        on socket: Int32, writeLock: SocketWriteLock?, _ encode: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(SystemError) {
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.clockFrameSize, alignment: 8)
        defer { frame.deallocate() }
        encode(frame)
        if let writeLock {
            try writeLock.send(UnsafeRawBufferPointer(frame), on: socket)
        } else {
            try Posix.sendAll(socket, UnsafeRawBufferPointer(frame))
        }
    }
}

/// In an agent of a roundtrip target run: the send orders that come on the control connection, passed on to the
/// threads whose clients they are for, over a socket pair each (the pair's other end is the thread's ``ClientGroup``'s
/// end signal), gathered per read of the control connection and written whole.
final class OrderRelay {
    private var shares: [(ids: Range<Int>, end: SharedDescriptor, pending: [UInt8])] = []

    /// Adds a thread's share: `ids`, reached at `end` (which the relay closes at its end).
    func add(_ ids: Range<Int>, at end: SharedDescriptor) {
        var pending: [UInt8] = []
        pending.reserveCapacity(64 << 10)
        shares.append((ids, end, pending))
    }

    /// An order from the collector: kept for the share of its client (one of none is dropped).
    func take(_ frame: Frame) {
        guard let share = shares.firstIndex(where: { $0.ids.contains(Int(frame.client)) }) else { return }
        shares[share].pending.append(contentsOf: UnsafeRawBufferPointer(frame.bytes))
    }

    /// An order for every share (``FrameKind/dropConnections``).
    func takeForEveryShare(_ frame: Frame) {
        for share in shares.indices { shares[share].pending.append(contentsOf: UnsafeRawBufferPointer(frame.bytes)) }
    }

    /// Writes what each share was given (a thread gone takes nothing: its orders are dropped, and the collector hears
    /// of its clients' end from their reports).
    func flush() {
        for share in shares.indices where !shares[share].pending.isEmpty {
            try? Posix.sendAll(shares[share].end.rawValue, shares[share].pending)
            shares[share].pending.removeAll(keepingCapacity: true)
        }
    }

    /// Closes every share's pair: its thread sees the end.
    func end() {
        for share in shares { share.end.close() }
        shares = []
    }
}
