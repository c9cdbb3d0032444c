import BenchCore

/// gRPC over HTTP/2 (gRPC's PROTOCOL-HTTP2) as one connection speaks it, over ``HTTP2Connection``:
/// - a fan-out subscriber calls the server-streaming method of the URL with `--subscribe`'s message on stream 1, and
///   each response message is a delivery;
/// - a round trip's client opens the bidirectional-streaming method on stream 1 and sends each of its messages on it;
///   each message the server sends on it is a delivery;
/// - the fan-out publisher calls the unary `--publish-method` once per broadcast, each call a stream of its own;
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
    private let settings: ServerProtocol.GRPCSettings
    private let role: SessionRole
    private let http2: HTTP2Connection
    /// The gRPC messages on the call's stream: a 5-byte prefix (compressed, length) and the message.
    private var messages: CarriedBytes
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
    private var nextStream: UInt32
    /// Its messages go as unary calls, each on a new stream (the publisher, a chat member), not on the call's stream.
    private var publishesByCalls: Bool { role == .publisher || settings.publishMethod != nil && !settings.bidirectional }
    /// A server-streaming call's subscriber: ready on the server's headers only (``isReady``).
    private var readyOnHeadersOnly: Bool { role == .subscriber && !settings.bidirectional }

    init(_ settings: ServerProtocol.GRPCSettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role, self.maximumMessageSize) = (settings, role, maximumMessageSize)
        http2 = HTTP2Connection(maximumMessageSize: maximumMessageSize)
        messages = CarriedBytes(maximumMessageSize: maximumMessageSize + 5)
        nextStream = role == .publisher ? 1 : Self.callStream + 2
    }

    public func connected(name: String) {
        outbox.append(HTTP2Connection.opening)
        if role == .subscriber {
            let streaming = settings.bidirectional
            outbox.append(HTTP2Frame.headers(requestHeaders(settings.method), stream: Self.callStream, endStream: false))
            if !streaming {
                // The command line checked the text (the room's number and a row's values put in are a string's).
                let request = (try? ProtobufText.encode(settings.subscribe).bytes) ?? []
                outbox.append(HTTP2Frame.data(Self.framed(request), stream: Self.callStream, endStream: true).frames)
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
            guard role == .subscriber && stream == Self.callStream else { return }  // a unary call's answer: not measured
            try messages.take(body) { (bytes) throws(MessageFramingError) in try self.deliver(bytes, act) }
            if endStream { throw MessageFramingError(description: "the server ended the call \(settings.method) without trailers") }
        case .reset(let stream, let code):
            let text = "the server reset \(stream == Self.callStream && role == .subscriber ? "the call" : "call \(stream)") "
                + "(\(HTTP2Frame.errorName(code)))"
            guard role == .subscriber && stream == Self.callStream else { return act(.serverError(text)) }
            throw MessageFramingError(description: text)
        }
    }

    /// A header block ended: the response's headers (the call is under way), or its trailers (it ended).
    private func headersEnded(stream: UInt32, endStream: Bool, _ act: (SessionAction) -> Void) throws(MessageFramingError) {
        defer {
            (httpStatus, grpcStatus) = (0, nil)
            grpcMessage.removeAll(keepingCapacity: true)
        }
        if httpStatus != 0 && httpStatus != 200 {
            let text = "\(settings.method(for: role)): HTTP status \(httpStatus)"
            guard role == .subscriber && stream == Self.callStream else { return act(.serverError(text)) }
            act(.serverError(text))
            throw MessageFramingError(description: text)
        }
        let isCall = role == .subscriber && stream == Self.callStream
        guard endStream else {
            if isCall { becomeReady(act) }
            return
        }
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
            becomeReady(act)  // a server that sends no headers before its first message
            act(.delivered(UnsafeRawBufferPointer(rebasing: bytes[start + 5..<start + 5 + length])))
            start += 5 + length
        }
        return start
    }

    public func publication(of payload: [UInt8]) -> Publication {
        publication(of: payload, markerAt: 0).publication
    }

    /// The publisher's or a chat member's unary call (HEADERS, then the request in DATA ending the stream; its stream
    /// given per message, ``willPublish(_:)``), or a round trip's message on its call's stream: `payload` is `--publish`'s text, encoded
    /// (``ProtobufText``), the marker followed from `markerAt` in the text to its place in the bytes.
    public func publication(of payload: [UInt8], markerAt: Int) -> (publication: Publication, markerOffset: Int) {
        let text = String(decoding: payload, as: UTF8.self)
        // The command line checked the text and that its marker is inside a string; should it not encode all the same,
        // the marker alone goes, in field 1, never over the frames' bytes.
        let placeholder = String(repeating: "#", count: Marker.size)
        let (message, offset) = (try? ProtobufText.encode(text, following: markerAt)).flatMap { $0.offset == nil ? nil : $0 }
            ?? (try! ProtobufText.encode("1: \"\(placeholder)\"", following: 4))
        let body = Self.framed(message)
        let keep = offset.map { 5 + $0..<5 + $0 + Marker.size }
        guard publishesByCalls else {
            let data = HTTP2Frame.data(body, stream: Self.callStream, endStream: false, keepingWhole: keep)
            return (Publication(bytes: data.frames, payloadOffset: 0), data.offset ?? 0)
        }
        let headers = HTTP2Frame.headers(requestHeaders(settings.publishMethod ?? settings.method), stream: 1, endStream: false)
        let data = HTTP2Frame.data(body, stream: 1, endStream: true, keepingWhole: keep)
        let bytes = headers + data.frames
        return (Publication(bytes: bytes, payloadOffset: 0), headers.count + (data.offset ?? 0))
    }

    /// Before a publication (marked, about to be written) goes out: false when its DATA does not fit the server's
    /// flow-control windows now, or this connection's stream ids are used up; the caller then counts it as not taken,
    /// as it does a write the socket's queue refuses. A unary call gets its stream, written into each of its frames.
    public func willPublish(_ message: UnsafeMutableRawBufferPointer) -> Bool {
        var data = 0
        var start = 0
        while start + 9 <= message.count {
            let length = Int(message[start]) << 16 | Int(message[start + 1]) << 8 | Int(message[start + 2])
            if message[start + 3] == HTTP2Frame.Kind.data.rawValue { data += length }
            start += 9 + length
        }
        guard publishesByCalls else { return http2.takes(data: data, onCallStream: true) }
        guard nextStream <= 0x7FFF_FFFF, http2.takes(data: data, onCallStream: false) else { return false }
        start = 0
        while start + 9 <= message.count {
            message[start + 5] = UInt8(truncatingIfNeeded: nextStream >> 24)
            message[start + 6] = UInt8(truncatingIfNeeded: nextStream >> 16)
            message[start + 7] = UInt8(truncatingIfNeeded: nextStream >> 8)
            message[start + 8] = UInt8(truncatingIfNeeded: nextStream)
            start += 9 + (Int(message[start]) << 16 | Int(message[start + 1]) << 8 | Int(message[start + 2]))
        }
        nextStream += 2
        return true
    }

    /// A call's request headers (gRPC's PROTOCOL-HTTP2: POST, `application/grpc`, `te: trailers`) and the user's
    /// metadata (`--header`), as a header block.
    private func requestHeaders(_ method: String) -> [UInt8] {
        HPACK.encode(
            [
                (":method", "POST"), (":scheme", settings.usesTLS ? "https" : "http"), (":path", method),
                (":authority", settings.authority), ("content-type", "application/grpc"), ("te", "trailers"),
                ("user-agent", "bench"),
            ] + settings.metadata.map { ($0.name.lowercased(), $0.value) })
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
