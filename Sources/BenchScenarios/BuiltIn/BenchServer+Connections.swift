import BenchCore
import BenchNet

/// Clients coming and going during the run: silent ones taken for dead, `--drop-connections-at`, clients that come
/// back (`--reconnect`), and the goodbye that tells them the run is over.
extension BenchServer {
    /// True while client `client` has an open connection that said hello.
    func isConnected(_ client: Int) -> Bool {
        let slot = slotOfClient[client]
        return slot >= 0 && peers[slot].connection.isOpen
    }

    /// Disconnects clients the server has heard nothing from for `deadAfter`: their owed messages are lost.
    func disconnectSilentClients(at now: UInt64) {
        for client in 0..<configuration.clients {
            guard isConnected(client), now - lastHeard[client] > configuration.deadAfter else { continue }
            tally.deadClients.append(client)
            let silence = DurationText.format((now - lastHeard[client]) / 1_000_000 * 1_000_000)
            closePeer(
                slot: slotOfClient[client], reason: "silent for \(silence) (no echo, no heartbeat): taken for dead",
                at: now)
        }
    }

    /// `--drop-connections-at`: once that long after sending began, closes every client's connection (not an agent's
    /// control connection), without a goodbye, as a server restart would. What was in flight to them is lost.
    func dropConnectionsIfDue(at now: UInt64) {
        guard let drop = configuration.dropConnectionsAt, isRunning, !isStopping, tally.connectionsDroppedAt == 0,
            now >= recording.startNanoseconds &+ drop
        else { return }
        tally.connectionsDroppedAt = now
        for client in 0..<configuration.clients where isConnected(client) {
            closePeer(
                slot: slotOfClient[client], reason: "closed by --drop-connections-at \(DurationText.format(drop))",
                code: WebSocketCloseCode.goingAway, at: now)
        }
    }

    /// Client `client`'s connection closed during the run: its outage begins (it may come back: a client that knows
    /// the run's token may say hello again).
    func clientLeft(_ client: Int, at now: UInt64) {
        guard isRunning else { return }
        if liveClients == 0 { emptySince = now }
        guard outages.count < RunRecording.maximumOutages else { return }
        outageOfClient[client] = outages.count
        outages.append(ClientOutage(client: client, closed: now))
    }

    /// Client `client` said hello again during the run: its outage ends, and in closed-loop roundtrip its next message
    /// goes (the messages due while it was away were lost, or, in closed loop, never due).
    func clientReturned(_ client: Int, at now: UInt64) {
        let outage = outageOfClient[client]
        if outage >= 0 {
            outages[outage].back = now
            outageOfClient[client] = -1
        }
        returnedClients += 1
        emptySince = 0
        if configuration.offlineQueue { sendHeldMessages(of: client) }
        _ = driver.unpark(client)
    }

    /// `--offline-queue`: message `index` fell due while its client was away: it is in flight from `due` on (its rtt
    /// will count the wait; its timeout runs), and goes when the client is back.
    func holdUntilBack(_ index: Int, sequence: Int, client: Int, due: UInt64) {
        written(index, at: due)
        if offlineMessages[client].count >= recording.ledger.window {
            // A client away for longer than the ring holds: its oldest held messages were handed on (timed out).
            offlineMessages[client].removeAll { $0.sequence < recording.ledger.flushedUpTo }
        }
        offlineMessages[client].append((sequence, index))
    }

    /// `--offline-queue`: the client is back: the messages held for it that are still in flight (not past their
    /// timeout, their row not handed on) go now, in order, each stamped with when it fell due.
    private func sendHeldMessages(of client: Int) {
        let slot = slotOfClient[client]
        let frame = Frame(kind: .data, bytes: message)
        let now = MonotonicClock.now()
        for (sequence, index) in offlineMessages[client]
        where sequence >= recording.ledger.flushedUpTo && recording.ledger.outcome[index] == .written
            && isConnected(client) && now < recording.ledger.written[index] &+ configuration.timeout {
            let due = recording.ledger.written[index]
            frame.setMessageFields(sequence: UInt32(truncatingIfNeeded: sequence), client: UInt32(client), sentNanoseconds: due)
            record(Self.send(message, on: peers[slot].connection, stamped: false), ofMessage: index, slot: slot, at: due, stamped: false)
        }
        offlineMessages[client].removeAll(keepingCapacity: true)
    }

    /// With no client left: true while they may still come back, in a run that expects reconnects, until `deadAfter`
    /// (or, when that is 0, a timeout) has passed since the last one left.
    func isWaitingForReturns(at now: UInt64) -> Bool {
        guard configuration.expectsReconnects, isRunning, !isStopping, emptySince > 0 else { return false }
        return now < emptySince &+ configuration.returnGrace
    }

    /// The end of the run: a goodbye to every client still connected, so that the close that follows is not taken for
    /// a drop (a client with `--reconnect` would come back).
    func sayGoodbye() {
        let goodbye = UnsafeMutableRawBufferPointer.allocate(byteCount: WireFormat.heartbeatFrameSize, alignment: 8)
        defer { goodbye.deallocate() }
        for client in 0..<configuration.clients where isConnected(client) {
            Frame.encodeGoodbye(into: goodbye, client: UInt32(client))
            _ = try? peers[slotOfClient[client]].connection.send(goodbye, stamped: false)
        }
    }
}
