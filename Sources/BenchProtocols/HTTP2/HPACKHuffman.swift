/// HPACK's Huffman code (RFC 7541 §5.2, Appendix B): strings in header blocks both ways. Encoding is for this side's
/// header fields, decoding for the server's; both are per header block, never per message.
enum HPACKHuffman {
    /// Each symbol's code (its low bits) and length in bits, symbol 256 being EOS, from RFC 7541 Appendix B.
    static let codes: [(code: UInt32, length: UInt8)] = [
        (0x1ff8, 13), (0x7fffd8, 23), (0xfffffe2, 28), (0xfffffe3, 28), (0xfffffe4, 28), (0xfffffe5, 28),
        (0xfffffe6, 28), (0xfffffe7, 28), (0xfffffe8, 28), (0xffffea, 24), (0x3ffffffc, 30), (0xfffffe9, 28),
        (0xfffffea, 28), (0x3ffffffd, 30), (0xfffffeb, 28), (0xfffffec, 28), (0xfffffed, 28), (0xfffffee, 28),
        (0xfffffef, 28), (0xffffff0, 28), (0xffffff1, 28), (0xffffff2, 28), (0x3ffffffe, 30), (0xffffff3, 28),
        (0xffffff4, 28), (0xffffff5, 28), (0xffffff6, 28), (0xffffff7, 28), (0xffffff8, 28), (0xffffff9, 28),
        (0xffffffa, 28), (0xffffffb, 28), (0x14, 6), (0x3f8, 10), (0x3f9, 10), (0xffa, 12),
        (0x1ff9, 13), (0x15, 6), (0xf8, 8), (0x7fa, 11), (0x3fa, 10), (0x3fb, 10),
        (0xf9, 8), (0x7fb, 11), (0xfa, 8), (0x16, 6), (0x17, 6), (0x18, 6),
        (0x0, 5), (0x1, 5), (0x2, 5), (0x19, 6), (0x1a, 6), (0x1b, 6),
        (0x1c, 6), (0x1d, 6), (0x1e, 6), (0x1f, 6), (0x5c, 7), (0xfb, 8),
        (0x7ffc, 15), (0x20, 6), (0xffb, 12), (0x3fc, 10), (0x1ffa, 13), (0x21, 6),
        (0x5d, 7), (0x5e, 7), (0x5f, 7), (0x60, 7), (0x61, 7), (0x62, 7),
        (0x63, 7), (0x64, 7), (0x65, 7), (0x66, 7), (0x67, 7), (0x68, 7),
        (0x69, 7), (0x6a, 7), (0x6b, 7), (0x6c, 7), (0x6d, 7), (0x6e, 7),
        (0x6f, 7), (0x70, 7), (0x71, 7), (0x72, 7), (0xfc, 8), (0x73, 7),
        (0xfd, 8), (0x1ffb, 13), (0x7fff0, 19), (0x1ffc, 13), (0x3ffc, 14), (0x22, 6),
        (0x7ffd, 15), (0x3, 5), (0x23, 6), (0x4, 5), (0x24, 6), (0x5, 5),
        (0x25, 6), (0x26, 6), (0x27, 6), (0x6, 5), (0x74, 7), (0x75, 7),
        (0x28, 6), (0x29, 6), (0x2a, 6), (0x7, 5), (0x2b, 6), (0x76, 7),
        (0x2c, 6), (0x8, 5), (0x9, 5), (0x2d, 6), (0x77, 7), (0x78, 7),
        (0x79, 7), (0x7a, 7), (0x7b, 7), (0x7ffe, 15), (0x7fc, 11), (0x3ffd, 14),
        (0x1ffd, 13), (0xffffffc, 28), (0xfffe6, 20), (0x3fffd2, 22), (0xfffe7, 20), (0xfffe8, 20),
        (0x3fffd3, 22), (0x3fffd4, 22), (0x3fffd5, 22), (0x7fffd9, 23), (0x3fffd6, 22), (0x7fffda, 23),
        (0x7fffdb, 23), (0x7fffdc, 23), (0x7fffdd, 23), (0x7fffde, 23), (0xffffeb, 24), (0x7fffdf, 23),
        (0xffffec, 24), (0xffffed, 24), (0x3fffd7, 22), (0x7fffe0, 23), (0xffffee, 24), (0x7fffe1, 23),
        (0x7fffe2, 23), (0x7fffe3, 23), (0x7fffe4, 23), (0x1fffdc, 21), (0x3fffd8, 22), (0x7fffe5, 23),
        (0x3fffd9, 22), (0x7fffe6, 23), (0x7fffe7, 23), (0xffffef, 24), (0x3fffda, 22), (0x1fffdd, 21),
        (0xfffe9, 20), (0x3fffdb, 22), (0x3fffdc, 22), (0x7fffe8, 23), (0x7fffe9, 23), (0x1fffde, 21),
        (0x7fffea, 23), (0x3fffdd, 22), (0x3fffde, 22), (0xfffff0, 24), (0x1fffdf, 21), (0x3fffdf, 22),
        (0x7fffeb, 23), (0x7fffec, 23), (0x1fffe0, 21), (0x1fffe1, 21), (0x3fffe0, 22), (0x1fffe2, 21),
        (0x7fffed, 23), (0x3fffe1, 22), (0x7fffee, 23), (0x7fffef, 23), (0xfffea, 20), (0x3fffe2, 22),
        (0x3fffe3, 22), (0x3fffe4, 22), (0x7ffff0, 23), (0x3fffe5, 22), (0x3fffe6, 22), (0x7ffff1, 23),
        (0x3ffffe0, 26), (0x3ffffe1, 26), (0xfffeb, 20), (0x7fff1, 19), (0x3fffe7, 22), (0x7ffff2, 23),
        (0x3fffe8, 22), (0x1ffffec, 25), (0x3ffffe2, 26), (0x3ffffe3, 26), (0x3ffffe4, 26), (0x7ffffde, 27),
        (0x7ffffdf, 27), (0x3ffffe5, 26), (0xfffff1, 24), (0x1ffffed, 25), (0x7fff2, 19), (0x1fffe3, 21),
        (0x3ffffe6, 26), (0x7ffffe0, 27), (0x7ffffe1, 27), (0x3ffffe7, 26), (0x7ffffe2, 27), (0xfffff2, 24),
        (0x1fffe4, 21), (0x1fffe5, 21), (0x3ffffe8, 26), (0x3ffffe9, 26), (0xffffffd, 28), (0x7ffffe3, 27),
        (0x7ffffe4, 27), (0x7ffffe5, 27), (0xfffec, 20), (0xfffff3, 24), (0xfffed, 20), (0x1fffe6, 21),
        (0x3fffe9, 22), (0x1fffe7, 21), (0x1fffe8, 21), (0x7ffff3, 23), (0x3fffea, 22), (0x3fffeb, 22),
        (0x1ffffee, 25), (0x1ffffef, 25), (0xfffff4, 24), (0xfffff5, 24), (0x3ffffea, 26), (0x7ffff4, 23),
        (0x3ffffeb, 26), (0x7ffffe6, 27), (0x3ffffec, 26), (0x3ffffed, 26), (0x7ffffe7, 27), (0x7ffffe8, 27),
        (0x7ffffe9, 27), (0x7ffffea, 27), (0x7ffffeb, 27), (0xffffffe, 28), (0x7ffffec, 27), (0x7ffffed, 27),
        (0x7ffffee, 27), (0x7ffffef, 27), (0x7fffff0, 27), (0x3ffffee, 26), (0x3fffffff, 30),
    ]

    /// How many bytes `bytes` take Huffman-coded.
    static func encodedCount(_ bytes: some Sequence<UInt8>) -> Int {
        (bytes.reduce(0) { $0 + Int(codes[Int($1)].length) } + 7) / 8
    }

    /// `bytes` Huffman-coded onto `output`, padded with the most significant bits of EOS (all ones).
    static func encode(_ bytes: some Sequence<UInt8>, into output: inout [UInt8]) {
        var pending: UInt64 = 0
        var bits = 0
        for byte in bytes {
            let (code, length) = codes[Int(byte)]
            pending = pending << UInt64(length) | UInt64(code)
            bits += Int(length)
            while bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: pending >> UInt64(bits)))
            }
        }
        if bits > 0 { output.append(UInt8(truncatingIfNeeded: pending << UInt64(8 - bits) | (0xFF >> UInt64(bits)))) }
    }

    /// A node of the decoding tree: its children by the next bit, or the symbol a code ends in.
    private struct Node {
        var children: (Int32, Int32) = (-1, -1)
        var symbol: Int16 = -1
    }

    /// The codes as a binary tree, built once.
    private static let tree: [Node] = {
        var nodes = [Node()]
        for (symbol, (code, length)) in codes.enumerated() {
            var at = 0
            for bit in stride(from: Int(length) - 1, through: 0, by: -1) {
                let one = code >> UInt32(bit) & 1 == 1
                var next = one ? nodes[at].children.1 : nodes[at].children.0
                if next < 0 {
                    next = Int32(nodes.count)
                    nodes.append(Node())
                    if one { nodes[at].children.1 = next } else { nodes[at].children.0 = next }
                }
                at = Int(next)
            }
            nodes[at].symbol = Int16(symbol)
        }
        return nodes
    }()

    /// `bytes` decoded onto `output`. Refused (RFC 7541 §5.2): EOS in the string, padding longer than 7 bits, or
    /// padding that is not EOS's first bits.
    static func decode(_ bytes: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(HPACKError) {
        let tree = Self.tree
        var at = 0
        var bitsSinceSymbol = 0
        var onesSinceSymbol = true
        for byte in bytes {
            for bit in stride(from: 7, through: 0, by: -1) {
                let one = byte >> UInt8(bit) & 1 == 1
                let next = one ? tree[at].children.1 : tree[at].children.0
                guard next >= 0 else { throw HPACKError("a Huffman code that is no symbol's") }
                at = Int(next)
                bitsSinceSymbol += 1
                onesSinceSymbol = onesSinceSymbol && one
                let symbol = tree[at].symbol
                guard symbol >= 0 else { continue }
                guard symbol != 256 else { throw HPACKError("EOS inside a Huffman-coded string") }
                output.append(UInt8(symbol))
                (at, bitsSinceSymbol, onesSinceSymbol) = (0, 0, true)
            }
        }
        guard bitsSinceSymbol <= 7 else { throw HPACKError("Huffman padding longer than 7 bits") }
        guard onesSinceSymbol else { throw HPACKError("Huffman padding that is not EOS's bits") }
    }
}

/// A header block this side cannot decode (RFC 7541's COMPRESSION_ERROR), with why.
public struct HPACKError: Error, Equatable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
