import BenchCore
import BenchNet
import Glibc
import Synchronization

/// The run's process's side of a chat relay in several processes (`--server-procs`): each relay process
/// (``ServerShards/serveChatRooms(_:place:channel:control:)``) says where it listens and how many members joined, and at the end,
/// once asked to stop, what it did. Every frame is read as untrusted input: one that does not decode ends that process
/// as failed (and its process group is killed).
final class ChatRelayProcesses: Sendable {
    /// One relay process as the run's process sees it.
    struct Relay {
        let channel: ChildChannel
        var reader = ShardFrameReader()
        var port: UInt16?
        var joined = 0
        var summary: ShardSummary?
        var failure: String?
        var closed = false
    }

    private let relays: Mutex<[Relay]>

    /// The relay processes at the other ends of `channels`, in their order (their places).
    init(_ channels: [ChildChannel]) throws(RunError) {
        do {
            for channel in channels { try Posix.setNonBlocking(channel.descriptor) }
        } catch {
            throw .system(error)
        }
        relays = Mutex(channels.map { Relay(channel: $0) })
    }

    /// The port each relay process listens on, once every one said it (a relay that could not run, or none by
    /// `deadline`, or Ctrl-C, fails the run's setup).
    func ports(by deadline: UInt64, control: RunControl) throws(RunError) -> [UInt16] {
        while true {
            let (ports, failure) = relays.withLock { relays in
                for index in relays.indices { Self.read(&relays[index]) }
                let failed = relays.indices.first { relays[$0].port == nil && relays[$0].closed }
                return (relays.compactMap(\.port), failed.map { "server process \($0) \(relays[$0].failure ?? "ended")" })
            }
            if let failure { throw .setupFailed(failure) }
            if ports.count == relays.withLock({ $0.count }) { return ports }
            if control.isStopRequested { throw .setupFailed("the run was interrupted before its relay processes listened") }
            if MonotonicClock.now() > deadline {
                throw .setupFailed("\(ports.count) of \(relays.withLock { $0.count }) relay processes listened within the setup time")
            }
            Posix.sleep(nanoseconds: ChatRelay.servingPoll)
        }
    }

    /// What the relays still wait for before the run may send: nil once `clients` members joined their rooms.
    func stillWaiting(for clients: Int) -> String? {
        let joined = relays.withLock { relays in
            for index in relays.indices { Self.read(&relays[index]) }
            return relays.reduce(0) { $0 + $1.joined }
        }
        return joined >= clients ? nil : "the relays had \(joined) of them in their rooms"
    }

    /// Asks every relay process to stop (this end of its channel closed for writing) and waits for each one's summary
    /// or end, at most `grace`; those still running then are killed. Returns every relay as it ended.
    func finish(grace: UInt64) -> [Relay] {
        relays.withLock { relays in
            for relay in relays where !relay.closed { Posix.shutdownWriting(relay.channel.descriptor) }
            let deadline = MonotonicClock.now().addingClamped(grace)
            while relays.contains(where: { $0.summary == nil && !$0.closed }) {
                for index in relays.indices where relays[index].summary == nil { Self.read(&relays[index]) }
                guard MonotonicClock.now() < deadline else {
                    for index in relays.indices where relays[index].summary == nil && !relays[index].closed {
                        Posix.signal(-pid_t(relays[index].channel.processID), SIGKILL)
                        relays[index].closed = true
                        relays[index].failure = "was still running \(DurationText.display(grace)) after it was asked to stop, and was killed"
                    }
                    break
                }
                Posix.sleep(nanoseconds: ChatRelay.servingPoll)
            }
            return relays
        }
    }

    /// Takes what `relay` sent until it would block: its frames, or its end (`closed`, with why when it did not end
    /// with its summary).
    private static func read(_ relay: inout Relay) {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !relay.closed {
            let result: IOResult<Int>
            do {
                result = try buffer.withUnsafeMutableBytes { bytes throws(SystemError) in
                    try Posix.read(relay.channel.descriptor, into: bytes)
                }
            } catch {
                relay.failure = relay.failure ?? "could not be read (\(error))"
                relay.closed = true
                break
            }
            guard case .processed(let count) = result else { return }
            guard count > 0 else {
                relay.closed = true
                if relay.summary == nil && relay.failure == nil {
                    relay.failure = ShardedRun.howItEnded(relay.channel.processID)
                }
                return
            }
            var reader = relay.reader
            do {
                try buffer.withUnsafeBytes { bytes in
                    try reader.take(UnsafeRawBufferPointer(rebasing: bytes[..<count])) { kind, body in
                        take(kind, body, into: &relay)
                    }
                }
            } catch {
                relay.failure = relay.failure ?? "sent \(error)"
            }
            relay.reader = reader
            if relay.failure != nil && relay.summary == nil {
                relay.closed = true
                Posix.signal(-pid_t(relay.channel.processID), SIGKILL)
            }
        }
    }

    /// One frame from a relay process.
    private static func take(_ kind: ShardFrame.Kind, _ body: UnsafeRawBufferPointer, into relay: inout Relay) {
        switch kind {
        case .ready where body.count == 2 && relay.port == nil:
            let port = UInt16(littleEndian: body.loadUnaligned(as: UInt16.self))
            if port == 0 { relay.failure = relay.failure ?? "said it listens on port 0" } else { relay.port = port }
        case .joined where body.count == 8:
            relay.joined = Int(clamping: UInt64(littleEndian: body.loadUnaligned(as: UInt64.self)))
        case .summary:
            relay.summary = ShardSummary(decoding: body, clients: 0)
            if relay.summary == nil { relay.failure = relay.failure ?? "sent a summary that is none" }
        case .failure:
            relay.failure = "could not run: " + String(decoding: body.prefix(2_048), as: UTF8.self)
        default:
            relay.failure = relay.failure ?? "sent what no chat relay process sends"
        }
    }
}
