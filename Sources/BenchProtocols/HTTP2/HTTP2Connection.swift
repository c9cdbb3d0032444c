import BenchCore

/// A client's side of one HTTP/2 connection (RFC 9113), as a state machine over the bytes the stream layer below it
/// (tcp, tls) delivers: frames in, ``Event``s out, and what the protocol owes the server (its SETTINGS acknowledged, a
/// PING answered, the receive windows opened again) in the outbox. The streams' meaning is the protocol above's
/// (``GRPCSession``).
///
/// Flow control: this side opens every window to 2^31 - 1 at once (SETTINGS_INITIAL_WINDOW_SIZE and the connection's
/// WINDOW_UPDATE) and gives back what it consumed once that is 2^30, so that a server never waits on a window this side
/// could open. The calls' streams (1, 3, …: a subscriber's, or the several a connection carries with
/// `--streams-per-connection`) are counted for their windows; a unary call's answer brings less than a window. What this side sends stays within the server's windows
/// (``takes(data:onCallStream:)``): the connection's, and the call stream's (stream 1, a round trip's) or a new
/// stream's. Every malformed frame is refused with a reason, a window the server opens past 2^31 - 1 among them.
final class HTTP2Connection {
    enum Event {
        /// One field of a header block on `stream` (the bytes are valid during the call).
        case field(stream: UInt32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)
        /// A header block on `stream` ended (`endStream`: the server ended the stream with it: trailers).
        case headersEnded(stream: UInt32, endStream: Bool)
        /// DATA on `stream`, without its padding (valid during the call).
        case data(stream: UInt32, UnsafeRawBufferPointer, endStream: Bool)
        /// The server reset `stream`, with its error code.
        case reset(stream: UInt32, code: UInt32)
        /// The server answered this side's PING.
        case pingAcknowledged
        /// The server goes away in order (GOAWAY with NO_ERROR, as a maximum connection age or a graceful stop):
        /// streams up to `lastStream` go on, no new one is taken; `text` says so for people.
        case goingAway(lastStream: UInt32, text: String)
    }

    /// The largest header block taken (a server's headers or trailers; CONTINUATIONs included).
    static let maximumHeaderBlock = 65_536
    /// What is consumed of a window before it is given back.
    static let windowRefill = 1 << 30

    /// What a client sends first: the preface, its SETTINGS (no server push, every stream's window 2^31 - 1) and the
    /// connection's window opened to 2^31 - 1.
    static let opening: [UInt8] = HTTP2Frame.preface
        + HTTP2Frame.settings([(0x2, 0), (0x4, UInt32(HTTP2Frame.maximumWindow))])
        + HTTP2Frame.windowUpdate(stream: 0, increment: HTTP2Frame.maximumWindow - 65_535)

    private var carried: CarriedBytes
    private var decoder = HPACKDecoder()
    private var headerBlock: [UInt8] = []
    /// A header block under way (HEADERS without END_HEADERS): its stream, and whether it ends the stream.
    private var continuing: (stream: UInt32, endStream: Bool)?
    /// The server's first frame must be its SETTINGS.
    private(set) var serverSettingsSeen = false
    /// The server's SETTINGS allow a CONNECT with `:protocol` (SETTINGS_ENABLE_CONNECT_PROTOCOL, RFC 8441): WebSocket
    /// over HTTP/2.
    private(set) var offersExtendedConnect = false
    private var connectionConsumed = 0
    /// Per call stream (1, 3, …), what it consumed of its window since it was last given back.
    private var streamConsumed: [Int]
    /// The server's windows for what this side sends (RFC 9113 §6.9): the connection's, a new stream's (its
    /// SETTINGS_INITIAL_WINDOW_SIZE), and the call stream's.
    private(set) var connectionSendWindow = 65_535
    private(set) var initialStreamWindow = 65_535
    private(set) var callStreamSendWindow = 65_535
    /// The streams the server allows open at once (SETTINGS_MAX_CONCURRENT_STREAMS; unlimited until it says).
    private(set) var maximumConcurrentStreams = Int.max

    /// The call stream, stream 1: the one a subscriber's or a round trip's call is on.
    static let callStream: UInt32 = 1

    /// A connection whose calls are on streams 1, 3, … (`callStreams` of them, 0 for a publisher's).
    init(maximumMessageSize: Int, callStreams: Int) {
        carried = CarriedBytes(maximumMessageSize: max(maximumMessageSize, HTTP2Frame.maximumPayload + 9))
        headerBlock.reserveCapacity(1_024)
        streamConsumed = Array(repeating: 0, count: callStreams)
    }

    /// Takes the frames in `bytes` (and what an earlier read left incomplete), handing each event to `event`.
    func received(
        _ bytes: UnsafeRawBufferPointer, outbox: inout SessionOutbox,
        _ event: (Event) throws(MessageFramingError) -> Void
    ) throws(MessageFramingError) {
        try carried.take(bytes) { (bytes) throws(MessageFramingError) in try self.frames(bytes, outbox: &outbox, event) }
    }

    /// Takes every whole frame off the front of `bytes`; returns the bytes they took.
    private func frames(
        _ bytes: UnsafeRawBufferPointer, outbox: inout SessionOutbox, _ event: (Event) throws(MessageFramingError) -> Void
    ) throws(MessageFramingError) -> Int {
        var start = 0
        while start + 9 <= bytes.count {
            let length = Int(bytes[start]) << 16 | Int(bytes[start + 1]) << 8 | Int(bytes[start + 2])
            guard length <= HTTP2Frame.maximumPayload else {
                throw refusal("FRAME_SIZE_ERROR", "a frame of \(length) bytes, over SETTINGS_MAX_FRAME_SIZE (\(HTTP2Frame.maximumPayload))")
            }
            guard start + 9 + length <= bytes.count else { break }
            let kind = bytes[start + 3], flags = bytes[start + 4]
            let stream = Self.word(bytes, at: start + 5) & 0x7FFF_FFFF
            try frame(
                kind: kind, flags: flags, stream: stream,
                payload: UnsafeRawBufferPointer(rebasing: bytes[start + 9..<start + 9 + length]), outbox: &outbox, event)
            start += 9 + length
        }
        return start
    }

    private func frame(
        kind: UInt8, flags: UInt8, stream: UInt32, payload: UnsafeRawBufferPointer, outbox: inout SessionOutbox,
        _ event: (Event) throws(MessageFramingError) -> Void
    ) throws(MessageFramingError) {
        let type = HTTP2Frame.Kind(rawValue: kind)
        guard serverSettingsSeen || type == .settings else {
            throw refusal("PROTOCOL_ERROR", "the server's first frame is not SETTINGS (type \(kind))")
        }
        if let continuing, type != .continuation || stream != continuing.stream {
            throw refusal("PROTOCOL_ERROR", "a frame of type \(kind) inside a header block on stream \(continuing.stream)")
        }
        switch type {
        case .data:
            guard stream != 0 else { throw refusal("PROTOCOL_ERROR", "DATA on stream 0") }
            let body = try Self.unpadded(payload, flags: flags)
            consumed(payload.count, on: stream, outbox: &outbox)
            try event(.data(stream: stream, body, endStream: flags & HTTP2Frame.endStream != 0))
        case .headers:
            guard stream != 0 else { throw refusal("PROTOCOL_ERROR", "HEADERS on stream 0") }
            var fragment = try Self.unpadded(payload, flags: flags)
            if flags & HTTP2Frame.priority != 0 {
                guard fragment.count >= 5 else { throw refusal("FRAME_SIZE_ERROR", "HEADERS too short for its priority") }
                fragment = UnsafeRawBufferPointer(rebasing: fragment[5...])
            }
            headerBlock.removeAll(keepingCapacity: true)
            continuing = (stream, flags & HTTP2Frame.endStream != 0)
            try headerFragment(fragment, ends: flags & HTTP2Frame.endHeaders != 0, event)
        case .continuation:
            guard continuing != nil else { throw refusal("PROTOCOL_ERROR", "CONTINUATION without HEADERS before it") }
            try headerFragment(payload, ends: flags & HTTP2Frame.endHeaders != 0, event)
        case .resetStream:
            guard stream != 0, payload.count == 4 else { throw refusal("PROTOCOL_ERROR", "a malformed RST_STREAM") }
            try event(.reset(stream: stream, code: Self.word(payload, at: 0)))
        case .settings:
            try settings(payload, flags: flags, stream: stream, outbox: &outbox)
        case .ping:
            guard stream == 0, payload.count == 8 else { throw refusal("PROTOCOL_ERROR", "a malformed PING") }
            if flags & HTTP2Frame.acknowledge != 0 { return try event(.pingAcknowledged) }
            outbox.append(HTTP2Frame.ping(UInt64(Self.word(payload, at: 0)) << 32 | UInt64(Self.word(payload, at: 4)), acknowledging: true))
        case .goAway:
            guard stream == 0, payload.count >= 8 else { throw refusal("PROTOCOL_ERROR", "a malformed GOAWAY") }
            let (code, lastStream) = (Self.word(payload, at: 4), Self.word(payload, at: 0) & 0x7FFF_FFFF)
            let debug = PeerExcerpt.of(UnsafeRawBufferPointer(rebasing: payload[8...]))
            let text = "the server sent GOAWAY (\(HTTP2Frame.errorName(code))\(debug.isEmpty ? "" : ": \(debug)"))"
                + "; its last stream \(lastStream)"
            guard code == 0 else { throw MessageFramingError(description: text) }
            try event(.goingAway(lastStream: lastStream, text: text))
        case .windowUpdate:
            guard payload.count == 4 else { throw refusal("FRAME_SIZE_ERROR", "a WINDOW_UPDATE of \(payload.count) bytes") }
            let increment = Int(Self.word(payload, at: 0) & 0x7FFF_FFFF)
            // On another stream (a unary call's, over at once) neither an increment nor a 0 matters to this side.
            guard stream == 0 || stream == Self.callStream else { return }
            guard increment != 0 else { throw refusal("PROTOCOL_ERROR", "a WINDOW_UPDATE of 0 on stream \(stream)") }
            if stream == 0 { connectionSendWindow += increment } else { callStreamSendWindow += increment }
            guard connectionSendWindow <= HTTP2Frame.maximumWindow && callStreamSendWindow <= HTTP2Frame.maximumWindow else {
                throw refusal("FLOW_CONTROL_ERROR", "a WINDOW_UPDATE that opens stream \(stream)'s window past 2^31 - 1")
            }
        case .pushPromise:
            throw refusal("PROTOCOL_ERROR", "PUSH_PROMISE, though this side's SETTINGS disabled server push")
        case .priority, nil:
            break  // priority is advice; a frame of an unknown type is ignored (RFC 9113 §4.1)
        }
    }

    /// Adds a header block fragment; the whole block, once it ends, is decoded into events.
    private func headerFragment(
        _ fragment: UnsafeRawBufferPointer, ends: Bool, _ event: (Event) throws(MessageFramingError) -> Void
    ) throws(MessageFramingError) {
        guard headerBlock.count + fragment.count <= Self.maximumHeaderBlock else {
            throw refusal("ENHANCE_YOUR_CALM", "a header block over \(Self.maximumHeaderBlock) bytes")
        }
        headerBlock.append(contentsOf: fragment)
        guard ends, let (stream, endStream) = continuing else { return }
        continuing = nil
        var failure: MessageFramingError?
        var malformed: HPACKError?
        headerBlock.withUnsafeBytes { block in
            do throws(HPACKError) {
                try decoder.decode(block) { name, value in
                    guard failure == nil else { return }
                    do throws(MessageFramingError) { try event(.field(stream: stream, name: name, value: value)) } catch { failure = error }
                }
            } catch {
                malformed = error
            }
        }
        if let malformed { throw refusal("COMPRESSION_ERROR", malformed.description) }
        if let failure { throw failure }
        try event(.headersEnded(stream: stream, endStream: endStream))
    }

    private func settings(
        _ payload: UnsafeRawBufferPointer, flags: UInt8, stream: UInt32, outbox: inout SessionOutbox
    ) throws(MessageFramingError) {
        guard stream == 0 else { throw refusal("PROTOCOL_ERROR", "SETTINGS on stream \(stream)") }
        if flags & HTTP2Frame.acknowledge != 0 {
            guard payload.isEmpty else { throw refusal("FRAME_SIZE_ERROR", "a SETTINGS acknowledgement with a payload") }
            return
        }
        guard payload.count % 6 == 0 else { throw refusal("FRAME_SIZE_ERROR", "SETTINGS of \(payload.count) bytes") }
        for start in stride(from: 0, to: payload.count, by: 6) {
            let identifier = UInt16(payload[start]) << 8 | UInt16(payload[start + 1])
            let value = Self.word(payload, at: start + 2)
            switch identifier {
            case 0x2 where value != 0: throw refusal("PROTOCOL_ERROR", "SETTINGS_ENABLE_PUSH of \(value) from a server")
            case 0x3:
                guard value > 0 || streamConsumed.isEmpty else {  // a publisher: no call now (a broadcast meanwhile is not taken)
                    throw refusal("REFUSED_STREAM", "the server allows no stream at all (SETTINGS_MAX_CONCURRENT_STREAMS 0)")
                }
                guard Int(value) >= streamConsumed.count else {
                    throw MessageFramingError(
                        description: "the server allows \(value) streams at once (SETTINGS_MAX_CONCURRENT_STREAMS), fewer than "
                            + "the \(streamConsumed.count) calls this connection carries (--streams-per-connection)")
                }
                maximumConcurrentStreams = Int(value)
            case 0x4:
                guard value <= UInt32(HTTP2Frame.maximumWindow) else {
                    throw refusal("FLOW_CONTROL_ERROR", "SETTINGS_INITIAL_WINDOW_SIZE of \(value), over 2^31 - 1")
                }
                callStreamSendWindow += Int(value) - initialStreamWindow  // an open stream's window moves by the change
                initialStreamWindow = Int(value)
                guard callStreamSendWindow <= HTTP2Frame.maximumWindow else {
                    throw refusal("FLOW_CONTROL_ERROR", "SETTINGS_INITIAL_WINDOW_SIZE that opens stream 1's window past 2^31 - 1")
                }
            case 0x8 where value > 1:
                throw refusal("PROTOCOL_ERROR", "SETTINGS_ENABLE_CONNECT_PROTOCOL of \(value), neither 0 nor 1")
            case 0x8: offersExtendedConnect = value == 1
            case 0x5 where value < 16_384 || value > 16_777_215:
                throw refusal("PROTOCOL_ERROR", "SETTINGS_MAX_FRAME_SIZE of \(value), outside 16384 to 16777215")
            default: break  // the server's limits on what this side sends: its frames and header blocks stay within the defaults
            }
        }
        serverSettingsSeen = true
        outbox.append(HTTP2Frame.settings([], acknowledging: true))
    }

    /// True, and the windows debited, when `count` bytes of DATA fit the server's windows now: on the call stream
    /// (`onCallStream`), or on a stream about to open; false leaves them as they are (the caller does not send).
    func takes(data count: Int, onCallStream: Bool) -> Bool {
        guard count <= connectionSendWindow && count <= (onCallStream ? callStreamSendWindow : initialStreamWindow) else {
            return false
        }
        connectionSendWindow -= count
        if onCallStream { callStreamSendWindow -= count }
        return true
    }

    /// True when `count` bytes of DATA fit the server's windows now (nothing taken).
    func fits(data count: Int, onCallStream: Bool) -> Bool {
        count <= connectionSendWindow && count <= (onCallStream ? callStreamSendWindow : initialStreamWindow)
    }

    /// A header block is under way (HEADERS without END_HEADERS): only its CONTINUATION may come.
    var isInHeaderBlock: Bool { continuing != nil }

    /// Gives back what ``takes(data:onCallStream:)`` took for DATA that was not sent after all.
    func untakes(data count: Int, onCallStream: Bool) {
        connectionSendWindow += count
        if onCallStream { callStreamSendWindow += count }
    }

    /// Counts DATA received against the windows, giving back each once 2^30 of it was consumed.
    func consumed(_ count: Int, on stream: UInt32, outbox: inout SessionOutbox) {
        connectionConsumed += count
        if connectionConsumed >= Self.windowRefill {
            outbox.append(HTTP2Frame.windowUpdate(stream: 0, increment: connectionConsumed))
            connectionConsumed = 0
        }
        let call = Int(stream - 1) / 2
        guard stream % 2 == 1 && call < streamConsumed.count else { return }
        streamConsumed[call] += count
        if streamConsumed[call] >= Self.windowRefill {
            outbox.append(HTTP2Frame.windowUpdate(stream: stream, increment: streamConsumed[call]))
            streamConsumed[call] = 0
        }
    }

    private static func unpadded(_ payload: UnsafeRawBufferPointer, flags: UInt8) throws(MessageFramingError) -> UnsafeRawBufferPointer {
        guard flags & HTTP2Frame.padded != 0 else { return payload }
        guard let padding = payload.first, Int(padding) < payload.count else {
            throw refusal("PROTOCOL_ERROR", "padding as long as its frame")
        }
        return UnsafeRawBufferPointer(rebasing: payload[1..<payload.count - Int(padding)])
    }

    static func word(_ bytes: UnsafeRawBufferPointer, at start: Int) -> UInt32 {
        UInt32(bytes[start]) << 24 | UInt32(bytes[start + 1]) << 16 | UInt32(bytes[start + 2]) << 8 | UInt32(bytes[start + 3])
    }

    private func refusal(_ code: String, _ reason: String) -> MessageFramingError {
        Self.refusal(code, reason)
    }

    private static func refusal(_ code: String, _ reason: String) -> MessageFramingError {
        MessageFramingError(description: "HTTP/2 \(code): \(reason)")
    }
}
