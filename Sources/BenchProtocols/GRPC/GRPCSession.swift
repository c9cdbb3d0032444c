import BenchCore

/// gRPC over HTTP/2 (gRPC's PROTOCOL-HTTP2) as one connection speaks it, over ``HTTP2Connection``:
/// - a fan-out subscriber calls the server-streaming method of the URL with `--subscribe`'s message on stream 1, and
///   each response message is a delivery;
/// - a round trip's client opens the bidirectional-streaming method on stream 1 and sends each of its messages on it;
///   each message the server sends on it is a delivery;
/// - the fan-out publisher calls the unary `--publish-method` once per broadcast, each call a stream of its own;
/// - with `--streams-per-connection`, one connection carries several fan-out subscribers, each its own call (streams
///   1, 3, …): each delivery says whose (``actingCall``), and the connection is ready once every call is;
/// - a chat member is a subscriber of its room's call that sends each of its messages by a unary call of its own, on
///   the same connection (streams 3, 5, …).
///
/// A fan-out subscriber is ready once the server sent the call's response headers (or its first message): its
/// confirmation that the call is taken. A server's transport answers a PING before its handler has run, so that is no
/// subscription; a server that holds its headers back until its first message (grpc-go's and grpc-java's default)
/// must send them once the subscriber is registered (`SendHeader`, `sendHeaders`, `send_initial_metadata`), or no
/// subscriber is ever ready and the setup says it waits for them. A round trip's client, whose own messages wait in its
/// call for the handler, and the publisher are ready once the server answered their PING. A `grpc-status` other than
/// 0 is the server's error, in its words (`grpc-message`); a subscriber's call that ends, or that the server resets,
/// closes the connection with why. What is published stays within the server's flow-control windows
/// (``willPublish(_:)``).
public final class GRPCSession: SessionStateMachine {
    let settings: ServerProtocol.GRPCSettings
    let role: SessionRole
    let http2: HTTP2Connection
    /// The gRPC messages on each call's stream: a 5-byte prefix (compressed, length) and the message.
    private var messages: [CarriedBytes]
    /// The calls this connection carries (streams 1, 3, …), which the server confirmed, and how many.
    let calls: Int
    private var confirmed: [Bool]
    private var confirmedCount = 0
    /// The call (0 for a connection's first) whose delivery or readiness the session is acting on.
    public private(set) var actingCall = 0
    private let maximumMessageSize: Int
    public private(set) var isReady = false
    public var outbox = SessionOutbox(capacity: 256)
    /// The response's fields as they arrive: `:status`, `grpc-status`, `grpc-message`.
    private var httpStatus = 0
    private var grpcStatus: Int?
    private var grpcMessage: [UInt8] = []

    /// The call's stream (a subscriber's, a round trip's): the first this side opens.
    static let callStream = HTTP2Connection.callStream
    /// The next unary call's stream (the publisher's, a chat member's): odd, rising, one per message on this
    /// connection, after the call's own stream where there is one.
    var nextStream: UInt32
    /// The unary calls (the publisher's, a chat member's) written and not yet ended by the server.
    var unaryCallsOpen = 0
    /// The server goes away in order (a GOAWAY with NO_ERROR): no new stream opens on this connection.
    var takesNoNewStreams = false
    /// Its messages go as unary calls, each on a new stream (the publisher, a chat member), not on the call's stream.
    var publishesByCalls: Bool { role == .publisher || settings.publishMethod != nil && !settings.bidirectional }
    /// A server-streaming call's subscriber: ready on the server's headers only (``isReady``).
    private var readyOnHeadersOnly: Bool { role == .subscriber && !settings.bidirectional }

    init(_ settings: ServerProtocol.GRPCSettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role, self.maximumMessageSize) = (settings, role, maximumMessageSize)
        calls = role == .subscriber && !settings.bidirectional ? max(1, settings.calls) : 1
        http2 = HTTP2Connection(maximumMessageSize: maximumMessageSize, callStreams: role == .subscriber ? calls : 0)
        messages = (0..<calls).map { _ in CarriedBytes(maximumMessageSize: maximumMessageSize + 5) }
        confirmed = Array(repeating: false, count: calls)
        nextStream = role == .publisher ? 1 : UInt32(2 * calls + 1)
    }

    /// The call on `stream`, where it is one of this connection's calls.
    private func call(on stream: UInt32) -> Int? {
        guard role == .subscriber, stream % 2 == 1, Int(stream - 1) / 2 < calls else { return nil }
        return Int(stream - 1) / 2
    }

    public func connected(name: String) {
        outbox.append(HTTP2Connection.opening)
        if role == .subscriber {
            let headers = requestHeaders(settings.method)
            // The command line checked the text (the room's number and a row's values put in are a string's).
            let request = Self.framed((try? ProtobufText.encode(settings.subscribe).bytes) ?? [])
            for call in 0..<calls {
                let stream = UInt32(2 * call + 1)
                outbox.append(HTTP2Frame.headers(headers, stream: stream, endStream: false))
                if !settings.bidirectional { outbox.append(HTTP2Frame.data(request, stream: stream, endStream: true).frames) }
            }
        }
        if !readyOnHeadersOnly { outbox.append(HTTP2Frame.ping(0)) }
    }

    /// An HTTP/2 PING: gRPC has no ping of its own.
    public func heartbeat() {
        outbox.append(HTTP2Frame.ping(1))
    }

    public var handshakeState: String? {
        readyOnHeadersOnly
            ? "waiting for the response headers of \(settings.method) (a server that sends none before its first message "
                + "must send them once the subscriber is registered)"
            : "waiting for the server's answer to a PING"
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try http2.received(UnsafeRawBufferPointer(bytes), outbox: &outbox) { (event) throws(MessageFramingError) in
            try self.handle(event, act)
        }
    }

    private func handle(_ event: HTTP2Connection.Event, _ act: (SessionAction) -> Void) throws(MessageFramingError) {
        switch event {
        case .pingAcknowledged:
            if !readyOnHeadersOnly { becomeReady(act) }
        case .goingAway(let lastStream, let text):
            // A subscriber's calls the server keeps go on until it ends them (and closes the connection). A connection
            // that needs new calls cannot go on: a chat member's closes now (and comes back with --reconnect), the
            // publisher's once its calls under way ended, no new one opening meanwhile.
            if role == .subscriber && (publishesByCalls || UInt32(2 * calls - 1) > lastStream) {
                throw MessageFramingError(description: text)
            }
            takesNoNewStreams = true
            act(.note(text + ": what it keeps goes on, no new call opens"))
            try closeIfGoneAway()
        case .field(_, let name, let value):
            if name.elementsEqual(":status".utf8) {
                httpStatus = Int(String(decoding: value, as: UTF8.self)) ?? -1
            } else if name.elementsEqual("grpc-status".utf8) {
                grpcStatus = Int(String(decoding: value, as: UTF8.self)) ?? -1
            } else if name.elementsEqual("grpc-message".utf8) {
                grpcMessage.removeAll(keepingCapacity: true)
                grpcMessage.append(contentsOf: value)
            }
        case .headersEnded(let stream, let endStream):
            try headersEnded(stream: stream, endStream: endStream, act)
        case .data(let stream, let body, let endStream):
            guard let call = call(on: stream) else {  // a unary call's answer: not measured
                if endStream { try unaryCallEnded() }
                return
            }
            actingCall = call
            try messages[call].take(body) { (bytes) throws(MessageFramingError) in try self.deliver(bytes, act) }
            if endStream { throw MessageFramingError(description: "the server ended the call \(settings.method) without trailers") }
        case .reset(let stream, let code):
            let isCall = call(on: stream) != nil
            let text = "the server reset \(isCall && calls == 1 ? "the call" : "call \(stream)") (\(HTTP2Frame.errorName(code)))"
            guard isCall else {
                // RST_STREAM NO_ERROR after a call's trailers only says the server read no more of it (RFC 9113 §8.1).
                guard code != 0 else { return }
                act(.serverError(text))
                return try unaryCallEnded()
            }
            throw MessageFramingError(description: text)
        }
    }

    /// A header block ended: the response's headers (the call is under way), or its trailers (it ended).
    private func headersEnded(stream: UInt32, endStream: Bool, _ act: (SessionAction) -> Void) throws(MessageFramingError) {
        defer {
            (httpStatus, grpcStatus) = (0, nil)
            grpcMessage.removeAll(keepingCapacity: true)
        }
        let call = call(on: stream)
        if endStream && call == nil { try unaryCallEnded() }
        if httpStatus != 0 && httpStatus != 200 {
            let text = "\(settings.method(for: role)): HTTP status \(httpStatus)"
            guard call != nil else { return act(.serverError(text)) }
            act(.serverError(text))
            throw MessageFramingError(description: text)
        }
        guard endStream else {
            if let call { confirm(call, act) }
            return
        }
        let isCall = call != nil
        let status = grpcStatus ?? -1
        let words = grpcStatus == nil ? "trailers without a grpc-status" : Self.describe(status: status, message: grpcMessage)
        if status != 0 { act(.serverError("\(settings.method(for: role)): \(words)")) }
        if isCall { throw MessageFramingError(description: "the server ended the call \(settings.method): \(words)") }
    }

    /// Takes every whole gRPC message off the front of `bytes`, each a delivery; returns the bytes they took.
    private func deliver(_ bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) -> Int {
        var start = 0
        while start + 5 <= bytes.count {
            guard bytes[start] == 0 else {
                throw MessageFramingError(description: "a compressed gRPC message, though bench offers no grpc-accept-encoding")
            }
            let length = Int(HTTP2Connection.word(bytes, at: start + 1))
            guard length <= maximumMessageSize else {
                throw MessageFramingError(description: "a gRPC message of \(length) bytes, over the \(maximumMessageSize) taken")
            }
            guard start + 5 + length <= bytes.count else { break }
            confirm(actingCall, act)  // a server that sends no headers before its first message
            act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[start + 5..<start + 5 + length])))
            start += 5 + length
        }
        return start
    }

    /// A unary call's stream ended (its trailers, its last DATA, a reset): one more may open, and a publisher the
    /// server sent away is done once its last call ended.
    private func unaryCallEnded() throws(MessageFramingError) {
        if unaryCallsOpen > 0 { unaryCallsOpen -= 1 }
        try closeIfGoneAway()
    }

    /// The publisher after a GOAWAY in order, its calls under way all ended: its connection closes (and comes back
    /// with `--reconnect`), as a gRPC channel opens a new one.
    private func closeIfGoneAway() throws(MessageFramingError) {
        guard takesNoNewStreams && role == .publisher && unaryCallsOpen == 0 else { return }
        throw MessageFramingError(description: "the server went away in order (GOAWAY NO_ERROR) and the last call ended")
    }

    /// The server took `call` (its headers, or its first message): once every call is taken, the connection is ready.
    private func confirm(_ call: Int, _ act: (SessionAction) -> Void) {
        guard !confirmed[call] else { return }
        confirmed[call] = true
        confirmedCount += 1
        if confirmedCount == calls { becomeReady(act) }
    }

    private func becomeReady(_ act: (SessionAction) -> Void) {
        guard !isReady else { return }
        isReady = true
        act(.ready)
    }

    /// A message with gRPC's prefix: not compressed, its length.
    static func framed(_ message: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0]
        HTTP2Frame.appendWord(UInt32(message.count), to: &bytes)
        return bytes + message
    }

    /// A status for people: its number, name and message (percent-decoded, as gRPC sends it).
    static func describe(status: Int, message: [UInt8]) -> String {
        let names = [
            "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
            "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
            "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
        ]
        let name = names.indices.contains(status) ? " \(names[status])" : ""
        let text = String(decoding: message, as: UTF8.self).removingPercentEncodingOfGRPC
        return "grpc-status \(status)\(name)" + (text.isEmpty ? "" : ": \(text)")
    }
}

extension String {
    /// gRPC's percent-encoding of `grpc-message` undone (`%20` → a space); what is not a valid escape stays.
    fileprivate var removingPercentEncodingOfGRPC: String {
        var bytes: [UInt8] = []
        var input = Array(utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
