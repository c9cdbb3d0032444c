/// How messages are cut out of a TCP stream by a user's server (`--framing`), for `tcp://` targets.
public enum MessageFraming: String, Sendable, CaseIterable {
    /// A 4-byte big-endian length, then the message (as GCDAsyncSocket-style clients frame).
    case length32
    /// A 2-byte big-endian length, then the message.
    case length16
    /// The message, then a newline; messages hold no newline.
    case line
    /// STX (0x02), destination (1 byte), source (1 byte), length (2 bytes, big-endian, of the data), the data, and a
    /// CRC-16/CCITT-FALSE (2 bytes, big-endian) over destination to data. The length is explicit: no byte stuffing.
    case stx

    /// Bytes before the message body.
    public var headerSize: Int {
        switch self {
        case .length32: 4
        case .length16: 2
        case .line: 0
        case .stx: 5
        }
    }

    /// Bytes after the message body.
    public var trailerSize: Int {
        switch self {
        case .line: 1
        case .stx: 2
        default: 0
        }
    }

    /// The largest body the framing can say.
    public var maximumBodySize: Int {
        switch self {
        case .length32: Int(Int32.max)
        case .length16, .stx: 0xFFFF
        case .line: Int.max
        }
    }

    /// Writes header and trailer around the body at `buffer[headerSize..<buffer.count - trailerSize]`.
    @inline(__always)
    public func frame(_ buffer: UnsafeMutableRawBufferPointer) {
        let body = buffer.count - headerSize - trailerSize
        switch self {
        case .length32:
            buffer.storeBytes(of: UInt32(body).bigEndian, as: UInt32.self)
        case .length16:
            buffer.storeBytes(of: UInt16(body).bigEndian, as: UInt16.self)
        case .line:
            buffer[buffer.count - 1] = UInt8(ascii: "\n")
        case .stx:
            buffer[0] = 0x02
            buffer[1] = 0x01  // destination: the server
            buffer[2] = 0x00  // source: a bench client
            buffer.storeBytes(of: UInt16(body).bigEndian, toByteOffset: 3, as: UInt16.self)
            let crc = CRC16.ccittFalse(UnsafeRawBufferPointer(rebasing: buffer[1..<buffer.count - 2]))
            buffer.storeBytes(of: crc.bigEndian, toByteOffset: buffer.count - 2, as: UInt16.self)
        }
    }
}

/// A message the server sent that its framing cannot hold: the connection is closed with this reason.
public struct MessageFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Cuts messages out of a stream by a ``MessageFraming``, however the stream was split or coalesced; a message wholly
/// inside a chunk is handed on in place, a message cut by a chunk boundary is carried over (at most
/// `maximumMessageSize` bytes, then reused).
public struct MessageDecoder {
    public let framing: MessageFraming
    /// The largest message accepted, framing included.
    public let maximumMessageSize: Int
    private var pending: [UInt8] = []
    /// The whole size of the message in `pending`, once its header (or end of line) was seen.
    private var pendingSize: Int?

    public init(framing: MessageFraming, maximumMessageSize: Int) {
        self.framing = framing
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes of a message not complete yet.
    public var bufferedByteCount: Int { pending.count }

    /// Decodes a chunk; `onMessage` gets each message's body (framing removed) and returns false to stop.
    @discardableResult
    public mutating func decode(
        _ input: UnsafeMutableRawBufferPointer, _ onMessage: (UnsafeMutableRawBufferPointer) -> Bool
    ) throws(MessageFramingError) -> Bool {
        var offset = 0
        while !pending.isEmpty && offset < input.count {
            if let size = pendingSize {
                let taken = min(size - pending.count, input.count - offset)
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset..<offset + taken]))
                offset += taken
            } else {
                // The header (or, for lines, the end) is not there yet: a byte at a time until it is.
                let byte = input[offset]
                pending.append(byte)
                offset += 1
                if framing == .line {
                    if byte == UInt8(ascii: "\n") {
                        pendingSize = pending.count
                    } else if pending.count >= maximumMessageSize {
                        throw MessageFramingError(description: "a line longer than \(maximumMessageSize) bytes")
                    }
                } else {
                    pendingSize = try messageSize(in: UnsafeRawBufferPointer(start: nil, count: 0), pending: true)
                }
            }
            guard let size = pendingSize, pending.count == size else { continue }
            let framing = self.framing
            let proceed = try pending.withUnsafeMutableBytes { bytes in
                Result { () throws(MessageFramingError) in onMessage(try Self.body(of: bytes, framing)) }
            }.get()
            pending.removeAll(keepingCapacity: true)
            pendingSize = nil
            guard proceed else { return false }
        }
        while offset < input.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: input[offset...])
            let size = try messageSize(in: UnsafeRawBufferPointer(rest), pending: false)
            guard let size, size <= rest.count else {
                // Carried over to the next chunk: its size, once known, was checked against the limit.
                pending.append(contentsOf: UnsafeRawBufferPointer(rest))
                pendingSize = size
                return true
            }
            offset += size
            guard onMessage(try Self.body(of: UnsafeMutableRawBufferPointer(rebasing: rest[0..<size]), framing)) else { return false }
        }
        return true
    }

    /// The whole size of the message that starts `bytes` (or `pending`), once its header is there; nil before.
    private func messageSize(in bytes: UnsafeRawBufferPointer, pending usePending: Bool) throws(MessageFramingError) -> Int? {
        func byte(_ index: Int) -> UInt8? {
            if usePending { return index < pending.count ? pending[index] : nil }
            return index < bytes.count ? bytes[index] : nil
        }
        let count = usePending ? pending.count : bytes.count
        let size: Int?
        switch framing {
        case .length32:
            guard let a = byte(0), let b = byte(1), let c = byte(2), let d = byte(3) else { return nil }
            size = 4 + Int(UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d))
        case .length16:
            guard let a = byte(0), let b = byte(1) else { return nil }
            size = 2 + Int(UInt16(a) << 8 | UInt16(b))
        case .stx:
            guard let start = byte(0) else { return nil }
            guard start == 0x02 else { throw MessageFramingError(description: "an stx message does not start with STX (0x02) but 0x\(String(start, radix: 16))") }
            guard let a = byte(3), let b = byte(4) else { return nil }
            size = 7 + Int(UInt16(a) << 8 | UInt16(b))
        case .line:
            var found: Int?
            for index in 0..<min(count, maximumMessageSize) where byte(index) == UInt8(ascii: "\n") {
                found = index + 1
                break
            }
            if found == nil && count >= maximumMessageSize {
                throw MessageFramingError(description: "a line longer than \(maximumMessageSize) bytes")
            }
            size = found
        }
        if let size, size > maximumMessageSize {
            throw MessageFramingError(description: "a \(framing.rawValue) message of \(size) bytes; at most \(maximumMessageSize)")
        }
        return size
    }

    /// The body of a whole message, its CRC checked (stx).
    private static func body(
        of message: UnsafeMutableRawBufferPointer, _ framing: MessageFraming
    ) throws(MessageFramingError) -> UnsafeMutableRawBufferPointer {
        if framing == .stx {
            let crc = CRC16.ccittFalse(UnsafeRawBufferPointer(rebasing: message[1..<message.count - 2]))
            let sent = UInt16(message[message.count - 2]) << 8 | UInt16(message[message.count - 1])
            guard crc == sent else {
                throw MessageFramingError(description: "an stx message's CRC is 0x\(String(sent, radix: 16)), not 0x\(String(crc, radix: 16))")
            }
        }
        return UnsafeMutableRawBufferPointer(rebasing: message[framing.headerSize..<message.count - framing.trailerSize])
    }
}
