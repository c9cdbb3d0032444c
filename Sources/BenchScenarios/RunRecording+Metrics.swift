extension RunRecording {
    /// True when message `index` counts in the results: it had its turn and is not a warmup message.
    public func isMeasured(message index: Int) -> Bool {
        outcome[index].wasDispatched && index / configuration.clients >= configuration.warmup
    }

    /// rtt: echo read at the server − write to the client; nil when the message is lost (no echo, or the
    /// echo came after the timeout).
    public func roundTrip(ofMessage index: Int) -> UInt64? {
        let written = self.written[index]
        let echoed = self.echoed[index]
        guard written != 0, echoed >= written else { return nil }
        let value = echoed - written
        return value <= configuration.timeout ? value : nil
    }

    /// Fanout delivery: the client's read − t0 of its broadcast; nil when the message is lost (never
    /// delivered as far as the server knows, or delivered after the timeout).
    public func delivery(ofMessage index: Int) -> UInt64? {
        let start = broadcastStart[index / configuration.clients]
        let received = self.received[index]
        guard written[index] != 0, received != 0, received >= start else { return nil }
        let value = received - start
        return value <= configuration.timeout ? value : nil
    }

    /// How late a send was against its schedule: the first write of a broadcast (fanout) or the message's
    /// write (roundtrip) − when it was due. Nil when nothing was written.
    public func sendLag(ofScheduledSend index: Int) -> UInt64? {
        let actual = configuration.scenario == .fanout ? broadcastStart[index] : written[index]
        guard actual != 0 else { return nil }
        return actual >= scheduled[index] ? actual - scheduled[index] : 0
    }
}
