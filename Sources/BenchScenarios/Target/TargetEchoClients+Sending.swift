import BenchCore
import BenchNet

/// Sending: each message's send and transmit stamp (the timetable, the closed loop and settling are the measuring
/// core's: ``MeasuringRole``).
extension TargetEchoClients {
    /// Sends message `index` to its client's connection; true when written.
    @discardableResult
    func sendMessage(_ index: Int, sequence: Int, scheduled: UInt64) -> Bool {
        let client = index % configuration.clients
        recording.scheduled[index] = scheduled
        let peer = peers[client]
        let time = MonotonicClock.now()
        driver.dispatched(1, at: time)
        guard peer.connection.isOpen else {
            settle(index, as: .droppedClosed)
            return false
        }
        let message = peer.prepare(
            Marker(run: configuration.token, client: UInt32(client), sequence: UInt32(truncatingIfNeeded: sequence)))
        do {
            if try peer.connection.send(message, stamped: stamps != nil) == .dropped {
                recording.queueFullDrops[client] += 1
                settle(index, as: .droppedQueueFull)
                return false
            }
        } catch {
            settle(index, as: .droppedClosed)
            close(client, reason: "write failed: \(error)")
            return false
        }
        recording.markWritten(index, at: time)
        if stamps != nil { peer.expectTransmitStamp(ofMessage: index) }
        return true
    }

    /// Takes every transmit stamp waiting on `client`'s socket and gives each to the messages it stamps.
    func drainTransmitStamps(_ client: Int) {
        guard let stamps else { return }
        let peer = peers[client]
        while let stamp = try? stamps.nextTransmitStamp(on: peer.connection.descriptor) {
            peer.transmitStamps?.stamp(key: stamp.key, time: stamp.time) { message, time in
                recording.writtenKernel[message] = time
            }
        }
    }
}
