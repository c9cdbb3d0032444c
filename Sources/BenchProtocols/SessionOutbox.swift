/// What a protocol owes the server, gathered as it reads and sent by the connection's owner after the read: one buffer
/// per connection, reused (no allocation per answer). On a message-oriented protocol each answer is a message of its own
/// (``append(message:)``); on a byte stream they go as one write.
public struct SessionOutbox {
    private var bytes: [UInt8] = []
    /// Where each message in `bytes` ends; empty: all of it is one write.
    private var boundaries: [Int] = []

    /// An outbox with room for `capacity` bytes and `messages` messages set aside now: an acknowledgement or a pong at
    /// a time by default, so that 20,000 connections keep little.
    public init(capacity: Int = 64, messages: Int = 0) {
        bytes.reserveCapacity(capacity)
        if messages > 0 { boundaries.reserveCapacity(messages) }
    }

    public var isEmpty: Bool { bytes.isEmpty }

    /// The bytes owed, all of them, as one write (tests read them).
    public var pending: [UInt8] { bytes }

    /// Bytes owed on a byte stream.
    mutating func append<Bytes: Sequence<UInt8>>(_ more: Bytes) {
        bytes.append(contentsOf: more)
    }

    /// One byte owed on a byte stream.
    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    /// One answer that must go as a message of its own.
    mutating func append(message text: String) {
        bytes.append(contentsOf: text.utf8)
        boundaries.append(bytes.count)
    }

    /// One answer that must go as a write of its own: a message on a message-oriented layer.
    mutating func append(message body: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: body)
        boundaries.append(bytes.count)
    }

    /// Empties the outbox without sending (its connection is gone).
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        boundaries.removeAll(keepingCapacity: true)
    }

    /// Hands each write to `send` (the transport may change the bytes: a WebSocket client masks them), and empties the
    /// outbox whether or not they were taken.
    public mutating func drain(_ send: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        guard !bytes.isEmpty else { return }
        defer { removeAll() }
        try bytes.withUnsafeMutableBytes { all in
            var start = 0
            for end in boundaries {
                try send(UnsafeMutableRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
            if start < all.count { try send(UnsafeMutableRawBufferPointer(rebasing: all[start...])) }  // a stream's bytes
        }
    }
}

/// One ``SessionOutbox`` for the sessions of a thread that drains it after each read, before the next session reads:
/// one buffer for all of them, not one per connection (a built-in client's echoes are whole messages: a buffer each
/// would be the message size times the clients).
public final class SharedOutbox {
    private var owed: SessionOutbox

    /// Room for `capacity` bytes and `messages` writes, set aside now: what one read can owe, so that it never grows
    /// in the run.
    public init(capacity: Int, messages: Int) {
        owed = SessionOutbox(capacity: capacity, messages: messages)
    }

    public var isEmpty: Bool { owed.isEmpty }

    /// One write of its own.
    func append(message body: UnsafeRawBufferPointer) {
        owed.append(message: body)
    }

    /// Hands each write to `send`, and empties the outbox whether or not they were taken.
    public func drain(_ send: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        try owed.drain(send)
    }

    /// Empties the outbox without sending (the connection it was for failed).
    public func removeAll() {
        owed.removeAll()
    }
}
