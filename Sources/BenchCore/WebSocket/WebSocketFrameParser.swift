/// A protocol violation by the peer: the close code to answer with (RFC 6455, 7.4.1) and why.
public struct WebSocketError: Error, Equatable, Sendable, CustomStringConvertible {
    public var code: UInt16
    public var reason: String

    public init(_ code: UInt16, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "WebSocket \(code): \(reason)" }
}

/// What the parser found in the stream, in order.
public enum WebSocketEvent {
    /// Payload bytes of the current data message, unmasked in place: the callee may change them.
    case data(UnsafeMutableRawBufferPointer)
    /// The current data message is complete.
    case messageEnd
    /// A ping, with its payload (to send back in the pong). Control frames are rare: their few bytes are copied.
    case ping([UInt8])
    case pong([UInt8])
    /// The peer closes, with its status code and reason if it gave them (the reason's printable ASCII, else `?`).
    case close(code: UInt16?, reason: String)
}

/// Cuts a byte stream into WebSocket frames (RFC 6455, 5), however the stream was split or coalesced.
///
/// The caller pulls events one at a time with ``next(_:offset:)``, so it may do anything between two of them (send
/// a reply, close the connection) without the parser being in the middle of a call. Data payloads are handed out in
/// place, as they lie in the chunk read, unmasked there when the peer masks (a client), so a message costs no copy;
/// only the header of a frame cut by a chunk boundary (at most 14 bytes) and a control frame's payload (at most 125
/// bytes) are carried over, in buffers made once. Continuation frames are handed out as more of the same message.
/// Every rule a peer can break throws ``WebSocketError`` with the close code to answer; the parser must not be used
/// again then.
public struct WebSocketFrameParser {
    /// The largest data message accepted, in payload bytes.
    public let maximumMessageSize: Int
    /// True on the server's side: the peer is a client and must mask every frame.
    public let peerMasks: Bool
    /// Text messages are passed on like binary ones (for servers that speak text); otherwise refused with 1003.
    public let acceptsText: Bool

    private var header = [UInt8](repeating: 0, count: WebSocketFrameHeader.maximumSize)
    private var headerCount = 0
    /// The frame whose payload is being read.
    private var opcode = WebSocketOpcode.binary
    private var isFinal = false
    private var mask: UInt32 = 0
    private var remaining: UInt64 = 0
    private var payloadSeen = 0
    private var inPayload = false
    /// A data message began and its final frame has not come yet.
    private var inMessage = false
    private var messageSize = 0
    /// The last data handed out ended its message: ``WebSocketEvent/messageEnd`` comes next.
    private var messageEndOwed = false
    /// A control frame's payload, collected whole before it is handed on.
    private var control: [UInt8] = []

    public init(maximumMessageSize: Int, peerMasks: Bool, acceptsText: Bool = false) {
        self.maximumMessageSize = maximumMessageSize
        self.peerMasks = peerMasks
        self.acceptsText = acceptsText
        control.reserveCapacity(125)
    }

    /// Bytes of a frame or message received in part: true when the peer closes means it stopped half-way.
    public var isInsideMessage: Bool { inMessage || headerCount > 0 || inPayload }

    /// The next event in `input` from `offset` on, which it moves past what it used; nil when `input` is used up
    /// (what it held of an incomplete frame is kept for the next chunk).
    public mutating func next(
        _ input: UnsafeMutableRawBufferPointer, offset: inout Int
    ) throws(WebSocketError) -> WebSocketEvent? {
        while true {
            if messageEndOwed {
                messageEndOwed = false
                return .messageEnd
            }
            if !inPayload {
                guard offset < input.count else { return nil }
                let needed = headerNeeded()
                let taken = min(needed - headerCount, input.count - offset)
                for index in 0..<taken { header[headerCount + index] = input[offset + index] }
                headerCount += taken
                offset += taken
                guard headerCount == needed else { return nil }  // the chunk ended inside the header
                // The second byte tells how long the header is: read on if it is longer than was known.
                if headerNeeded() > needed { continue }
                try beginFrame()
                if opcode.isControl { control.removeAll(keepingCapacity: true) }
            }
            let available = min(UInt64(input.count - offset), remaining)
            let slice = UnsafeMutableRawBufferPointer(rebasing: input[offset..<offset + Int(available)])
            if peerMasks { WebSocketFrameHeader.applyMask(mask, to: slice, offset: payloadSeen) }
            offset += Int(available)
            remaining -= available
            payloadSeen += Int(available)
            let frameEnds = remaining == 0
            if frameEnds {
                inPayload = false
                headerCount = 0
            }
            if opcode.isControl {
                control.append(contentsOf: UnsafeRawBufferPointer(slice))
                if frameEnds { return try controlEvent() }
                return nil  // the chunk is used up
            }
            if frameEnds && isFinal {
                inMessage = false
                messageEndOwed = available > 0
                if available == 0 { return .messageEnd }
            }
            if available > 0 { return .data(slice) }
            if !frameEnds { return nil }
        }
    }

    /// Parses all of `input`, calling `onEvent` for each event; `onEvent` returns false to stop (the rest of the chunk
    /// is dropped). Returns false when it stopped.
    @discardableResult
    public mutating func parse(
        _ input: UnsafeMutableRawBufferPointer, _ onEvent: (WebSocketEvent) throws(WebSocketError) -> Bool
    ) throws(WebSocketError) -> Bool {
        var offset = 0
        while let event = try next(input, offset: &offset) {
            guard try onEvent(event) else { return false }
        }
        return true
    }

    /// Header bytes needed, as far as those seen tell.
    private func headerNeeded() -> Int {
        guard headerCount >= 2 else { return 2 }
        let maskSize = header[1] & 0x80 != 0 ? 4 : 0
        switch header[1] & 0x7F {
        case 126: return 4 + maskSize
        case 127: return 10 + maskSize
        default: return 2 + maskSize
        }
    }

    private mutating func beginFrame() throws(WebSocketError) {
        let first = header[0]
        let second = header[1]
        guard first & 0x70 == 0 else {
            throw WebSocketError(WebSocketCloseCode.protocolError, "a frame sets reserved bits (no extension was agreed)")
        }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw WebSocketError(WebSocketCloseCode.protocolError, "a frame has the unknown opcode \(first & 0x0F)")
        }
        let masked = second & 0x80 != 0
        guard masked == peerMasks else {
            throw WebSocketError(
                WebSocketCloseCode.protocolError,
                peerMasks ? "a client frame is not masked" : "a server frame is masked")
        }
        var length = UInt64(second & 0x7F)
        var position = 2
        if length == 126 {
            length = UInt64(header[2]) << 8 | UInt64(header[3])
            position = 4
        } else if length == 127 {
            length = (2..<10).reduce(UInt64(0)) { $0 << 8 | UInt64(header[$1]) }
            position = 10
            guard length >> 63 == 0 else {
                throw WebSocketError(WebSocketCloseCode.protocolError, "a frame's 64-bit length has its top bit set")
            }
        }
        mask = masked ? (position..<position + 4).reduce(UInt32(0)) { $0 << 8 | UInt32(header[$1]) } : 0
        isFinal = first & 0x80 != 0
        if opcode.isControl {
            guard isFinal else {
                throw WebSocketError(WebSocketCloseCode.protocolError, "a control frame (opcode \(opcode.rawValue)) is fragmented")
            }
            guard length <= 125 else {
                throw WebSocketError(
                    WebSocketCloseCode.protocolError, "a control frame (opcode \(opcode.rawValue)) carries \(length) bytes; at most 125")
            }
        } else {
            switch opcode {
            case .continuation:
                guard inMessage else {
                    throw WebSocketError(WebSocketCloseCode.protocolError, "a continuation frame without a message to continue")
                }
            case .text where !acceptsText:
                throw WebSocketError(WebSocketCloseCode.unsupportedData, "a text message; bench frames travel as binary")
            default:
                guard !inMessage else {
                    throw WebSocketError(WebSocketCloseCode.protocolError, "a new message began before the last one ended")
                }
                inMessage = true
                messageSize = 0
            }
            guard length <= UInt64(maximumMessageSize - messageSize) else {
                throw WebSocketError(
                    WebSocketCloseCode.messageTooBig,
                    "a message of more than \(maximumMessageSize) bytes (a frame announced \(length))")
            }
            messageSize += Int(length)
        }
        self.opcode = opcode
        remaining = length
        payloadSeen = 0
        inPayload = true
    }

    private func controlEvent() throws(WebSocketError) -> WebSocketEvent {
        switch opcode {
        case .ping:
            return .ping(control)
        case .pong:
            return .pong(control)
        default:  // close
            guard control.count != 1 else {
                throw WebSocketError(WebSocketCloseCode.protocolError, "a close frame with a 1-byte payload")
            }
            guard control.count >= 2 else { return .close(code: nil, reason: "") }
            let code = UInt16(control[0]) << 8 | UInt16(control[1])
            guard WebSocketCloseCode.isValid(code) else {
                throw WebSocketError(WebSocketCloseCode.protocolError, "a close frame with the invalid status \(code)")
            }
            let reason = control.dropFirst(2).map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "?" }
            return .close(code: code, reason: String(reason))
        }
    }
}
