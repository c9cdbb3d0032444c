import BenchCore
import BenchNet

/// What the subscribers (and the publisher) receive: handshakes, confirmations, relayed broadcasts.
extension TargetSubscribers {
    /// A connection's events: the end of its connect, its handshakes, then what it receives.
    func handle(_ events: EpollEvents, position: Int) -> RunError? {
        let connection = connections[position]
        guard connection.isOpen else { return nil }
        do {
            if position == publisher && stamps != nil && events.contains(.error) { drainPublisherStamps() }
            if events.contains(.writable) { try connection.writeQueued() }
            if !events.isDisjoint(with: [.readable, .hangUp, .error]) { try read(position) }
            if !established[position] && connection.isEstablished {
                established[position] = true
                if position < configuration.clients {
                    recording.connectTimes[position] = connection.establishedAt - connection.startedAt
                }
                let opening = sessions[position].opening(subscriber: position < configuration.clients)
                if !opening.isEmpty { try send(opening, on: connection) }
                if sessions[position].isReady { ready += 1 }
            }
        } catch let refusal as RunError {
            return refusal
        } catch {
            if !isRunning { return .setupFailed("\(target) refused the connection or its handshake: \(error)") }
            let code = (error as? ConnectionError)?.closeCode
                ?? (error is MessageFramingError ? WebSocketCloseCode.messageTooBig : WebSocketCloseCode.normal)
            close(position, reason: "\(error)", code: code)
        }
        return nil
    }

    func send(_ bytes: [UInt8], on connection: Connection<T>) throws {
        var copy = bytes
        _ = try copy.withUnsafeMutableBytes { try connection.send($0) }
    }

    /// Reads once; a subscriber settles every broadcast whose marker it finds.
    func read(_ position: Int) throws {
        let connection = connections[position]
        guard case .processed(let (count, kernelNow)) = try connection.read(into: readBuffer, stamps: stamps) else { return }
        let now = MonotonicClock.now()
        guard count > 0 else {
            if !isRunning { throw RunError.setupFailed("\(target) closed the connection") }
            close(position, reason: "closed by \(target)")
            return
        }
        let session = sessions[position]
        let wasReady = session.isReady
        var failure: Error?
        var pongs = 0
        var refusal: String?
        _ = try connection.receiveBytes(readBuffer, count: count) { bytes, endsMessage in
            do {
                pongs += try session.consume(bytes, endsMessage: endsMessage) { event in
                    switch event {
                    case .message(let message):
                        if position < self.configuration.clients { self.settle(message, subscriber: position, at: now, kernel: kernelNow) }
                    case .ready:
                        break
                    case .error(let text):
                        if !self.isRunning { refusal = text }
                        self.event(position, "the server said \(text)")
                    }
                }
            } catch {
                failure = error
                return false
            }
            return true
        }
        if let failure { throw failure }
        if let refusal { throw RunError.setupFailed("\(target) refused \(position < configuration.clients ? "a subscriber" : "the publisher"): \(refusal)") }
        for _ in 0..<pongs {
            pongBuffer.copyMemory(from: UnsafeRawBufferPointer(start: Self.pong.utf8Start, count: Self.pong.utf8CodeUnitCount))
            _ = try connection.send(pongBuffer)
        }
        if !wasReady && session.isReady { ready += 1 }
    }

    /// A relayed message at `subscriber`: its marker says which broadcast.
    func settle(_ message: UnsafeRawBufferPointer, subscriber: Int, at now: UInt64, kernel: UInt64) {
        guard let marker = Marker.find(in: message) else {
            event(subscriber, "received a message without a bench marker (\(message.count) bytes)")
            return
        }
        let sequence = Int(marker.sequence)
        guard marker.run == configuration.token, sequence <= driver.currentBroadcast else {
            event(subscriber, "received a marker of another run (message \(marker.sequence))")
            return
        }
        guard sequence >= recording.flushedUpTo else {
            recording.echoesAfterHandOn += 1  // its fate was sealed long ago (timed out): nothing changes
            return
        }
        let index = recording.messageIndex(sequence: sequence, client: subscriber)
        switch recording.outcome[index] {
        case .written:
            recording.received[index] = now
            if recording.usesKernelStamps { recording.receivedKernel[index] = kernel }
            let inTime = now - recording.broadcastStart[recording.row(of: sequence)] <= configuration.timeout
            settle(index, as: inTime ? .echoed : .late)
            if inTime { driver.countEcho() }
        case .timedOut:
            recording.received[index] = now
            if recording.usesKernelStamps { recording.receivedKernel[index] = kernel }
            recording.changeTimedOut(index, to: .late)
        case .echoed, .late:
            recording.duplicateEchoes += 1
        default:
            break  // published while it was not subscribed: not counted
        }
    }
}
