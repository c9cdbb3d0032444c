import BenchCore

/// One request's stream on an HTTP/2 connection (``HTTP2Connection``) as a pipe of bytes, for what HTTP/1.1 carries
/// on a connection of its own: a WebSocket, opened by extended CONNECT (RFC 8441, `:protocol websocket`), or a
/// Server-Sent Events stream, a GET whose response body is the events. The request goes on stream 1, and the
/// response's DATA comes out in place, unpadded, as the body (``next(_:offset:outbox:)``); every other frame is the
/// connection's. What this side sends goes in DATA frames on stream 1 (``dataHead(for:endStream:into:)``), within the
/// server's flow-control windows (``takes(_:)``).
///
/// The CONNECT waits for the server's SETTINGS, which must offer it (SETTINGS_ENABLE_CONNECT_PROTOCOL); a GET goes at
/// once, as a browser sends it. A 2xx response opens the pipe (``isOpen``); any other is refused with its status and
/// the start of its body, in the server's words; a reset, or the end of the stream, closes it with why.
public final class HTTP2Tunnel {
    /// What the stream is for.
    public enum Request: Sendable, Equatable {
        /// A WebSocket (RFC 8441), asking for `subprotocol` where one is named.
        case webSocket(subprotocol: String?)
        /// A Server-Sent Events stream.
        case eventStream
    }

    private let http2: HTTP2Connection
    private let request: [UInt8]
    private let waitsForExtendedConnect: Bool
    /// The WebSocket subprotocol asked for, which the response must name; what it named.
    private var subprotocol: String?
    private var answeredSubprotocol: [UInt8]?
    /// The statuses that open the pipe: 2xx for a CONNECT (RFC 8441), 200 for an event stream (as over HTTP/1.1).
    private let successes: Range<Int>
    private var requestSent = false
    /// The response's status, once its headers came (0 before).
    private var status = 0
    /// The server answered the request with 2xx: the body is the pipe's.
    public private(set) var isOpen = false
    /// A response that is not 2xx: the start of its body, gathered for the refusal.
    private var refusalBody: [UInt8]?
    /// The stream ended (END_STREAM); the pipe is closed at the next read.
    private var ended = false
    /// Room for a DATA frame of the layer above's own (``wrapping(_:_:)``), reused.
    private var wrapped: [UInt8] = []

    // The frame being read: its header, then either stream 1's DATA in place or another frame gathered whole.
    private var header = [UInt8](repeating: 0, count: 9)
    private var headerFill = 0
    private var frame: [UInt8] = []
    private var frameLeft = 0
    private var padLengthComing = false
    private var dataLeft = 0
    private var paddingLeft = 0
    private var endsAfterData = false

    /// The stream this side's request is on.
    static let stream: UInt32 = 1
    /// The most of a refused response's body kept for its reason.
    static let refusalExcerpt = 512

    /// A tunnel for `request` to `path` on `authority` (host:port), over TLS where `usesTLS` (the `:scheme`), with
    /// the user's `fields` (`--header`) added to the request.
    public init(_ request: Request, path: String, authority: String, usesTLS: Bool, fields: [HeaderField], maximumMessageSize: Int) {
        http2 = HTTP2Connection(maximumMessageSize: maximumMessageSize, callStreams: 1)
        var pseudo: [(name: String, value: String)]
        switch request {
        case .webSocket(let subprotocol):
            pseudo = [(":method", "CONNECT"), (":protocol", "websocket"), (":scheme", usesTLS ? "https" : "http"), (":path", path),
                (":authority", authority), ("sec-websocket-version", "13")]
            if let subprotocol { pseudo.append(("sec-websocket-protocol", subprotocol)) }
        case .eventStream:
            pseudo = [(":method", "GET"), (":scheme", usesTLS ? "https" : "http"), (":path", path), (":authority", authority),
                ("accept", "text/event-stream"), ("cache-control", "no-cache")]
        }
        let block = HPACK.encode(pseudo + [("user-agent", "bench")] + fields.map { ($0.name.lowercased(), $0.value) })
        // A GET has no body: its HEADERS end this side of the stream; a CONNECT's stream carries the WebSocket.
        self.request = HTTP2Frame.headers(block, stream: Self.stream, endStream: request == .eventStream)
        waitsForExtendedConnect = request != .eventStream
        if case .webSocket(let subprotocol) = request { self.subprotocol = subprotocol }
        successes = request == .eventStream ? 200..<201 : 200..<300
    }

    /// What this side sends first, once connected: the connection's preface, and the request where it need not wait.
    public func start(outbox: inout SessionOutbox) {
        outbox.append(HTTP2Connection.opening)
        if !waitsForExtendedConnect {
            outbox.append(request)
            requestSent = true
        }
    }

    /// Why the server refused the request, while its refusal's body is still coming (the server may close first).
    public var pendingRefusal: String? { refusalBody.map { refusal(body: $0) } }

    /// The next piece of the response's body in `bytes` from `offset` on (moved past what it used), in place, or nil
    /// once `bytes` is used up. Every other frame is taken on the way, and what the connection owes the server (its
    /// SETTINGS acknowledged, a PING answered, windows opened, the CONNECT once allowed) goes into `outbox`.
    public func next(
        _ bytes: UnsafeMutableRawBufferPointer, offset: inout Int, outbox: inout SessionOutbox
    ) throws(MessageFramingError) -> UnsafeMutableRawBufferPointer? {
        while offset < bytes.count {
            try checkEnded()
            if padLengthComing {
                let padding = Int(bytes[offset])
                offset += 1
                padLengthComing = false
                guard padding < dataLeft else { throw Self.refusal("PROTOCOL_ERROR", "padding as long as its frame") }
                (dataLeft, paddingLeft) = (dataLeft - 1 - padding, padding)
                if dataLeft == 0 && paddingLeft == 0 { frameEnded() }
            } else if dataLeft > 0 {
                let count = min(dataLeft, bytes.count - offset)
                let body = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + count])
                offset += count
                dataLeft -= count
                if dataLeft == 0 && paddingLeft == 0 { frameEnded() }
                guard refusalBody == nil else {
                    refusalBody!.append(contentsOf: body.prefix(Self.refusalExcerpt - refusalBody!.count))
                    continue
                }
                return body
            } else if paddingLeft > 0 {
                let count = min(paddingLeft, bytes.count - offset)
                (offset, paddingLeft) = (offset + count, paddingLeft - count)
                if paddingLeft == 0 { frameEnded() }
            } else if frameLeft > 0 {
                let count = min(frameLeft, bytes.count - offset)
                frame.append(contentsOf: bytes[offset..<offset + count])
                (offset, frameLeft) = (offset + count, frameLeft - count)
                if frameLeft == 0 { try whole(outbox: &outbox) }
            } else {
                let count = min(9 - headerFill, bytes.count - offset)
                header.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: headerFill).copyMemory(from: bytes.baseAddress!.advanced(by: offset), byteCount: count) }
                (offset, headerFill) = (offset + count, headerFill + count)
                if headerFill == 9 { try headerRead(outbox: &outbox) }
            }
        }
        try checkEnded()
        return nil
    }

    /// A frame's header is read: stream 1's DATA comes in place; any other frame is gathered whole.
    private func headerRead(outbox: inout SessionOutbox) throws(MessageFramingError) {
        headerFill = 0
        if !http2.serverSettingsSeen && header.starts(with: "HTTP/1.".utf8) {
            throw MessageFramingError(
                description: "the server answered in HTTP/1.1, not HTTP/2: over cleartext, --http2 speaks HTTP/2 at once "
                    + "(prior knowledge, h2c), which this server does not take")
        }
        let length = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
        guard length <= HTTP2Frame.maximumPayload else {
            throw Self.refusal("FRAME_SIZE_ERROR", "a frame of \(length) bytes, over SETTINGS_MAX_FRAME_SIZE (\(HTTP2Frame.maximumPayload))")
        }
        let stream = UInt32(header[5] & 0x7F) << 24 | UInt32(header[6]) << 16 | UInt32(header[7]) << 8 | UInt32(header[8])
        guard header[3] == HTTP2Frame.Kind.data.rawValue && stream == Self.stream else {
            frame.removeAll(keepingCapacity: true)
            frame.append(contentsOf: header)
            frameLeft = length
            if length == 0 { try whole(outbox: &outbox) }
            return
        }
        guard http2.serverSettingsSeen else { throw Self.refusal("PROTOCOL_ERROR", "the server's first frame is not SETTINGS (type 0)") }
        guard !http2.isInHeaderBlock else { throw Self.refusal("PROTOCOL_ERROR", "a frame of type 0 inside a header block") }
        guard status != 0 else { throw Self.refusal("PROTOCOL_ERROR", "DATA on stream 1 before the response's headers") }
        http2.consumed(length, on: stream, outbox: &outbox)
        endsAfterData = header[4] & HTTP2Frame.endStream != 0
        padLengthComing = header[4] & HTTP2Frame.padded != 0
        dataLeft = length
        if padLengthComing && length == 0 { throw Self.refusal("PROTOCOL_ERROR", "padding as long as its frame") }
        if length == 0 { frameEnded() }
    }

    private func frameEnded() {
        if endsAfterData { ended = true }
        endsAfterData = false
    }

    private func checkEnded() throws(MessageFramingError) {
        guard ended else { return }
        throw MessageFramingError(description: refusalBody.map { refusal(body: $0) } ?? "the server ended the stream (END_STREAM)")
    }

    /// A whole frame other than stream 1's DATA, for the connection; then the request, once the server's SETTINGS
    /// allow it.
    private func whole(outbox: inout SessionOutbox) throws(MessageFramingError) {
        let failure: MessageFramingError? = frame.withUnsafeBytes { bytes in
            do throws(MessageFramingError) {
                try http2.received(bytes, outbox: &outbox) { (event) throws(MessageFramingError) in try self.handle(event) }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        guard !requestSent && http2.serverSettingsSeen else { return }
        guard http2.offersExtendedConnect else {
            throw MessageFramingError(
                description: "the server does not take WebSocket over HTTP/2: its SETTINGS do not enable the extended CONNECT "
                    + "(SETTINGS_ENABLE_CONNECT_PROTOCOL, RFC 8441)")
        }
        outbox.append(request)
        requestSent = true
    }

    private func handle(_ event: HTTP2Connection.Event) throws(MessageFramingError) {
        switch event {
        case .field(let stream, let name, let value) where stream == Self.stream && !isOpen:
            if name.elementsEqual(":status".utf8) { status = Int(String(decoding: value, as: UTF8.self)) ?? -1 }
            if name.elementsEqual("sec-websocket-protocol".utf8) { answeredSubprotocol = Array(value) }
        case .headersEnded(let stream, let endStream) where stream == Self.stream:
            if isOpen {  // trailers: the stream ends with them
                if endStream { ended = true }
                return
            }
            if (100..<200).contains(status) && !endStream { return status = 0 }  // an interim response: the real one follows
            if successes.contains(status) {
                guard !endStream else {
                    throw MessageFramingError(description: "the server answered :status \(status) and ended the stream at once")
                }
                if let subprotocol, answeredSubprotocol.map({ String(decoding: $0, as: UTF8.self).lowercased() }) != subprotocol.lowercased() {
                    throw MessageFramingError(
                        description: "the server did not take the WebSocket subprotocol \(subprotocol) (it answered "
                            + (answeredSubprotocol.map { $0.withUnsafeBytes { PeerExcerpt.of($0) } } ?? "none") + ")")
                }
                return isOpen = true
            }
            refusalBody = refusalBody ?? []
            if endStream { ended = true }
        case .reset(let stream, let code) where stream == Self.stream:
            throw MessageFramingError(
                description: (refusalBody.map { refusal(body: $0) + "; then " } ?? "")
                    + "the server reset the stream (\(HTTP2Frame.errorName(code)))")
        case .goingAway(let lastStream, let text) where lastStream < Self.stream:
            throw MessageFramingError(description: text)
        default:
            break  // another stream's, a PING's answer, a GOAWAY that keeps stream 1
        }
    }

    private func refusal(body: [UInt8]) -> String {
        let excerpt = body.withUnsafeBytes { PeerExcerpt.of($0) }
        return "the server answered :status \(status)" + (excerpt.isEmpty ? "" : ": \(excerpt)")
    }

    private static func refusal(_ code: String, _ reason: String) -> MessageFramingError {
        MessageFramingError(description: "HTTP/2 \(code): \(reason)")
    }

    // MARK: Sending

    /// The size of the head before each piece this side sends: a DATA frame's header.
    public static let headSize = 9

    /// True, and the server's windows debited, when `count` bytes of DATA fit them now; false: the server does not
    /// read, and they are not sent.
    public func takes(_ count: Int) -> Bool { http2.takes(data: count, onCallStream: true) }

    /// Why `count` bytes of DATA cannot go now, without taking them: more than a frame carries, or more than the
    /// server's windows hold (it has not read what came); nil when they can.
    public func refusal(of count: Int) -> String? {
        if count > Self.maximumData { return "\(count) B is more than one HTTP/2 DATA frame carries (\(Self.maximumData) B)" }
        return http2.fits(data: count, onCallStream: true)
            ? nil : "the server's HTTP/2 flow-control window is closed: it has not read what was sent"
    }

    /// Gives back what ``takes(_:)`` took for bytes not sent after all.
    public func untakes(_ count: Int) { http2.untakes(data: count, onCallStream: true) }

    /// Writes the header of a DATA frame of `count` bytes on stream 1 into `head` (``headSize`` bytes).
    public static func dataHead(for count: Int, endStream: Bool = false, into head: UnsafeMutableRawBufferPointer) {
        head[0] = UInt8(truncatingIfNeeded: count >> 16)
        head[1] = UInt8(truncatingIfNeeded: count >> 8)
        head[2] = UInt8(truncatingIfNeeded: count)
        head[3] = HTTP2Frame.Kind.data.rawValue
        head[4] = endStream ? HTTP2Frame.endStream : 0
        (head[5], head[6], head[7], head[8]) = (0, 0, 0, UInt8(Self.stream))
    }

    /// Sends `bytes` of the layer above's own (a WebSocket pong or close) through `send` as one DATA frame, in one
    /// write; not at all when the server's windows are closed (true then, as a full queue drops such bytes).
    public func wrapping(_ bytes: UnsafeRawBufferPointer, _ send: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard bytes.count <= Self.maximumData, takes(bytes.count) else { return true }
        wrapped.removeAll(keepingCapacity: true)
        wrapped.append(contentsOf: repeatElement(0, count: Self.headSize))
        wrapped.withUnsafeMutableBytes { Self.dataHead(for: bytes.count, into: $0) }
        wrapped.append(contentsOf: bytes)
        return wrapped.withUnsafeBytes { send($0) }
    }

    /// The most one DATA frame carries.
    public static let maximumData = HTTP2Frame.maximumPayload

    /// An HTTP/2 PING, which the server answers.
    public static func ping() -> [UInt8] { HTTP2Frame.ping(2) }
}
