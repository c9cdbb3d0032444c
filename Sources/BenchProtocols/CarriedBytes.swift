import BenchCore

/// A protocol's incomplete tail or message, carried from one read to the next. Received bytes are parsed in place
/// when nothing is carried over, which is the rule; only an incomplete tail is kept, in one buffer per connection,
/// reused. What is kept is bounded by the largest message: a tail longer than that is no message of this run.
struct CarriedBytes {
    private var buffer: [UInt8] = []
    private let limit: Int
    private let largest: Int

    init(maximumMessageSize: Int) {
        largest = maximumMessageSize
        limit = maximumMessageSize + 4096
        buffer.reserveCapacity(4096)
    }

    /// Hands `parse` what is carried and `bytes` together; `parse` takes every complete unit off the front and says how
    /// many bytes they took; the rest is carried.
    mutating func take(
        _ bytes: UnsafeRawBufferPointer, _ parse: (UnsafeRawBufferPointer) throws(MessageFramingError) -> Int
    ) throws(MessageFramingError) {
        if buffer.isEmpty {
            let used = try parse(bytes)
            try keep(UnsafeRawBufferPointer(rebasing: bytes[used...]))
            return
        }
        buffer.append(contentsOf: bytes)
        let used = try buffer.withUnsafeBytes { carried in
            Result { () throws(MessageFramingError) in try parse(carried) }
        }.get()
        buffer.removeFirst(used)
        try check()
    }

    /// Adds to the incomplete message kept for the next read, as long as it stays within a message's size.
    private mutating func keep(_ bytes: UnsafeRawBufferPointer) throws(MessageFramingError) {
        buffer.append(contentsOf: bytes)
        try check()
    }

    /// A message-oriented stream's bytes (WebSocket's): kept until `endsMessage`, then the whole message goes to
    /// `body` and is let go.
    mutating func collect(
        _ bytes: UnsafeRawBufferPointer, endsMessage: Bool, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(MessageFramingError) {
        guard endsMessage else { return try keep(bytes) }
        buffer.withUnsafeBytes(body)
        buffer.removeAll(keepingCapacity: true)
    }

    private func check() throws(MessageFramingError) {
        guard buffer.count <= limit else {
            throw MessageFramingError(description: "a message of more than \(largest) bytes")
        }
    }
}
