extension RunRecording {
    /// True when message `index` counts in the results: it had its turn and is not a warmup message.
    public func isMeasured(message index: Int) -> Bool {
        outcome[index].wasDispatched && index / configuration.clients >= configuration.warmup
    }

    /// rtt: echo read at the server − write to the client; nil when the message is lost (any outcome but
    /// ``MessageOutcome/echoed``).
    public func roundTrip(ofMessage index: Int) -> UInt64? {
        guard outcome[index].isMeasurement else { return nil }
        return echoed[index] - written[index]
    }

    /// Fanout delivery: the client's read − t0 of its broadcast; nil when the message is lost (any outcome but
    /// ``MessageOutcome/echoed``).
    public func delivery(ofMessage index: Int) -> UInt64? {
        guard outcome[index].isMeasurement else { return nil }
        return received[index] - broadcastStart[index / configuration.clients]
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

    /// How late a send was against its schedule: the first write of a broadcast (fanout) or the message's
    /// write (roundtrip) − when it was due. Nil when nothing was written.
    public func sendLag(ofScheduledSend index: Int) -> UInt64? {
        let actual = configuration.scenario == .fanout ? broadcastStart[index] : written[index]
        guard actual != 0 else { return nil }
        return actual >= scheduled[index] ? actual - scheduled[index] : 0
    }
}
