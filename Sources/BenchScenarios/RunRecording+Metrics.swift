extension RunRecording {
    /// True when message `index` counts in the results: it had its turn and is not a warmup message.
    public func isMeasured(message index: Int) -> Bool {
        outcome[index].wasDispatched && sequence(ofRow: index / configuration.clients) >= configuration.warmup
    }

    /// True when the metrics read kernel stamps.
    public var usesKernelStamps: Bool { configuration.timestamps.usesKernel }

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

    /// Fanout with kernel stamps: t0 of the broadcast in `row` as the kernel saw it, the earliest transmit stamp of
    /// its writes (its first write's, or with server threads each thread's first); 0 when none came.
    func kernelBroadcastStart(row: Int) -> UInt64 {
        guard usesKernelStamps && configuration.scenario == .fanout else { return 0 }
        let clients = configuration.clients
        var earliest = UInt64.max
        for index in row * clients..<(row + 1) * clients where writtenKernel[index] != 0 {
            earliest = Swift.min(earliest, writtenKernel[index])
        }
        return earliest == .max ? 0 : earliest
    }

    /// Message `index` as the stream hands it on; `t0Kernel` is its broadcast's kernel t0 in fanout.
    func settledMessage(at index: Int, t0Kernel: UInt64) -> SettledMessage {
        let row = index / configuration.clients
        let kernel = usesKernelStamps
        let fanout = configuration.scenario == .fanout
        return SettledMessage(
            kind: .message, outcome: outcome[index], sequence: sequence(ofRow: row),
            client: index % configuration.clients, scheduled: fanout ? scheduled[row] : scheduled[index],
            written: written[index], received: received[index], echoed: echoed[index],
            writtenKernel: kernel ? writtenKernel[index] : 0, receivedKernel: kernel ? receivedKernel[index] : 0,
            echoedKernel: kernel ? echoedKernel[index] : 0, broadcastStart: fanout ? broadcastStart[row] : 0,
            broadcastStartKernel: t0Kernel)
    }
}

extension UInt64 {
    /// `self − other`, or 0 when `other` is larger (a kernel stamp a conversion's uncertainty away).
    @inline(__always)
    func subtractingClamped(_ other: UInt64) -> UInt64 {
        self >= other ? self - other : 0
    }
}
