/// What a message to a user's server carries so that it can be found again in what the server sends back: the run,
/// the client and the sequence number, in fixed-width ASCII that survives JSON, lines and text protocols:
///
///     #bench-<run: 16 hex>-<client: 8 hex>-<sequence: 8 hex>#
///
/// No clock value travels: sends and receives are stamped where they happen, on this machine's clock.
public struct Marker: Equatable, Sendable {
    /// The marker's size in bytes.
    public static let size = 42
    static let prefix = Array("#bench-".utf8)

    public var run: UInt64
    public var client: UInt32
    public var sequence: UInt32

    public init(run: UInt64, client: UInt32, sequence: UInt32) {
        self.run = run
        self.client = client
        self.sequence = sequence
    }

    /// Writes the marker at the start of `buffer` (at least ``size`` bytes).
    @inline(__always)
    public func write(into buffer: UnsafeMutableRawBufferPointer) {
        for (index, byte) in Self.prefix.enumerated() { buffer[index] = byte }
        Self.writeHex(run, digits: 16, into: buffer, at: 7)
        buffer[23] = UInt8(ascii: "-")
        Self.writeHex(UInt64(client), digits: 8, into: buffer, at: 24)
        buffer[32] = UInt8(ascii: "-")
        Self.writeHex(UInt64(sequence), digits: 8, into: buffer, at: 33)
        buffer[41] = UInt8(ascii: "#")
    }

    /// The size of the message's identifier (``writeIdentifier(into:)``).
    public static let identifierSize = 17

    /// Writes the message's identifier at the start of `buffer` (at least ``identifierSize`` bytes): its client and
    /// sequence in hex, `0000002a-00000007`, unique to each message of a run and no marker (a protocol that names each
    /// message it sends, as GraphQL's operation id, and may echo the name back).
    @inline(__always)
    public func writeIdentifier(into buffer: UnsafeMutableRawBufferPointer) {
        Self.writeHex(UInt64(client), digits: 8, into: buffer, at: 0)
        buffer[8] = UInt8(ascii: "-")
        Self.writeHex(UInt64(sequence), digits: 8, into: buffer, at: 9)
    }

    /// The first well-formed marker in `bytes`, or nil.
    public static func find(in bytes: UnsafeRawBufferPointer) -> Marker? {
        var start = 0
        while start + size <= bytes.count {
            guard bytes[start] == UInt8(ascii: "#") else {
                start += 1
                continue
            }
            if let marker = parse(UnsafeRawBufferPointer(rebasing: bytes[start..<start + size])) { return marker }
            start += 1
        }
        return nil
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Marker? {
        for (index, byte) in prefix.enumerated() where bytes[index] != byte { return nil }
        guard bytes[23] == UInt8(ascii: "-"), bytes[32] == UInt8(ascii: "-"), bytes[41] == UInt8(ascii: "#"),
            let run = hex(bytes, 7, 16), let client = hex(bytes, 24, 8), let sequence = hex(bytes, 33, 8)
        else { return nil }
        return Marker(run: run, client: UInt32(client), sequence: UInt32(sequence))
    }

    private static func hex(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ digits: Int) -> UInt64? {
        var value: UInt64 = 0
        for byte in bytes[start..<start + digits] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    @inline(__always)
    private static func writeHex(_ value: UInt64, digits: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let alphabet: StaticString = "0123456789abcdef"
        for position in 0..<digits {
            let nibble = Int(value >> UInt64(4 * (digits - 1 - position)) & 0xF)
            buffer[offset + position] = alphabet.utf8Start[nibble]
        }
    }
}
