import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

/// Fanout's publisher: its connection and what the server says to it, each broadcast's send and t0, and its keepalive.
extension TargetClients {
    /// Starts the publisher's connection (an sse:// target's publisher POSTs to --publish-url, which may be another
    /// address): once during the setup, where a publisher closed without a word fails it at once, and again for each
    /// reconnect try.
    func openPublisher() throws(RunError) {
        guard let publisher else { return }
        if publisher.connection != nil && !publisher.isOpen && !isRunning {
            throw .setupFailed("the publisher's connection to \(target) closed")
        }
        guard publisher.connection == nil else { return }
        do {
            let publishTo = configuration.target?.publishURL.flatMap { SocketAddress(resolving: $0.host, port: $0.port) } ?? address
            var publisherSettings = settings.personalized(by: configuration.target?.identities, client: 0)
            if configuration.target?.url.scheme.record.publishesByPost == true { publisherSettings.tlsALPN = nil }  // POSTs are HTTP/1.1
            try publisher.open(
                to: publishTo, epoll: epoll, token: MeasuringLoop.token(ofPosition: 0),
                settings: publisherSettings,
                maximumQueuedBytes: configuration.maximumQueuedBytes, stamps: stamps)
        } catch {
            throw .setupFailed("cannot connect to \(target): \(error)")
        }
    }

    func handlePublisher(_ events: EpollEvents) throws(RunError) {
        guard let publisher, let connection = publisher.connection, connection.isOpen else { return }
        do {
            if stamps != nil && events.contains(.error) { drainPublisherStamps() }
            if events.contains(.writable) { try connection.writeQueued() }
            // Its session opens before it reads what the server said first, and after a read that ended its handshakes.
            func openIfEstablished() throws {
                guard !publisher.isEstablished && connection.isEstablished && connection.isOpen else { return }
                publisher.isEstablished = true
                try publisher.session.open(
                    on: connection, name: ProtocolSession.connectionName("p", connect: publisher.connectsStarted - 1))
            }
            try openIfEstablished()
            if !events.isDisjoint(with: [.readable, .hangUp, .error]) { try readPublisher(publisher, connection) }
            try openIfEstablished()
            if publisher.awaySince != 0 && publisher.isReady { publisherReturned(publisher) }
        } catch let refusal as RunError {
            throw refusal
        } catch {
            if !isRunning { throw .setupFailed("\(target) refused the publisher: \(error)") }
            let code = (error as? ConnectionError)?.closeCode
                ?? (error is MessageFramingError ? WebSocketCloseCode.messageTooBig : WebSocketCloseCode.normal)
            closePublisher(reason: "\(error)", code: code)
        }
    }

    /// Reads once: the server's greetings, errors and pings to the publisher (a relayed message is not for it).
    func readPublisher(_ publisher: TargetPublisher<T>, _ connection: Connection<T>) throws {
        guard case .processed(let (count, _)) = try connection.read(into: readBuffer) else { return }
        guard count > 0 else {
            if let refusal = connection.handshakeRefusal, !isRunning {
                throw RunError.setupFailed("\(target) refused the publisher: handshake failed: \(refusal)")
            }
            if !isRunning { throw RunError.setupFailed("\(target) closed the connection") }
            return closePublisher(reason: "closed by \(target)")
        }
        var failure: Error?
        var refusal: String?
        _ = try connection.receiveBytes(readBuffer, count: count) { bytes, endsMessage in
            do {
                try publisher.session.received(bytes, endsMessage: endsMessage) { action in
                    if case .note(let text) = action {
                        self.recording.record(ConnectionEvent(
                            side: .clients, client: nil, time: MonotonicClock.now(), reason: "publisher: \(text)"))
                    }
                    guard case .serverError(let text) = action else { return }
                    if !self.isRunning { refusal = text }
                    self.recording.record(ConnectionEvent(
                        side: .clients, client: nil, time: MonotonicClock.now(), reason: "publisher: the server said \(text)"))
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        if let refusal { throw RunError.setupFailed("\(target) refused the publisher: \(refusal)") }
        try publisher.session.sendOwed(on: connection)
    }

    /// Its loop stays on epoll (a target's groups read and write their own sockets): nothing is batched; the orders to
    /// the groups go.
    func flushSends() {
        flushOrders()
    }

    /// Housekeeping, and the protocol's keepalive to the publisher every interval (MQTT: a publisher that publishes
    /// less often than its keepalive would otherwise be taken for gone).
    func housekeeping(at now: UInt64) {
        measuringHousekeeping(at: now)  // the orders it made go after the pass, with the rest (``flushSends()``)
        settleAwayOnceSendingIsOver(at: now)
        reopenPublisherIfDue(at: now)
        dropConnectionsIfDue(at: now)
        keepPublisherAlive(at: now)
    }

    /// The protocol's keepalive to the publisher once its interval passed, from the publisher's ready on: while the
    /// clients connect too (10,000 subscribers took mosquitto 12 s, past its 1.5 keepalives, and it closed the
    /// publisher that waited for them).
    func keepPublisherAlive(at now: UInt64) {
        guard let publisher, let interval = publisher.session.heartbeatInterval, let connection = publisher.connection,
            connection.isOpen, publisher.session.isReady, now >= publisher.nextKeepAlive
        else { return }
        publisher.nextKeepAlive = now + interval
        do {
            try publisher.session.sendHeartbeat(on: connection)
        } catch {
            closePublisher(reason: "its keepalive could not be sent: \(error)")
        }
    }

    /// Closed loop: after a publish the server did not take, the next waits a moment; with `--reconnect`, none goes
    /// while the publisher is away or nobody is there to receive it (as the built-in server's closed loop waits).
    func mayBroadcast(at now: UInt64) -> Bool {
        guard let publisher, now >= publisher.pausedUntil else { return false }
        guard configuration.reconnect != nil else { return true }
        return (publisher.awaySince == 0 || !publisher.mayReturn) && openSubscribers > 0
    }

    /// Closes the publisher's connection with the reason (and on WebSocket, the status `code`).
    /// With `--reconnect`, during the run, it tries again (``schedulePublisherReconnect(afterUse:)``); a try that
    /// fails is not reported.
    func closePublisher(reason: String, code: UInt16 = WebSocketCloseCode.normal) {
        let wasReady = publisher?.isReady == true
        guard publisher?.close(code: code) == true else { return }
        let returning = publisher?.awaySince != 0
        if !returning || wasReady {
            recording.record(ConnectionEvent(side: .clients, client: nil, time: MonotonicClock.now(), reason: "publisher: " + reason))
        }
        schedulePublisherReconnect(afterUse: wasReady)
    }

    /// Publishes broadcast `sequence`; t0 is the time before the send.
    func sendBroadcast(_ sequence: Int, scheduled: UInt64) {
        let clients = configuration.clients
        recording.ledger.due(broadcast: sequence, at: scheduled)
        driver.beginBroadcast(sequence)
        guard let publisher else { preconditionFailure("fanout has a publisher") }
        let message = publisher.message(sequence: sequence, token: configuration.token, publisherID: clients)
        let time = MonotonicClock.now()
        recording.ledger.broadcastBegan(sequence, at: time)
        var outcome: Connection<T>.SendOutcome?
        var why = "--max-queue full"
        if let connection = publisher.connection, connection.isOpen, publisher.isReady {
            do {
                let windowClosed = !publisher.session.willPublish(message)
                if windowClosed { why = "its HTTP/2 flow-control window is closed, or its streams at once are all open" }
                outcome = windowClosed ? .dropped : try connection.send(message, stamped: stamps != nil)
                if outcome == .dropped && !windowClosed {
                    publisher.session.publicationNotSent(message)
                    why = connection.refusal(of: message.count) ?? why
                }
                if outcome != .dropped {
                    _ = publisher.transmitStamps?.expect(message: sequence, lastByte: connection.bytesTaken &- 1)
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
                reason: "publisher: the server took no more bytes (\(why)): broadcast \(sequence) was not published"))
            publisher.pausedUntil = time + 50_000_000
        }
        for client in 0..<clients {
            let index = recording.ledger.messageIndex(sequence: sequence, client: client)
            if outcome == .dropped {
                dropped(index, as: .droppedQueueFull)
            } else if outcome != nil && receivesNow(client) {
                written(index, at: time)
            } else {
                dropped(index, as: .droppedClosed)
            }
        }
        driver.dispatched(clients, at: MonotonicClock.now())
    }

    /// The publisher's transmit stamps: each is its broadcast's t0 as the kernel saw it (every subscriber's write
    /// time, as the built-in server's first write of a broadcast).
    func drainPublisherStamps() {
        guard let stamps, let publisher, let connection = publisher.connection else { return }
        while let stamp = try? stamps.nextTransmitStamp(on: connection.descriptor) {
            publisher.transmitStamps?.stamp(key: stamp.key, time: stamp.time) { sequence, time in
                recording.ledger.transmitStamp(broadcast: sequence, at: time)
            }
        }
    }
}
