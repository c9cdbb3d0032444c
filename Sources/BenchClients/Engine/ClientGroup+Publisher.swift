import BenchCore
import BenchNet
import BenchProtocols

/// Chat through Redis: a subscribed Redis connection cannot publish, so a group of members has one more connection
/// that publishes their messages (each as its member's own session writes it: `PUBLISH CHANNEL:<room>`), opened before
/// any member's, and whose answers (how many received it) are read and left.
final class GroupPublisher<T: Transport> {
    var connection: Connection<T>?
    let session: ProtocolSession
    /// Connected and greeted (its AUTH sent): the members may connect.
    var isEstablished = false
    /// Its connect could not start: every member was closed, once, and it is not tried again.
    var couldNotStart = false
    /// With kernel stamps: the messages sent on it that wait for their transmit stamp, keyed `sender << 32 | sequence`;
    /// as many as `members` connections of their own would hold.
    var transmitStamps: TransmitStampQueue?

    init(_ kind: ServerProtocol, maximumMessageSize: Int, stampsTransmits: Bool, members: Int) {
        session = ProtocolSession(kind, role: .publisher, maximumMessageSize: maximumMessageSize)
        transmitStamps = stampsTransmits ? TransmitStampQueue(capacity: members * TransmitStampQueue.defaultCapacity) : nil
    }

    /// The run's chat members' subscribed connections cannot publish (Redis's): they need one.
    static func needed(_ configuration: RunConfiguration) -> Bool {
        configuration.scenario == .chat && configuration.target?.url.scheme.record.subscribersCannotPublish == true
    }

    /// The key of `client`'s message `sequence` in ``transmitStamps``.
    @inline(__always)
    static func stampKey(sequence: UInt32, client: UInt32) -> Int { Int(client) << 32 | Int(sequence) }
}

extension ClientGroup {
    static var publisherToken: UInt64 { .max }

    /// Starts the publishing connection's connect, once; false while the members must wait for it.
    func openPublisher() -> Bool {
        guard let publisher else { return true }
        if publisher.connection == nil && !publisher.couldNotStart {
            do {
                // On epoll, not the ring: its reads are Redis's answers to PUBLISH, read and left. Behind the link of
                // the group's first member, its connect not held for the link's handshake (no table lets it end).
                let connection = try loop.connect(
                    client: ids.lowerBound, routes: routes, from: source(ofPlace: 0), token: Self.publisherToken,
                    transmitStamps: true, onRing: false)
                connection.connectNotBefore = 0
                publisher.connection = connection
            } catch {
                publisher.couldNotStart = true
                for place in 0..<table.count {
                    report(.closed, place, "the members' publishing connection to \(target) could not start: \(error)")
                }
                table.abandonTheRest()  // nobody connects: every member is closed
            }
        }
        return publisher.isEstablished
    }

    /// The publishing connection's events: its connect, its greeting, Redis's answers (left), or its end.
    func handlePublisher(_ events: EpollEvents) {
        guard let publisher, let connection = publisher.connection, connection.isOpen else { return }
        do {
            if loop.stamps != nil && events.contains(.error) { drainPublisherStamps() }
            if events.contains(.writable) { try connection.writeQueued() }
            // Its session opens before it reads what the server said first, and after a read that ended its handshakes.
            func openIfEstablished() throws {
                guard !publisher.isEstablished && connection.isEstablished else { return }
                publisher.isEstablished = true
                try publisher.session.open(on: connection, name: "p\(ids.lowerBound)")
            }
            try openIfEstablished()
            if !events.isDisjoint(with: [.readable, .hangUp, .error]),
                case .processed(let (count, _)) = try connection.read(into: loop.readBuffer)
            {
                guard count > 0 else { return closePublisher(reason: "closed by \(target)") }
                _ = try connection.receiveBytes(loop.readBuffer, count: count) { bytes, endsMessage in
                    (try? publisher.session.received(bytes, endsMessage: endsMessage) { _ in }) != nil
                }
            }
            try openIfEstablished()
        } catch {
            closePublisher(reason: "\(error)")
        }
    }

    /// Closes the publishing connection: the members' messages from now on are lost (not written), and the run says why.
    func closePublisher(reason: String) {
        guard let connection = publisher?.connection, connection.isOpen else { return }
        connection.close()
        reports.report(ClientReport(
            .note, client: UInt32(ids.lowerBound), time: MonotonicClock.now(),
            text: "the publishing connection of members \(ids.lowerBound) to \(ids.upperBound - 1) closed: \(reason)"))
    }

    /// Takes every transmit stamp waiting on the publishing connection and reports each with its message.
    func drainPublisherStamps() {
        guard let stamps = loop.stamps, let publisher, let connection = publisher.connection, connection.isOpen else { return }
        while let stamp = try? stamps.nextTransmitStamp(on: connection.descriptor) {
            publisher.transmitStamps?.stamp(key: stamp.key, time: stamp.time) { key, time in
                reports.sent(SendReport(
                    .transmitStamp, sequence: UInt32(truncatingIfNeeded: key), client: UInt32(key >> 32), time: time))
            }
        }
    }
}
