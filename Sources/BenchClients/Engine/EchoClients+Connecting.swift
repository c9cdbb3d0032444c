import BenchCore
import BenchNet

/// Connections coming and going: the hellos, the closes, and what a close means (the setup failing, or, with
/// `--reconnect`, a try again).
extension EchoClients {
    /// The client at `position` finished its handshakes: keeps its connect time (the first time) and sends its hello.
    /// False (after telling the server) when a first hello fails; a reconnect's that fails is a drop.
    func sayHello(position: Int) -> Bool {
        guard let connection = table[position] else { return true }
        let client = ids.lowerBound + position
        let connectTime = table.handshakesDone(position)
        let isReconnect = joined[position]
        returnUnconfirmed[position] = isReconnect
        if isReconnect {
            tally.reconnects += 1
        } else {
            joined[position] = true
            joinedCount += 1
            reports.report(ClientReport(
                .subscribed, client: UInt32(client), time: max(1, connectTime ?? 0), text: phases(of: connection)?.text ?? ""))
            if joinedCount == ids.count { allConnected() }  // the connects were setup; the load counts from here
        }
        let session = sessions[position]
        session.connected()
        do {
            var dropped = 0
            try sendOwed(by: session, on: connection, counting: &dropped)
            return true
        } catch {
            guard !isReconnect else {
                record(client: client, reason: "could not say hello again: \(error)")
                close(position)
                return true
            }
            control.failSetup("client \(client) could not say hello to \(routes.address(of: client)): \(error)")
            return false
        }
    }

    /// The phases of `connection`'s connect, over a transport that has more than a TCP connect (tls, ws, wss): its TCP
    /// connect, TLS handshake and WebSocket upgrade, adding up to its connect time. Nothing follows them: a hello is
    /// not confirmed.
    func phases(of connection: Connection<T>) -> ConnectPhases? {
        let (tls, webSocket) = (T.Stream.self == TLSStream.self, T.Framing.self == WebSocketFraming.self)
        guard tls || webSocket else { return nil }
        return ConnectPhases(
            started: connection.startedAt, connected: connection.connectedAt,
            streamEstablished: connection.streamEstablishedAt, established: connection.establishedAt,
            ready: connection.establishedAt
        ).having(tls: tls, webSocket: webSocket)
    }

    /// Closes a client's connection. One that ends before its first hello ends the setup: the run cannot have all its
    /// clients (and its place in the connect window is free again). With `--reconnect`, a drop after a hello, and a
    /// reconnect that failed, are tried again (``ClientEngine/scheduleReconnect(_:afterUse:)``).
    func close(_ position: Int) {
        guard let wasSettingUp = table.close(position) else { return }
        if !wasSettingUp {
            // A return closed before the server sent anything is its attempt failing (a refused hello); a drop of a
            // connection the server used starts the tries again.
            scheduleReconnect(position, afterUse: !returnUnconfirmed[position])
            return
        }
        if joined[position] {
            scheduleReconnect(position, afterUse: false)
            _ = startDueConnects()  // its place in the connect window is free
            return
        }
        let client = ids.lowerBound + position
        control.failSetup("client \(client) could not connect to \(routes.address(of: client)): closed before its handshake ended")
    }
}
