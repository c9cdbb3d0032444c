import BenchCore
import BenchNet
import BenchProtocols

/// Roundtrip and chat: what a group needs to send its clients' own messages when the measuring thread orders them: each
/// client's message as its protocol wraps it (the same payload for all, but for a chat room's name in `{room}`; MQTT's
/// and NATS's topic is the client's own, in chat its room's),
/// rewritten in place per send from copies made once, and with kernel stamps, each connection's messages that wait
/// for their transmit stamp.
final class OwnMessages {
    /// Per client (by its place in the group): its message as its protocol sends it, and where its marker goes in it.
    let messages: [[UInt8]]
    let markerOffsets: [Int]
    /// Per client (by its place in the group): where a packet identifier (MQTT at QoS 1 or 2) or a message id (a
    /// described protocol's `{message_id}`) is rewritten per message, from the start of the message.
    let packetIDOffsets: [Int?]
    let messageIDOffsets: [Int?]
    /// The framing rewritten around each message (stx: its CRC covers the marker).
    let framing: MessageFraming?
    /// One message at a time, rewritten per send (a WebSocket client masks what it sends in place).
    let scratch: UnsafeMutableRawBufferPointer
    /// With kernel stamps: per connection, the sequences sent that wait for their transmit stamp.
    var transmitStamps: [TransmitStampQueue]
    /// With kernel stamps: the places that wrote since their stamps were last taken, each once, and which they are.
    private(set) var wroteSinceStamps: [Int] = []
    private var hasWrittenSinceStamps: [Bool] = []

    /// The messages of `sessions`' clients (`clients` by place; in chat, in rooms `rooms`): the template's `{client}` and
    /// `{room}` each one's; a tcp target's message is `--payload` bytes with its framing, as is a ws target's; the
    /// others wrap the payload in their protocol's bytes.
    init(
        _ configuration: RunConfiguration, sessions: [ProtocolSession], clients: Range<Int>, rooms: [Int]?,
        stampsTransmits: Bool
    ) {
        let framing = sessions.first?.framing
        let overhead = (framing?.headerSize ?? 0) + (framing?.trailerSize ?? 0)
        let template = configuration.target?.publishTemplate ?? .bare
        self.framing = framing
        var messages: [[UInt8]] = [], markerOffsets: [Int] = [], packetIDOffsets: [Int?] = [], messageIDOffsets: [Int?] = []
        for (place, session) in sessions.enumerated() {
            let own = template.filling("client", with: clients.lowerBound + place)
            let expanded = (rooms.map { own.filling("room", with: $0[place]) } ?? own).expand(size: configuration.payload - overhead)
            let (publication, markerOffset) = session.machine.publication(of: expanded.bytes, markerAt: expanded.markerOffset)
            messages.append(publication.bytes)
            markerOffsets.append(markerOffset)
            packetIDOffsets.append(publication.packetIDOffset)
            messageIDOffsets.append(publication.messageIDOffset)
        }
        (self.messages, self.markerOffsets) = (messages, markerOffsets)
        (self.packetIDOffsets, self.messageIDOffsets) = (packetIDOffsets, messageIDOffsets)
        scratch = .allocate(byteCount: max(messages.map(\.count).max() ?? 0, 1), alignment: 8)
        transmitStamps = stampsTransmits ? sessions.map { _ in TransmitStampQueue() } : []
        if stampsTransmits {
            wroteSinceStamps.reserveCapacity(sessions.count)
            hasWrittenSinceStamps = Array(repeating: false, count: sessions.count)
        }
    }

    /// Notes that client `place` wrote a message whose transmit stamp is to be taken.
    @inline(__always)
    func wrote(at place: Int) {
        guard !hasWrittenSinceStamps[place] else { return }
        hasWrittenSinceStamps[place] = true
        wroteSinceStamps.append(place)
    }

    /// Forgets who wrote: their stamps were taken.
    @inline(__always)
    func stampsTaken() {
        for place in wroteSinceStamps { hasWrittenSinceStamps[place] = false }
        wroteSinceStamps.removeAll(keepingCapacity: true)
    }

    /// Client `place`'s message `sequence`, marked as client `client`'s of run `token`, ready to send.
    @inline(__always)
    func message(at place: Int, sequence: UInt32, client: UInt32, token: UInt64) -> UnsafeMutableRawBufferPointer {
        let size = messages[place].count
        messages[place].withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: scratch[0..<size]).copyMemory(from: $0) }
        let message = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<size])
        Publication.mark(
            message, with: Marker(run: token, client: client, sequence: sequence), at: markerOffsets[place],
            framing: framing, packetIDAt: packetIDOffsets[place], messageIDAt: messageIDOffsets[place])
        return message
    }

    deinit {
        scratch.deallocate()
    }
}

extension ClientGroup {
    /// Reads the orders waiting on the channel and carries out each: a message to send (roundtrip, chat), or every
    /// connection to drop (``FrameKind/dropConnections``); false when the channel ended (or sent what is no order):
    /// the group's end.
    func readOrders() -> Bool {
        let result: IOResult<Int>
        do {
            result = try Posix.read(endSignal, into: loop.readBuffer)
        } catch {
            return false  // the channel broke: the run is gone
        }
        guard case .processed(let count) = result else { return true }  // nothing yet
        guard count > 0 else { return false }
        var fits = true
        do {
            _ = try orders.decode(UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer[0..<count])) { frame in
                switch frame.kind {
                case .data where own != nil && ids.contains(Int(frame.client)):
                    send(sequence: frame.sequence, client: frame.client)
                case .dropConnections:
                    dropConnections()
                default:
                    fits = false
                }
                return fits
            }
        } catch {
            return false
        }
        return fits
    }

    /// Takes the transmit stamps of the writes just sent. On loopback the kernel makes each within its send, so the
    /// write's report and its stamp leave this thread in one flush: the measuring thread, which waits for a stamp only
    /// ``MessageLedger/stampGrace`` after the write, never settles a message whose stamp waits here for a later pass
    /// (on a busy machine that pass can come later than the grace). A stamp not made yet comes with its EPOLLERR.
    func takeFreshTransmitStamps() {
        guard loop.stamps != nil, let own, !own.wroteSinceStamps.isEmpty else { return }
        if publisher != nil {
            drainPublisherStamps()
        } else {
            for place in own.wroteSinceStamps { drainTransmitStamps(place) }
        }
        own.stampsTaken()
    }

    /// Sends client `client`'s message `sequence` and reports what became of it: written at the time taken right
    /// before the write, or not written and why.
    @inline(__always)
    func send(sequence: UInt32, client: UInt32) {
        let place = Int(client) - ids.lowerBound
        // A Redis chat member publishes on its group's publishing connection (its own is subscribed).
        guard let member = table[place], member.isOpen, sessions[place].isReady,
            let connection = publisher == nil ? member : publisher!.connection, connection.isOpen
        else {
            return reports.sent(SendReport(.droppedClosed, sequence: sequence, client: client, time: MonotonicClock.now()))
        }
        let message = own!.message(at: place, sequence: sequence, client: client, token: configuration.token)
        let time = MonotonicClock.now()
        let session = publisher == nil ? sessions[place] : publisher!.session
        guard session.willPublish(message) else {  // its flow-control window, its streams at once
            return reports.sent(SendReport(.droppedQueueFull, sequence: sequence, client: client, time: time))
        }
        // Behind a link, the message leaves the client when it enters the link, at `time`: that is its transmit stamp.
        let stamped = loop.stamps != nil && !connection.isLinked
        do {
            if try connection.send(message, stamped: stamped) == .dropped {
                session.publicationNotSent(message)
                return reports.sent(SendReport(.droppedQueueFull, sequence: sequence, client: client, time: time))
            }
        } catch {
            reports.sent(SendReport(.droppedClosed, sequence: sequence, client: client, time: time))
            return close(place, reason: "write failed: \(error)")
        }
        reports.sent(SendReport(.written, sequence: sequence, client: client, time: time))
        guard loop.stamps != nil else { return }
        guard stamped else {
            return reports.sent(SendReport(.transmitStamp, sequence: sequence, client: client, time: time))
        }
        if let publisher {
            let key = GroupPublisher<T>.stampKey(sequence: sequence, client: client)
            _ = publisher.transmitStamps?.expect(message: key, lastByte: connection.bytesTaken &- 1)
        } else {
            _ = own!.transmitStamps[place].expect(message: Int(sequence), lastByte: connection.bytesTaken &- 1)
        }
        own!.wrote(at: place)
    }

    /// Takes every transmit stamp waiting on connection `place` and reports each with the message it stamps.
    func drainTransmitStamps(_ place: Int) {
        // A closed connection's number may be another socket's by now (another thread's): its stamps are not ours.
        guard let stamps = loop.stamps, let connection = table[place], connection.isOpen else { return }
        let client = UInt32(ids.lowerBound + place)
        while let stamp = try? stamps.nextTransmitStamp(on: connection.descriptor) {
            own!.transmitStamps[place].stamp(key: stamp.key, time: stamp.time) { sequence, time in
                reports.sent(SendReport(.transmitStamp, sequence: UInt32(truncatingIfNeeded: sequence), client: client, time: time))
            }
        }
    }
}
