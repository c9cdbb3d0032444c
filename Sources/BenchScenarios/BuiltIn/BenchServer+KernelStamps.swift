import BenchCore
import BenchNet

extension BenchServer {
    /// With kernel stamps: message `index` was just written (or queued) to the connection in `slot`; its transmit
    /// stamp will come on the socket's error queue, keyed by the offset of its last byte. The connection's queue of
    /// messages waiting for theirs is made at its first such write, once: in fanout only a broadcast's first write is
    /// stamped, and most connections never have one (a queue is 450 bytes of each connection's memory).
    @inline(__always)
    func expectTransmitStamp(ofMessage index: Int, slot: Int) {
        let lastByte = peers[slot].connection.bytesTaken &- 1
        if peers[slot].transmitStamps == nil { peers[slot].transmitStamps = TransmitStampQueue() }
        _ = peers[slot].transmitStamps!.expect(message: index, lastByte: lastByte)  // a message given up keeps 0
    }

    /// Takes every transmit stamp waiting on the connection in `slot`'s error queue and gives each to the messages
    /// it stamps. The error queue makes epoll report the socket with `EPOLLERR` until it is drained.
    func drainTransmitStamps(slot: Int) {
        guard let stamps else { return }
        let descriptor = peers[slot].connection.descriptor
        while true {
            let stamp: (key: UInt32, time: UInt64)?
            do {
                stamp = try stamps.nextTransmitStamp(on: descriptor)
            } catch {
                return  // the socket's own error: its next read reports it and closes the connection
            }
            guard let stamp else { return }
            peers[slot].transmitStamps?.stamp(key: stamp.key, time: stamp.time) { message, time in
                recording.ledger.transmitStamp(message, at: time)
            }
        }
    }
}
