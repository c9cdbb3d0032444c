import BenchClients
import BenchCore
import BenchNet
import Glibc

extension BenchServer {
    /// Accepts every pending connection. A connection counts as a client only once it said hello.
    ///
    /// A connection that failed before it could be taken (accept(2): ECONNABORTED, EPROTO and the network errors
    /// Linux passes on) is skipped. When the process is out of descriptors or memory (EMFILE, ENFILE, ENOBUFS,
    /// ENOMEM), the listener would stay readable and spin the loop: accepting pauses for ``acceptRetryInterval``
    /// while connections wait in the backlog, then resumes. The first failure of a series is an event.
    func acceptConnections() {
        while true {
            let accepted: Descriptor?
            do throws(SystemError) {
                accepted = try TCPSocket.accept(from: listener)
            } catch {
                tally.acceptFailures += 1
                if Self.isResourceShortage(error) {
                    pauseAccepting(after: error)
                    return
                }
                continue  // that connection is gone; the next may be fine
            }
            guard let socket = accepted else { return }
            let fd = socket.rawValue
            acceptIsFailing = false
            // A slot whose connection closed before it said hello is taken again: stray connections do not grow
            // the server's memory.
            let slot = freeSlots.popLast() ?? peers.count
            if let stamps {
                // Before anything is sent, so that the kernel's byte offsets count from the first data byte. A
                // socket the kernel will not stamp keeps the user-space times, counted as missing stamps.
                try? stamps.enable(on: fd, transmit: true)
            }
            if configuration.busyPoll { TCPSocket.pollBusily(fd) }
            let connection: Connection<T>
            do {
                connection = try Connection<T>(
                    descriptor: socket,
                    token: Self.token(ofSlot: slot),
                    epoll: epoll,
                    role: .server,
                    settings: transportSettings,
                    maximumQueuedBytes: configuration.maximumQueuedBytes,
                    receiver: loop.receiver,
                    batch: batch
                )
            } catch {
                if slot < peers.count { freeSlots.append(slot) }
                // The connection closed its descriptor.
                record(client: nil, reason: "could not set up an accepted connection: \(error)")
                continue
            }
            let peer = Peer(
                connection: connection,
                frames: FrameReader(for: connection, maximumFrameSize: transportSettings.maximumFrameSize),
                client: nil, transmitStamps: nil)
            if slot == peers.count { peers.append(peer) } else { peers[slot] = peer }
            do {
                try connection.start()
            } catch {
                closePeer(slot: slot, reason: "\(error)", code: error.closeCode, at: MonotonicClock.now())
            }
        }
    }

    /// accept(2)'s errors that are the process's, not the connection's: retrying at once fails again.
    private static func isResourceShortage(_ error: SystemError) -> Bool {
        error.call == "accept4" && [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errno)
    }

    private func pauseAccepting(after error: SystemError) {
        try? epoll.remove(listener)
        acceptResumeTime = MonotonicClock.now() + Self.acceptRetryInterval
        guard !acceptIsFailing else { return }
        acceptIsFailing = true
        let limit = error.errno == EMFILE ? " (this process may open \(DescriptorLimit.current) descriptors)" : ""
        recording.record(ConnectionEvent(
            side: .listener, client: nil, time: MonotonicClock.now(),
            reason: "accept failed: \(error)\(limit); new connections wait in the backlog, retried every "
                + DurationText.format(Self.acceptRetryInterval)))
    }

    /// Watches the listener again once a pause after a failed accept is over.
    func resumeAcceptingIfDue(at now: UInt64) {
        guard let resume = acceptResumeTime, now >= resume else { return }
        acceptResumeTime = nil
        do {
            try epoll.add(listener, interest: .readable, token: Self.listenerToken)
        } catch {
            pauseAccepting(after: error)
        }
    }

    /// Handles what epoll reported for the connection in `slot`.
    func handleConnectionEvent(slot: Int, events: EpollEvents) {
        let connection = peers[slot].connection
        guard connection.isOpen, !collectingLinkEvents || peers[slot].agent != nil else { return }
        if stamps != nil && events.contains(.error) { drainTransmitStamps(slot: slot) }
        if events.contains(.writable) {
            do {
                try connection.writeQueued()
            } catch {
                closePeer(slot: slot, reason: "write failed: \(error)", code: error.closeCode, at: MonotonicClock.now())
                return
            }
        }
        if !events.isDisjoint(with: [.readable, .hangUp, .error]) {
            readFrames(slot: slot)
        }
    }

    /// Reads once from the connection in `slot` and handles every complete frame.
    ///
    /// The time is taken right after the read returns: it is the arrival time of every echo in the chunk (and so
    /// is the kernel's receive stamp, with kernel stamps).
    func readFrames(slot: Int) {
        let (connection, frames) = (peers[slot].connection, peers[slot].frames)
        let count: Int
        let kernelNow: UInt64
        do {
            guard case .processed(let result) = try connection.read(into: readBuffer, stamps: stamps) else { return }
            (count, kernelNow) = result
        } catch {
            closePeer(slot: slot, reason: "read failed: \(error)", at: MonotonicClock.now())
            return
        }
        let now = MonotonicClock.now()
        guard count > 0 else {
            let pending = frames.bufferedByteCount
            let reason = pending > 0 ? "closed in the middle of a frame (\(pending) bytes of it came)" : "closed by peer"
            closePeer(slot: slot, reason: reason, at: now)
            return
        }
        // Anything a client sends shows it is alive: a WebSocket ping as much as a frame.
        if let client = peers[slot].client { lastHeard[client] = now }
        do {
            _ = try frames.receive(from: connection, readBuffer, count: count) { frame in
                self.handle(frame, slot: slot, at: now, kernel: kernelNow)
            }
        } catch {
            closePeer(slot: slot, reason: "\(error)", code: error.closeCode, at: now)
        }
    }

    /// Handles one frame from the connection in `slot`, read at `now` (and stamped `kernel` by the kernel); false
    /// when the connection was closed for it.
    private func handle(_ frame: Frame, slot: Int, at now: UInt64, kernel: UInt64) -> Bool {
        if frame.kind == .hello { return handleHello(frame, slot: slot, at: now) }
        if frame.kind == .agentHello { return handleAgentHello(frame, slot: slot, at: now) }
        if let agent = peers[slot].agent { return handleAgentFrame(frame, agent: agent, slot: slot, at: now) }
        guard let client = peers[slot].client else {
            closePeer(slot: slot, reason: "sent \(frame.kind.withArticle) frame before its hello", at: now)
            return false
        }
        lastHeard[client] = now
        switch frame.kind {
        case .hello, .agentHello:
            preconditionFailure("handled above")
        case .agentWelcome, .clockProbe, .clockReply, .clockReport, .goodbye, .clientSpec, .clientReport, .sendReport,
            .delivery, .read, .dropConnections:
            closePeer(slot: slot, reason: "sent \(frame.kind.withArticle) frame; clients send only hello and echo frames", at: now)
            return false
        case .echo:
            return handleEcho(frame, from: client, slot: slot, at: now, kernel: kernel)
        case .heartbeat:
            guard Int(frame.heartbeatClient) == client else {
                closePeer(slot: slot, reason: "sent a heartbeat as client \(frame.heartbeatClient)", at: now)
                return false
            }
            tally.heartbeatsReceived += 1
            return true
        case .data:
            closePeer(slot: slot, reason: "sent a data frame; clients send only hello and echo frames", at: now)
            return false
        }
    }

    private func handleHello(_ frame: Frame, slot: Int, at now: UInt64) -> Bool {
        let client = Int(frame.helloClient)
        let refusal: String?
        if peers[slot].client != nil || peers[slot].agent != nil {
            refusal = "said hello twice"
        } else if frame.helloVersion != WireFormat.version {
            refusal = "speaks protocol version \(frame.helloVersion); this server speaks \(WireFormat.version)"
        } else if peers[slot].connection.isPlain {
            refusal = "said hello as client \(client) in plain bench frames; this run's clients speak "
                + clientSpec.transport.rawValue
        } else if client < configuration.clients, frame.helloToken != helloToken(ofClient: client) {
            refusal = helloToken(ofClient: client) == nil
                ? "said hello as client \(client), which no agent was given"
                : "said hello as client \(client) without this run's token"
        } else if client >= configuration.clients {
            refusal = "said hello as client \(client); this run has clients 0 to \(configuration.clients - 1)"
        } else if isConnected(client) {
            refusal = "said hello as client \(client), which is already connected"
        } else {
            refusal = nil
        }
        if let refusal {
            closePeer(slot: slot, reason: refusal, at: now)
            return false
        }
        let returning = slotOfClient[client] >= 0
        if returning { freeSlots.append(slotOfClient[client]) }  // its old connection's, closed
        peers[slot].client = client
        slotOfClient[client] = slot
        lastHeard[client] = now
        liveClients += 1
        if returning { clientReturned(client, at: now) } else { helloCount += 1 }
        return true
    }

    /// Records an echo: the client's receive time it carries, and `now`, when the server's read returned it (`kernel`:
    /// the kernel's stamp of that read). An agent's client's stamps are put on this clock first, within the bounds of
    /// the write and the echo; the ledger decides the rest. A peer that echoes what it was not sent, or times that
    /// cannot be true, is closed with the reason.
    private func handleEcho(_ frame: Frame, from client: Int, slot: Int, at now: UInt64, kernel: UInt64) -> Bool {
        guard Int(frame.client) == client else {
            let reason = "echoed message \(frame.sequence) of client \(frame.client), never sent on this connection"
            closePeer(slot: slot, reason: reason, at: now)
            return false
        }
        let sequence = Int(frame.sequence)
        var (received, receivedKernel) = (frame.receivedNanoseconds, frame.receivedKernelNanoseconds)
        if !recording.ledger.usesKernelStamps { receivedKernel = 0 }
        if configuration.agentToken != nil, let agent = agent(ofClient: client) {
            // An agent's client: its stamps are on its agent's clock, put on ours between the write and now.
            let written = recording.ledger.written[recording.ledger.messageIndex(sequence: sequence, client: client)]
            (received, receivedKernel) = RemoteClock(model: recording.agents[agent].clock)
                .read(received, kernel: receivedKernel, between: written, and: now)
        }
        let stamps = MessageLedger.EchoStamps(
            received: received, receivedKernel: receivedKernel, echoed: now, echoedKernel: kernel, arrival: now,
            kernelTolerance: kernelTolerance)
        switch echo(sequence: sequence, client: client, stamps) {
        case .measured, .late, .duplicate, .stale:
            return true
        case .implausible(_, _, let reason):
            closePeer(slot: slot, reason: reason, at: now)
            return false
        case .notSent(let sequence, let client, let inRing):
            let reason = "echoed message \(sequence) of client \(client), "
                + (inRing ? "which was never written to it" : "never sent on this connection")
            closePeer(slot: slot, reason: reason, at: now)
            return false
        }
    }

    /// Closes the connection in `slot`, records why, and settles what was in flight to its client as lost.
    /// `code` is the WebSocket status the close frame carries, on WebSocket transports.
    func closePeer(slot: Int, reason: String, code: UInt16 = WebSocketCloseCode.protocolError, at now: UInt64) {
        let peer = peers[slot]
        guard peer.connection.isOpen else { return }
        peer.connection.close(code: code)
        if collectingLinkEvents { return }  // an agent done telling what its link did: after the run, not its event
        record(client: peer.client, reason: reason, at: now)
        agentLeft(slot: slot)
        guard let client = peer.client else {
            freeSlots.append(slot)
            return
        }
        liveClients -= 1
        clientGone(client)
        clientLeft(client, at: now)
    }

    private func record(client: Int?, reason: String, at now: UInt64 = MonotonicClock.now()) {
        let agent = client.flatMap { self.agent(ofClient: $0) }
        let reason = agent.map { "\(reason) (a client of agent \($0), pid \(recording.agents[$0].pid))" } ?? reason
        recording.record(ConnectionEvent(side: .server, client: client, time: now, reason: reason))
    }
}
