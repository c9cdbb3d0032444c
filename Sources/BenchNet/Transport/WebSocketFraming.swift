import BenchCore

/// RFC 6455 framing: the HTTP Upgrade handshake, then one bench frame per binary message.
///
/// The server unmasks clients' frames in place; a client masks each frame it sends with a fresh key, in place (the
/// frame is an echo it will not read again). Pings are answered with pongs, a close frame with a close frame; every
/// protocol violation throws ``ConnectionError/webSocket(_:)`` with the status code the connection closes with.
public struct WebSocketFraming: FramingLayer {
    private enum State {
        /// Server: reading the Upgrade request. Client: waiting for the 101.
        case handshaking
        case open
        /// The peer's close frame came (and was answered).
        case closed
    }

    private let role: TransportRole
    private let path: String
    private let host: String
    private var state = State.handshaking
    private var headReader = HTTPHeadReader()
    /// A client refused: why, and how much of the refusal's body (its reason) to wait for; the body so far.
    private var refusalWaiting: (problem: String, wanted: Int)?
    private var refusalBody: [UInt8] = []

    public var pendingRefusal: String? {
        refusalWaiting.map { Self.refusal($0.problem, body: refusalBody) }
    }
    /// The client's Sec-WebSocket-Key, to check the answer against.
    private var key = ""
    private var parser: WebSocketFrameParser
    /// Masking keys for a client's frames (RFC 6455 wants them unpredictable; a run's own generator is enough
    /// against the intermediaries the rule guards against).
    private var random: SplitMix64
    public private(set) var pingsReceived = 0
    /// What a message goes out as: binary (bench frames), or text for a user's server that wants it.
    private let dataOpcode: WebSocketOpcode
    /// A client's: the subprotocol it asks for, and the user's fields it adds to its handshake.
    private let subprotocol: String?
    private let extraFields: [HeaderField]

    public init(role: TransportRole, settings: TransportSettings) {
        self.role = role
        self.path = settings.webSocketPath
        self.host = settings.webSocketHost
        self.subprotocol = settings.webSocketSubprotocol
        self.extraFields = settings.handshakeFields
        self.parser = WebSocketFrameParser(
            maximumMessageSize: settings.maximumFrameSize, peerMasks: role == .server, acceptsText: settings.webSocketText)
        self.dataOpcode = settings.webSocketText ? .text : .binary
        if settings.webSocketOpenedBelow { state = .open }
        var system = SystemRandomNumberGenerator()
        self.random = SplitMix64(seed: system.next(), stream: 0)
    }

    public var isEstablished: Bool { state == .open }

    public mutating func start(_ reply: (UnsafeRawBufferPointer) -> Bool) throws(ConnectionError) {
        guard role == .client, state == .handshaking else { return }
        key = WebSocketHandshake.makeKey(using: &random)
        let request = WebSocketHandshake.request(
            host: host, path: path, key: key, subprotocol: subprotocol, extra: extraFields).bytes
        guard request.withUnsafeBytes({ reply($0) }) else { throw .handshake("could not send the Upgrade request") }
    }

    @inline(__always)
    public mutating func unwrap(
        _ bytes: UnsafeMutableRawBufferPointer, offset: inout Int, reply: (UnsafeRawBufferPointer) -> Bool
    ) throws(ConnectionError) -> FramingOutput? {
        if state == .handshaking {
            if let (problem, wanted) = refusalWaiting {  // the refusal's body, coming after its head
                refusalBody += bytes[offset...]
                offset = bytes.count
                if refusalBody.count >= wanted { throw .handshake(Self.refusal(problem, body: refusalBody.prefix(wanted))) }
                return nil
            }
            offset += try handshake(with: UnsafeRawBufferPointer(rebasing: bytes[offset...]), reply: reply)
            guard state == .open else { return nil }
        }
        while true {
            let event: WebSocketEvent?
            do {
                event = try parser.next(bytes, offset: &offset)
            } catch {
                throw .webSocket(error)
            }
            switch event {
            case nil:
                return nil
            case .data(let payload):
                return .data(payload)
            case .messageEnd:
                return .messageEnd
            case .ping(let payload):
                pingsReceived += 1
                let mask = nextMask()
                payload.withUnsafeBytes { payload in
                    _ = Self.sendControl(.pong, payload: payload, mask: mask, reply: reply)
                }
            case .pong:
                continue
            case .close(let code, let reason):
                // Answer the close with the same code, as RFC 6455 5.5.1 asks, then report it.
                let mask = nextMask()
                withUnsafeBytes(of: (code ?? WebSocketCloseCode.normal).bigEndian) { status in
                    let payload = code == nil ? UnsafeRawBufferPointer(start: nil, count: 0) : status
                    _ = Self.sendControl(.close, payload: payload, mask: mask, reply: reply)
                }
                state = .closed
                throw .closedByPeer("WebSocket close" + (code.map { " \($0)" } ?? "") + (reason.isEmpty ? "" : " " + reason))
            }
        }
    }

    /// A frame head, or a whole control frame (a close with its reason, a ping).
    public static var scratchSize: Int { 2 * WebSocketFrameHeader.maximumSize + 128 }

    @inline(__always)
    public mutating func head(for body: UnsafeMutableRawBufferPointer, into head: UnsafeMutableRawBufferPointer) -> Int {
        guard role == .client else {
            return WebSocketFrameHeader.write(dataOpcode, payloadLength: body.count, mask: nil, into: head)
        }
        let mask = UInt32(truncatingIfNeeded: random.next())
        WebSocketFrameHeader.applyMask(mask, to: body)
        return WebSocketFrameHeader.write(dataOpcode, payloadLength: body.count, mask: mask, into: head)
    }

    public mutating func ping(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        Self.writeControl(.ping, payload: UnsafeRawBufferPointer(start: nil, count: 0), mask: nextMask(), into: buffer)
    }

    public mutating func close(code: UInt16, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard state == .open else { return 0 }
        let mask = nextMask()
        return withUnsafeBytes(of: code.bigEndian) { Self.writeControl(.close, payload: $0, mask: mask, into: buffer) }
    }

    /// A fresh masking key on a client, nil on the server.
    private mutating func nextMask() -> UInt32? {
        role == .client ? UInt32(truncatingIfNeeded: random.next()) : nil
    }

    /// Reads the handshake's HTTP head from `bytes`; returns how many bytes it used (what follows is frames).
    private mutating func handshake(
        with bytes: UnsafeRawBufferPointer, reply: (UnsafeRawBufferPointer) -> Bool
    ) throws(ConnectionError) -> Int {
        let found: (head: HTTPHead, used: Int)?
        do {
            found = try headReader.consume(bytes)
        } catch {
            if role == .server { _ = WebSocketHandshake.refusal(.init(status: 400, reason: "")).bytes.withUnsafeBytes(reply) }
            throw .handshake("\(error)")
        }
        guard let (head, used) = found else { return bytes.count }
        switch role {
        case .server:
            let answer: HTTPHead
            do {
                answer = try WebSocketHandshake.answer(to: head, path: path)
            } catch {
                _ = WebSocketHandshake.refusal(error).bytes.withUnsafeBytes(reply)
                throw .handshake("refused with \(error.status): \(error.reason)")
            }
            guard answer.bytes.withUnsafeBytes(reply) else { throw .handshake("could not send the 101") }
        case .client:
            if let problem = WebSocketHandshake.problem(withAnswer: head, key: key, subprotocol: subprotocol) {
                // A refusal's body is the server's reason (a 401's "token expired"): its first 200 bytes are waited
                // for where its Content-Length announces them (a server may write it apart from the head).
                let announced = head.startLine.contains(" 101 ") ? 0 : min(head.value(of: "Content-Length").flatMap { Int($0) } ?? 0, 200)
                guard bytes.count - used >= announced else {
                    refusalWaiting = (problem, announced)
                    refusalBody = Array(bytes[used...])
                    return bytes.count
                }
                throw .handshake(Self.refusal(problem, body: head.startLine.contains(" 101 ") ? bytes[used..<used] : bytes[used...]))
            }
        }
        headReader = HTTPHeadReader()  // its bytes are not needed again
        state = .open
        return used
    }

    /// Why a handshake was refused, with the start of the refusal's body (the server's words, without control
    /// characters) where it has one.
    private static func refusal(_ problem: String, body: some Collection<UInt8>) -> String {
        let words = String(decoding: body.prefix(200), as: UTF8.self).unicodeScalars
            .map { $0.value < 0x20 || $0.value == 0x7F ? " " : String($0) }.joined()
            .split(separator: " ").joined(separator: " ")
        return words.isEmpty ? problem : "\(problem): \(words)"
    }

    /// Writes a control frame (at most 125 bytes of payload) into `buffer`; returns its size.
    private static func writeControl(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, mask: UInt32?, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        let size = WebSocketFrameHeader.write(opcode, payloadLength: payload.count, mask: mask, into: buffer)
        let body = UnsafeMutableRawBufferPointer(rebasing: buffer[size..<size + payload.count])
        if payload.count > 0 { body.copyMemory(from: payload) }
        if let mask { WebSocketFrameHeader.applyMask(mask, to: body) }
        return size + payload.count
    }

    /// Sends a control frame through `reply`.
    private static func sendControl(
        _ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, mask: UInt32?, reply: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        withUnsafeTemporaryAllocation(byteCount: WebSocketFrameHeader.maximumSize + 125, alignment: 8) { buffer in
            let size = writeControl(opcode, payload: payload, mask: mask, into: buffer)
            return reply(UnsafeRawBufferPointer(rebasing: buffer[0..<size]))
        }
    }
}
