@testable import BenchScenarios

/// Recordings built by hand, through the ledger's own events, as a role drives them.
extension RunRecording {
    /// Roundtrip: message `index` fell due at `due` and went out at `written`.
    mutating func send(message index: Int, due: UInt64, at written: UInt64) {
        ledger.due(message: index, at: due)
        ledger.written(index, at: written)
    }

    /// Fanout: broadcast `sequence` fell due at `due` and began at `t0`; its message to client `client` went out at
    /// `writes[client]`.
    mutating func sendBroadcast(_ sequence: Int, due: UInt64, t0: UInt64, writes: [UInt64]) {
        ledger.due(broadcast: sequence, at: due)
        ledger.broadcastBegan(sequence, at: t0)
        for (client, time) in writes.enumerated() {
            ledger.written(ledger.messageIndex(sequence: sequence, client: client), at: time)
        }
    }

    /// Message `index`'s client read it at `received`, and its echo reached the server at `echoed`: the ledger's
    /// answer.
    @discardableResult
    mutating func echo(message index: Int, received: UInt64, echoed: UInt64) -> MessageLedger.EchoAction {
        let stamps = MessageLedger.EchoStamps(received: received, echoed: echoed, arrival: echoed)
        return ledger.echo(sequence: ledger.sequence(ofRow: index / ledger.clients), client: index % ledger.clients, stamps)
    }
}
