import BenchCore
@testable import BenchProtocols

/// What a session did with the bytes a test handed it: its deliveries, how often it became ready, the server's errors.
struct SessionActions {
    var delivered: [[UInt8]] = []
    var ready = 0
    var errors: [String] = []
    var notes: [String] = []

    /// Hands `bytes` to `session` as one read (`endsMessage`: a message-oriented layer's end of message), and gathers
    /// what it does.
    mutating func feed(_ session: ProtocolSession, _ bytes: [UInt8], endsMessage: Bool = false) throws(MessageFramingError) {
        var chunk = bytes
        var failure: MessageFramingError?
        var seen = self
        chunk.withUnsafeMutableBytes { buffer in
            do throws(MessageFramingError) {
                try session.received(buffer, endsMessage: endsMessage) { action in
                    switch action {
                    case .delivered(let payload): seen.delivered.append(Array(payload))
                    case .ready: seen.ready += 1
                    case .serverError(let text): seen.errors.append(text)
                    case .note(let text): seen.notes.append(text)
                    }
                }
            } catch {
                failure = error
            }
        }
        self = seen
        if let failure { throw failure }
    }
}
