import BenchCore

/// NATS as one connection speaks it: `CONNECT`, `SUB` for a subscriber, then `PING`; the `PONG` to it makes the
/// connection ready (the server has taken what came before). A `MSG` is a delivery, each server `PING` is owed a
/// `PONG`, an `-ERR` is the server's error. Parsed on the bytes: no string per message.
public final class NATSSession: SessionStateMachine {
    private let subject: String
    private let role: SessionRole
    private let maximumMessageSize: Int
    private var carried: CarriedBytes
    public private(set) var isReady = false
    public var outbox = SessionOutbox()

    init(subject: String, role: SessionRole, maximumMessageSize: Int) {
        (self.subject, self.role, self.maximumMessageSize) = (subject, role, maximumMessageSize)
        carried = CarriedBytes(maximumMessageSize: maximumMessageSize)
    }

    public func connected(name: String) {
        outbox.append("CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"bench\"}\r\n".utf8)
        if role == .subscriber { outbox.append("SUB \(subject) 1\r\n".utf8) }
        outbox.append("PING\r\n".utf8)
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try carried.take(UnsafeRawBufferPointer(bytes)) { (bytes) throws(MessageFramingError) in try operations(bytes, act) }
    }

    /// `--dead-after`'s ping: the server's `PONG` shows it alive (one after the first is not a confirmation).
    public func heartbeat() {
        outbox.append("PING\r\n".utf8)
    }

    public func publication(of payload: [UInt8]) -> Publication {
        let head = Array("PUB \(subject) \(payload.count)\r\n".utf8)
        return Publication(bytes: head + payload + [13, 10], payloadOffset: head.count)
    }

    /// Takes every complete operation off the front of `bytes`; returns how many bytes they took.
    private func operations(_ bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while let lineEnd = ByteScan.crlf(in: bytes, from: start) {
            if ByteScan.hasPrefix("MSG ", bytes, start, lineEnd) {
                // MSG <subject> <sid> [reply-to] <#bytes>: the size is the last field.
                var sizeStart = lineEnd
                while sizeStart > start && bytes[sizeStart - 1] != UInt8(ascii: " ") { sizeStart -= 1 }
                guard let size = ByteScan.decimal(bytes, sizeStart, lineEnd), size <= maximumMessageSize else {
                    throw MessageFramingError(description: "a NATS MSG line without a valid size")
                }
                let payloadStart = lineEnd + 2
                guard bytes.count >= payloadStart + size + 2 else { return start }  // the payload is coming
                act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<payloadStart + size])))
                start = payloadStart + size + 2
                continue
            }
            if ByteScan.hasPrefix("PING", bytes, start, lineEnd) {
                outbox.append("PONG\r\n".utf8)
            } else if ByteScan.hasPrefix("PONG", bytes, start, lineEnd) {
                if !isReady {
                    isReady = true
                    act(.ready)
                }
            } else if ByteScan.hasPrefix("-ERR", bytes, start, lineEnd) {
                act(.serverError(String(decoding: bytes[start..<min(lineEnd, start + 200)], as: UTF8.self)))
            }
            start = lineEnd + 2
        }
        if bytes.count - start > 64 << 10 {
            throw MessageFramingError(description: "a NATS protocol line longer than 64 KiB")
        }
        return start
    }
}
