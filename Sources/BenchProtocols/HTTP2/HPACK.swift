/// HPACK's primitives (RFC 7541): the static table, integers with an N-bit prefix, string literals; and this side's
/// encoder, which writes literals without indexing only (its header blocks are the same bytes whatever went before, so a
/// publication made once is sent again and again; the server's dynamic table is never touched).
enum HPACK {
    /// RFC 7541 Appendix A: index 1 is the first.
    static let staticTable: [(name: String, value: String)] = [
        (":authority", ""),
        (":method", "GET"),
        (":method", "POST"),
        (":path", "/"),
        (":path", "/index.html"),
        (":scheme", "http"),
        (":scheme", "https"),
        (":status", "200"),
        (":status", "204"),
        (":status", "206"),
        (":status", "304"),
        (":status", "400"),
        (":status", "404"),
        (":status", "500"),
        ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"),
        ("accept-language", ""),
        ("accept-ranges", ""),
        ("accept", ""),
        ("access-control-allow-origin", ""),
        ("age", ""),
        ("allow", ""),
        ("authorization", ""),
        ("cache-control", ""),
        ("content-disposition", ""),
        ("content-encoding", ""),
        ("content-language", ""),
        ("content-length", ""),
        ("content-location", ""),
        ("content-range", ""),
        ("content-type", ""),
        ("cookie", ""),
        ("date", ""),
        ("etag", ""),
        ("expect", ""),
        ("expires", ""),
        ("from", ""),
        ("host", ""),
        ("if-match", ""),
        ("if-modified-since", ""),
        ("if-none-match", ""),
        ("if-range", ""),
        ("if-unmodified-since", ""),
        ("last-modified", ""),
        ("link", ""),
        ("location", ""),
        ("max-forwards", ""),
        ("proxy-authenticate", ""),
        ("proxy-authorization", ""),
        ("range", ""),
        ("referer", ""),
        ("refresh", ""),
        ("retry-after", ""),
        ("server", ""),
        ("set-cookie", ""),
        ("strict-transport-security", ""),
        ("transfer-encoding", ""),
        ("user-agent", ""),
        ("vary", ""),
        ("via", ""),
        ("www-authenticate", ""),
    ]

    /// The static table's entries as bytes, for the decoder (built once).
    static let staticBytes: [(name: [UInt8], value: [UInt8])] = staticTable.map { (Array($0.name.utf8), Array($0.value.utf8)) }

    /// `value` with an `prefix`-bit prefix onto `output`, its first byte's high bits `flags` (RFC 7541 §5.1).
    static func appendInteger(_ value: Int, prefix: Int, flags: UInt8, to output: inout [UInt8]) {
        let limit = (1 << prefix) - 1
        guard value >= limit else {
            output.append(flags | UInt8(value))
            return
        }
        output.append(flags | UInt8(limit))
        var rest = value - limit
        while rest >= 128 {
            output.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }

    /// The integer with an `prefix`-bit prefix at `position` in `block`, moving `position` past it; refused past the
    /// block's end or beyond 2^28 (no header block of this harness's needs more).
    static func integer(in block: UnsafeRawBufferPointer, at position: inout Int, prefix: Int) throws(HPACKError) -> Int {
        guard position < block.count else { throw HPACKError("a header block that ends inside an integer") }
        let limit = (1 << prefix) - 1
        var value = Int(block[position]) & limit
        position += 1
        guard value == limit else { return value }
        var shift = 0
        while true {
            guard position < block.count else { throw HPACKError("a header block that ends inside an integer") }
            let byte = block[position]
            position += 1
            // Four continuation bytes reach 2^28 already: a fifth is refused before its shift could wrap the value.
            guard shift <= 21 else { throw HPACKError("an integer over 2^28") }
            value += Int(byte & 0x7F) << shift
            shift += 7
            guard value < 1 << 28 else { throw HPACKError("an integer over 2^28") }
            if byte & 0x80 == 0 { return value }
        }
    }

    /// A string literal onto `output`: Huffman-coded where that is shorter (RFC 7541 §5.2).
    static func appendString(_ text: String, to output: inout [UInt8]) {
        let bytes = Array(text.utf8)
        let coded = HPACKHuffman.encodedCount(bytes)
        if coded < bytes.count {
            appendInteger(coded, prefix: 7, flags: 0x80, to: &output)
            HPACKHuffman.encode(bytes, into: &output)
        } else {
            appendInteger(bytes.count, prefix: 7, flags: 0, to: &output)
            output.append(contentsOf: bytes)
        }
    }

    /// The string literal at `position` in `block` into `output` (emptied first), moving `position` past it.
    static func string(
        in block: UnsafeRawBufferPointer, at position: inout Int, into output: inout [UInt8]
    ) throws(HPACKError) {
        guard position < block.count else { throw HPACKError("a header block that ends before a string") }
        let huffman = block[position] & 0x80 != 0
        let length = try integer(in: block, at: &position, prefix: 7)
        guard length <= block.count - position else { throw HPACKError("a string longer than its header block") }
        let bytes = UnsafeRawBufferPointer(rebasing: block[position..<position + length])
        position += length
        output.removeAll(keepingCapacity: true)
        if huffman { try HPACKHuffman.decode(bytes, into: &output) } else { output.append(contentsOf: bytes) }
    }

    /// A header block of `fields`, each a literal without indexing (RFC 7541 §6.2.2): its name by its static index
    /// where the static table has it.
    static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            if let index = staticTable.firstIndex(where: { $0.name == name }) {
                appendInteger(index + 1, prefix: 4, flags: 0, to: &block)
            } else {
                block.append(0)
                appendString(name, to: &block)
            }
            appendString(value, to: &block)
        }
        return block
    }
}
