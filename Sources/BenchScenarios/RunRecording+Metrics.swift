extension RunRecording {
    /// True when message `index` counts in the results: it had its turn and is not a warmup message.
    public func isMeasured(message index: Int) -> Bool {
        outcome[index].wasDispatched && index / configuration.clients >= configuration.warmup
    }

    /// True when the metrics read kernel stamps.
    public var usesKernelStamps: Bool { configuration.timestamps.usesKernel }

    /// When message `index` left: the kernel's transmit stamp with kernel stamps, where there is one (every
    /// message in roundtrip, each broadcast's first write in fanout); otherwise the time right before the write.
    @inline(__always)
    public func sendTime(ofMessage index: Int) -> UInt64 {
        usesKernelStamps && writtenKernel[index] != 0 ? writtenKernel[index] : written[index]
    }

    /// When message `index` reached its client: the kernel's receive stamp, or the time the client's read returned.
    @inline(__always)
    public func receiveTime(ofMessage index: Int) -> UInt64 {
        usesKernelStamps && receivedKernel[index] != 0 ? receivedKernel[index] : received[index]
    }

    /// When the echo of message `index` reached the server: the kernel's receive stamp, or the read's return.
    @inline(__always)
    public func echoTime(ofMessage index: Int) -> UInt64 {
        usesKernelStamps && echoedKernel[index] != 0 ? echoedKernel[index] : echoed[index]
    }

    /// Fanout: t0 of broadcast `sequence`, the time before its first write or, with kernel stamps, its earliest
    /// send stamp.
    public func broadcastStartTime(_ sequence: Int) -> UInt64 {
        usesKernelStamps && broadcastStartKernel[sequence] != 0 ? broadcastStartKernel[sequence] : broadcastStart[sequence]
    }

    /// rtt: the echo's arrival at the server − the message's send; nil when the message is lost (any outcome but
    /// ``MessageOutcome/echoed``).
    public func roundTrip(ofMessage index: Int) -> UInt64? {
        guard outcome[index].isMeasurement, echoed[index] != 0 else { return nil }  // a fanout target echoes nothing
        return echoTime(ofMessage: index).subtractingClamped(sendTime(ofMessage: index))
    }

    /// Fanout delivery: the client's receive − t0 of its broadcast; nil when the message is lost (any outcome but
    /// ``MessageOutcome/echoed``).
    public func delivery(ofMessage index: Int) -> UInt64? {
        guard outcome[index].isMeasurement else { return nil }
        return receiveTime(ofMessage: index).subtractingClamped(broadcastStartTime(index / configuration.clients))
    }

    /// With `--timestamps both`: how long message `index`'s bytes waited in the socket for the harness on the
    /// measuring side (the user-space read − the kernel's receive stamp): the client's in fanout, the server's
    /// echo in roundtrip. Nil when lost or either stamp is missing.
    public func stack(ofMessage index: Int) -> UInt64? {
        guard configuration.timestamps == .both, outcome[index].isMeasurement else { return nil }
        let (user, kernel) = configuration.scenario == .fanout
            ? (received[index], receivedKernel[index]) : (echoed[index], echoedKernel[index])
        return kernel == 0 ? nil : user.subtractingClamped(kernel)
    }

    /// Fills ``broadcastStartKernel`` from the earliest transmit stamp of each broadcast (its first write's, or with
    /// server threads, the earliest of each thread's first write), once the run's stamps are in (0 where none came:
    /// the user-space t0 stands in).
    mutating func computeKernelBroadcastStarts() {
        guard usesKernelStamps && configuration.scenario == .fanout else { return }
        for sequence in 0..<configuration.sequencesPerClient {
            let messages = messageIndex(sequence: sequence, client: 0)..<messageIndex(sequence: sequence + 1, client: 0)
            broadcastStartKernel[sequence] = writtenKernel[messages].lazy.filter { $0 != 0 }.min() ?? 0
        }
    }

    /// Kernel stamps message `index`'s times need and did not get (the user-space time stood in): its transmit
    /// stamp in roundtrip (in fanout only a broadcast's first write has one, counted per broadcast), the echo's
    /// receive stamp at the server, and in fanout the client's.
    public func missingKernelStamps(ofMessage index: Int) -> (send: Int, receive: Int) {
        guard usesKernelStamps else { return (0, 0) }
        let hasEchoes = configuration.scenario == .roundtrip || configuration.target == nil  // a fanout target echoes nothing
        let receive = (hasEchoes && echoedKernel[index] == 0 ? 1 : 0)
            + (configuration.scenario == .fanout && receivedKernel[index] == 0 ? 1 : 0)
        return (configuration.scenario == .roundtrip && writtenKernel[index] == 0 ? 1 : 0, receive)
    }

    /// Kernel stamps the metrics of measured, echoed messages needed and did not get (the user-space time stood
    /// in): ``missingKernelStamps(ofMessage:)`` summed, and in fanout each broadcast whose t0 has no stamp.
    public var missingKernelStamps: (send: Int, receive: Int) {
        guard usesKernelStamps else { return (0, 0) }
        var missing = (send: 0, receive: 0)
        for index in outcome.indices where isMeasured(message: index) && outcome[index].isMeasurement {
            let message = missingKernelStamps(ofMessage: index)
            missing = (missing.send + message.send, missing.receive + message.receive)
        }
        if configuration.scenario == .fanout {
            for sequence in configuration.warmup..<configuration.sequencesPerClient
            where broadcastStart[sequence] != 0 && broadcastStartKernel[sequence] == 0 {
                missing.send += 1
            }
        }
        return missing
    }

    /// True when an echo that arrived at `now` for message `index`, with the client's receive time `received`,
    /// came in time: the echo within the timeout of the write and, in fanout, the client's read within the
    /// timeout of the broadcast's start. Both times must already be known to be true (``isPlausible``).
    func isInTime(message index: Int, received: UInt64, echoedAt now: UInt64) -> Bool {
        guard now - written[index] <= configuration.timeout else { return false }
        guard configuration.scenario == .fanout else { return true }
        return received - broadcastStart[index / configuration.clients] <= configuration.timeout
    }

    /// True when a receive time a peer reported for message `index` can be true: not before the message was
    /// written, not after its echo arrived at `now`. Anything else is not a measurement.
    func isPlausible(received: UInt64, forMessage index: Int, echoedAt now: UInt64) -> Bool {
        received >= written[index] && received <= now
    }

    /// True when the kernel receive stamp a peer reported for message `index` can be true: not before the write,
    /// not after the client's own read returned, within `tolerance` (two clock conversions' uncertainty).
    func isPlausible(kernelReceived: UInt64, received: UInt64, forMessage index: Int, tolerance: UInt64) -> Bool {
        kernelReceived &+ tolerance >= written[index] && kernelReceived <= received &+ tolerance
    }

    /// How late a send was against its schedule (always from the user-space write time: the harness's lateness): the first write of a broadcast (fanout) or the message's
    /// write (roundtrip) − when it was due. Nil when nothing was written.
    public func sendLag(ofScheduledSend index: Int) -> UInt64? {
        let actual = configuration.scenario == .fanout ? broadcastStart[index] : written[index]
        guard actual != 0 else { return nil }
        return actual >= scheduled[index] ? actual - scheduled[index] : 0
    }
}

extension UInt64 {
    /// `self − other`, or 0 when `other` is larger (a kernel stamp a conversion's uncertainty away).
    @inline(__always)
    func subtractingClamped(_ other: UInt64) -> UInt64 {
        self >= other ? self - other : 0
    }
}
