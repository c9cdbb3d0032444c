import BenchCore
import BenchNet

/// The publisher: the timetable or closed loop, each broadcast's send and t0, and what is settled when.
extension TargetSubscribers {
    /// Publishes broadcast `sequence`; t0 is the time before the send.
    func sendBroadcast(_ sequence: Int, scheduled: UInt64) {
        let clients = configuration.clients
        let row = recording.row(of: sequence)
        recording.scheduled[row] = scheduled
        driver.beginBroadcast(sequence)
        publication.withUnsafeBytes { outgoing.copyMemory(from: $0) }
        Marker(run: configuration.token, client: UInt32(clients), sequence: UInt32(sequence))
            .write(into: UnsafeMutableRawBufferPointer(rebasing: outgoing[markerOffset...]))
        if case .custom(let framing?, _) = publisherSession.kind { framing.frame(outgoing) }  // stx: its CRC
        if let packetIDOffset {  // MQTT at QoS 1 or 2: one identifier per message in flight, never 0
            let identifier = UInt16(sequence % 65_535 + 1)
            outgoing[packetIDOffset] = UInt8(identifier >> 8)
            outgoing[packetIDOffset + 1] = UInt8(identifier & 0xFF)
        }
        let time = MonotonicClock.now()
        recording.broadcastStart[row] = time
        var outcome: Connection<T>.SendOutcome?
        if let publisher, publisher.isOpen {
            do {
                outcome = try publisher.send(outgoing, stamped: stamps != nil)
                if outcome != .dropped {
                    _ = publisherStamps?.expect(message: sequence, lastByte: publisher.bytesTaken &- 1)
                }
            } catch {
                closePublisher(reason: "publishing failed: \(error)")
            }
        }
        if outcome == .dropped {
            // The server does not take the publisher's bytes: this broadcast is lost to everyone, and closed loop
            // waits for the next housekeeping tick before it tries the next one.
            recording.record(ConnectionEvent(
                side: .clients, client: nil, time: time,
                reason: "publisher: the server took no more bytes (--max-queue full): broadcast \(sequence) was not published"))
            publishingPausedUntil = time + 50_000_000
        }
        for client in 0..<clients {
            let index = recording.messageIndex(sequence: sequence, client: client)
            if outcome == .dropped {
                settle(index, as: .droppedQueueFull)
            } else if outcome != nil && subscriberOpen[client] {
                recording.markWritten(index, at: time)
                driver.broadcastMessageWritten()
            } else {
                settle(index, as: .droppedClosed)
            }
        }
        driver.dispatched(clients, at: MonotonicClock.now())
    }

    /// The publisher's transmit stamps: each is its broadcast's t0 as the kernel saw it (every subscriber's write
    /// time, as the built-in server's first write of a broadcast).
    func drainPublisherStamps() {
        guard let stamps, let publisher else { return }
        while let stamp = try? stamps.nextTransmitStamp(on: publisher.descriptor) {
            publisherStamps?.stamp(key: stamp.key, time: stamp.time) { sequence, time in
                guard recording.heldSequences.contains(sequence) else { return }  // handed on without it, long ago
                for client in 0..<configuration.clients {
                    recording.writtenKernel[recording.messageIndex(sequence: sequence, client: client)] = time
                }
            }
        }
    }
}
