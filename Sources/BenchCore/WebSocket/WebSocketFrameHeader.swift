/// What a WebSocket frame carries (RFC 6455, 5.2).
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between a message's fragments.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// The status codes of a close frame that this harness sends (RFC 6455, 7.4.1).
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    /// The endpoint is going away: a server going down (RFC 6455 §7.4.1).
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    public static let messageTooBig: UInt16 = 1009

    /// Codes a peer may put in a close frame: the RFC's defined ones and the ranges for libraries and applications.
    public static func isValid(_ code: UInt16) -> Bool {
        (1000...1003).contains(code) || (1007...1011).contains(code) || (3000...4999).contains(code)
    }
}

/// Writing frame headers and masking payloads.
public enum WebSocketFrameHeader {
    /// The longest header: 2 bytes, 8 of extended length, 4 of masking key.
    public static let maximumSize = 14

    /// The header's size for a payload of `length` bytes, masked or not.
    @inline(__always)
    public static func size(payloadLength length: Int, masked: Bool) -> Int {
        (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + (masked ? 4 : 0)
    }

    /// Writes a final frame's header for a payload of `length` bytes at the start of `buffer` (which holds at least
    /// ``size(payloadLength:masked:)`` bytes) and returns its size. `mask` is the masking key, clients' frames only.
    @inline(__always)
    @discardableResult
    public static func write(
        _ opcode: WebSocketOpcode, payloadLength length: Int, mask: UInt32?, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        buffer[0] = 0x80 | opcode.rawValue
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        var size: Int
        if length < 126 {
            buffer[1] = maskBit | UInt8(length)
            size = 2
        } else if length <= 0xFFFF {
            buffer[1] = maskBit | 126
            buffer.storeBytes(of: UInt16(length).bigEndian, toByteOffset: 2, as: UInt16.self)
            size = 4
        } else {
            buffer[1] = maskBit | 127
            buffer.storeBytes(of: UInt64(length).bigEndian, toByteOffset: 2, as: UInt64.self)
            size = 10
        }
        if let mask {
            buffer.storeBytes(of: mask.bigEndian, toByteOffset: size, as: UInt32.self)
            size += 4
        }
        return size
    }

    /// XORs `bytes` with the masking key `mask` (big-endian, as on the wire), starting at key position `offset`
    /// (the payload's bytes seen before, modulo 4). Masking twice unmasks.
    @inline(__always)
    public static func applyMask(_ mask: UInt32, to bytes: UnsafeMutableRawBufferPointer, offset: Int = 0) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // The key rotated so that byte `offset` of it comes first, repeated over a word.
        let shift = UInt32(offset & 3) * 8
        let rotated = shift == 0 ? mask : mask << shift | mask >> (32 - shift)
        let key32 = rotated.bigEndian  // in memory order, as the bytes lie
        let key64 = UInt64(key32) | UInt64(key32) << 32
        var index = 0
        while index + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            base.storeBytes(of: word ^ key64, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bytes[index] ^= UInt8(truncatingIfNeeded: rotated >> UInt32(24 - 8 * (index & 3)))
            index += 1
        }
    }
}
