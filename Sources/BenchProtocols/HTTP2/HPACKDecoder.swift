/// The server's header blocks decoded (RFC 7541): indexed fields, literals with and without indexing, never-indexed
/// literals, and dynamic table size updates, with the dynamic table they keep (entries evicted oldest first). Each
/// field goes to the caller as bytes valid during the call: a header block a server sends per call (a gRPC response's
/// headers and trailers) decodes into buffers reused from block to block.
struct HPACKDecoder {
    /// Newest last: dynamic index 1 is the last entry.
    private var entries: [(name: [UInt8], value: [UInt8])] = []
    /// The table's size by RFC 7541 §4.1: each entry's name and value, plus 32.
    private(set) var size = 0
    /// The size this side allows (SETTINGS_HEADER_TABLE_SIZE, 4,096 unless this side's SETTINGS say otherwise).
    let allowedSize: Int
    /// The size the server's encoder set last (at most ``allowedSize``).
    private(set) var maximumSize: Int
    private var name: [UInt8] = []
    private var value: [UInt8] = []

    init(allowedSize: Int = 4_096) {
        self.allowedSize = allowedSize
        maximumSize = allowedSize
        name.reserveCapacity(256)
        value.reserveCapacity(256)
    }

    /// The dynamic table's entries, newest first (tests compare them with RFC 7541 Appendix C's).
    var dynamicEntries: [(name: String, value: String)] {
        entries.reversed().map { (String(decoding: $0.name, as: UTF8.self), String(decoding: $0.value, as: UTF8.self)) }
    }

    /// Decodes a whole header block, handing each field to `field` in order.
    mutating func decode(
        _ block: UnsafeRawBufferPointer, _ field: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void
    ) throws(HPACKError) {
        var position = 0
        var fieldSeen = false
        while position < block.count {
            let first = block[position]
            if first & 0x80 != 0 {  // indexed field
                let (entryName, entryValue) = try entry(HPACK.integer(in: block, at: &position, prefix: 7))
                entryName.withUnsafeBytes { name in entryValue.withUnsafeBytes { field(name, $0) } }
            } else if first & 0xE0 == 0x20 {  // dynamic table size update, before any field
                guard !fieldSeen else { throw HPACKError("a dynamic table size update after a field") }
                let newSize = try HPACK.integer(in: block, at: &position, prefix: 5)
                guard newSize <= allowedSize else {
                    throw HPACKError("a dynamic table size of \(newSize) bytes, over the \(allowedSize) allowed")
                }
                maximumSize = newSize
                evict(toFit: 0)
                continue
            } else {
                let indexing = first & 0xC0 == 0x40
                let nameIndex = try HPACK.integer(in: block, at: &position, prefix: indexing ? 6 : 4)
                if nameIndex == 0 {
                    try HPACK.string(in: block, at: &position, into: &name)
                } else {
                    name.removeAll(keepingCapacity: true)
                    name.append(contentsOf: try entry(nameIndex).name)
                }
                try HPACK.string(in: block, at: &position, into: &value)
                name.withUnsafeBytes { name in value.withUnsafeBytes { value in field(name, value) } }
                if indexing { insert(name: name, value: value) }
            }
            fieldSeen = true
        }
    }

    /// The entry at `index` of the static table then the dynamic one; refused out of range.
    private func entry(_ index: Int) throws(HPACKError) -> (name: [UInt8], value: [UInt8]) {
        let statics = HPACK.staticBytes
        if index >= 1 && index <= statics.count { return statics[index - 1] }
        let dynamic = index - statics.count
        guard index >= 1 && dynamic <= entries.count else {
            throw HPACKError("index \(index), beyond the \(statics.count + entries.count) entries of the tables")
        }
        return entries[entries.count - dynamic]
    }

    /// Adds an entry, evicting the oldest until it fits; one larger than the table empties it (RFC 7541 §4.4).
    private mutating func insert(name: [UInt8], value: [UInt8]) {
        let added = name.count + value.count + 32
        evict(toFit: added)
        guard added <= maximumSize else { return }
        entries.append((name, value))
        size += added
    }

    private mutating func evict(toFit added: Int) {
        while size + added > maximumSize, let oldest = entries.first {
            size -= oldest.name.count + oldest.value.count + 32
            entries.removeFirst()
        }
    }
}
