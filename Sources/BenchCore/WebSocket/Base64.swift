/// Base64 (RFC 4648, standard alphabet, with padding): what the WebSocket handshake's keys are written in.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in Base64.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        for start in stride(from: 0, to: input.count, by: 3) {
            let count = min(3, input.count - start)
            var group = UInt32(input[start]) << 16
            if count > 1 { group |= UInt32(input[start + 1]) << 8 }
            if count > 2 { group |= UInt32(input[start + 2]) }
            for position in 0..<4 {
                output.append(
                    position <= count ? alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes `text` encodes, or nil when it is not padded standard Base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        for start in stride(from: 0, to: input.count, by: 4) {
            var group: UInt32 = 0
            var padding = 0
            for position in 0..<4 {
                let character = input[start + position]
                if character == UInt8(ascii: "=") && start + 4 == input.count && position >= 2 {
                    padding += 1
                    group <<= 6
                    continue
                }
                guard padding == 0, let value = alphabet.firstIndex(of: character) else { return nil }
                group = group << 6 | UInt32(value)
            }
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padding < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
        }
        return output
    }
}
