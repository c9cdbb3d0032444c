import BenchClients
import BenchCore
import BenchNet
import Glibc
import Synchronization

/// The run's process's side of a chat relay in several processes (`--server-procs`): each relay process
/// (``ServerShards/serveChatRooms(_:place:channel:control:)``) says where it listens and how many members joined, and
/// at the end, once told to stop, what it did (``ServerProcess``: every frame untrusted).
final class ChatRelayProcesses: Sendable {
    /// What a relay process's own frames said: its port, and its members that joined.
    struct Relay {
        var port: UInt16?
        var joined = 0
    }

    private let relays: Mutex<[ServerProcess<Relay>]>

    /// The relay processes at the other ends of `channels`, in their order (their places).
    init(_ channels: [ChildChannel]) throws(RunError) {
        do {
            for channel in channels { try Posix.setNonBlocking(channel.descriptor) }
        } catch {
            throw .system(error)
        }
        relays = Mutex(channels.map { ServerProcess(channel: $0, clients: 0, state: Relay()) })
    }

    /// The port each relay process listens on, once every one said it (in moments: the run, even an interrupted one,
    /// goes on from there). A relay that could not run, or ended, or none by `deadline` (or a second after Ctrl-C),
    /// fails the run's setup.
    func ports(by deadline: UInt64, control: RunControl) throws(RunError) -> [UInt16] {
        var deadline = deadline
        while true {
            let (ports, count) = try relays.withLock { relays throws(RunError) in
                try Self.readAll(&relays)
                return (relays.compactMap(\.state.port), relays.count)
            }
            if ports.count == count {
                guard Set(ports).count == count else { throw .setupFailed("two relay processes said the same port") }
                return ports
            }
            if control.isStopRequested { deadline = min(deadline, MonotonicClock.now().addingClamped(1_000_000_000)) }
            if MonotonicClock.now() > deadline {
                throw .setupFailed("\(ports.count) of \(count) relay processes listened within the setup time")
            }
            Posix.sleep(nanoseconds: ChatRelay.servingPoll)
        }
    }

    /// What the relays still wait for before the run may send: nil once `clients` members joined their rooms (a relay
    /// process that ended is said by ``failure``: its members' connections closed, which fails the setup).
    func stillWaiting(for clients: Int) -> String? {
        let joined = relays.withLock { relays in
            try? Self.readAll(&relays)
            return relays.reduce(0) { $0 + $1.state.joined }
        }
        return joined >= clients ? nil : "the relays had \(joined) of them in their rooms"
    }

    /// Why the relay processes could not carry the run, when one did not: the first that ended without its summary
    /// (their channels read first: a relay's end closes its channel before its members see theirs close).
    var failure: String? {
        relays.withLock { relays in
            try? Self.readAll(&relays)
            return Self.failure(of: relays)
        }
    }

    private static func failure(of relays: [ServerProcess<Relay>]) -> String? {
        guard let index = relays.indices.first(where: { relays[$0].closed && relays[$0].summary == nil }) else { return nil }
        return "server process \(index) (pid \(relays[index].channel.processID)) \(relays[index].failure ?? "ended")"
    }

    /// Tells every relay process to stop (this end of its channel closed for writing) and waits for each one's
    /// summary or end, at most `grace`; those still running then are killed. Returns every relay as it ended.
    func finish(grace: UInt64) -> [ServerProcess<Relay>] {
        relays.withLock { relays in
            for relay in relays where !relay.closed { Posix.shutdownWriting(relay.channel.descriptor) }
            let deadline = MonotonicClock.now().addingClamped(grace)
            while relays.contains(where: { $0.summary == nil && !$0.closed }) {
                try? Self.readAll(&relays)
                guard MonotonicClock.now() < deadline else {
                    for index in relays.indices where relays[index].summary == nil && !relays[index].closed {
                        relays[index].kill(because: "was still running \(DurationText.display(grace)) after it was told to stop, and was killed")
                    }
                    break
                }
                Posix.sleep(nanoseconds: ChatRelay.servingPoll)
            }
            return relays
        }
    }

    /// Reads what every relay process sent; throws for the first that ended (or failed) without its summary.
    private static func readAll(_ relays: inout [ServerProcess<Relay>]) throws(RunError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4_096, alignment: 8)
        defer { buffer.deallocate() }
        for index in relays.indices { relays[index].read(into: buffer, take: take) }
        if let failure = Self.failure(of: relays) { throw .setupFailed(failure) }
    }

    /// One frame of a relay process's own: its port, or its members that joined (at most every member of the run).
    private static func take(_ kind: ShardFrame.Kind, _ body: UnsafeRawBufferPointer, into relay: inout Relay) -> String? {
        switch kind {
        case .ready where body.count == 2 && relay.port == nil:
            let port = UInt16(littleEndian: body.loadUnaligned(as: UInt16.self))
            guard port != 0 else { return "said it listens on port 0" }
            relay.port = port
        case .joined where body.count == 8:
            let joined = UInt64(littleEndian: body.loadUnaligned(as: UInt64.self))
            guard joined <= UInt64(RunConfiguration.Limits.clients.upperBound) else { return "said more members joined than a run has" }
            relay.joined = Int(joined)
        default:
            return "sent what no chat relay process sends"
        }
        return nil
    }
}
