import BenchCore

/// Redis's publish/subscribe (RESP 2) as one connection speaks it: `AUTH` when a password is given, `SUBSCRIBE` for a
/// subscriber (ready on the server's `subscribe` reply), `PUBLISH` for the publisher (ready at once: Redis has no
/// greeting); a `message` reply is a delivery, an error reply the server's error. Parsed in place (``RESPReply``).
public final class RedisSession: SessionStateMachine {
    private let channel: String
    private let password: String?
    private let role: SessionRole
    private let maximumMessageSize: Int
    private var carried: CarriedBytes
    public private(set) var isReady: Bool
    public var outbox = SessionOutbox()

    init(channel: String, password: String?, role: SessionRole, maximumMessageSize: Int) {
        (self.channel, self.password, self.role, self.maximumMessageSize) = (channel, password, role, maximumMessageSize)
        carried = CarriedBytes(maximumMessageSize: maximumMessageSize)
        isReady = role == .publisher
    }

    public func connected(name: String) {
        if let password { outbox.append(Self.command(["AUTH", password])) }
        if role == .subscriber { outbox.append(Self.command(["SUBSCRIBE", channel])) }
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try carried.take(UnsafeRawBufferPointer(bytes)) { (bytes) throws(MessageFramingError) in try replies(bytes, act) }
    }

    /// `--dead-after`'s ping: a subscribed connection may send `PING`, answered `pong` (a reply taken as no delivery).
    public func heartbeat() {
        outbox.append(Self.ping)
    }

    private static let ping = command(["PING"])

    public func publication(of payload: [UInt8]) -> Publication {
        let head = Array("*3\r\n$7\r\nPUBLISH\r\n$\(channel.utf8.count)\r\n\(channel)\r\n$\(payload.count)\r\n".utf8)
        return Publication(bytes: head + payload + [13, 10], payloadOffset: head.count)
    }

    /// Takes every complete reply off the front of `bytes`; returns how many bytes they took.
    private func replies(_ bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while let (end, reply) = try RESPReply.parse(bytes, from: start, maximumSize: maximumMessageSize) {
            switch reply {
            case .error(let text): act(.serverError(text))
            case .subscribed:
                isReady = true
                act(.ready)
            case .message(let payload): act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[payload])))
            case .other: break
            }
            start = end
        }
        return start
    }

    /// A RESP array of bulk strings: a Redis command.
    static func command(_ words: [String]) -> [UInt8] {
        var text = "*\(words.count)\r\n"
        for word in words { text += "$\(word.utf8.count)\r\n\(word)\r\n" }
        return Array(text.utf8)
    }
}
