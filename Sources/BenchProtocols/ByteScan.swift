/// What the text protocols' parsers look for in received bytes, on the bytes: no string per message.
enum ByteScan {
    static func hasPrefix(_ prefix: StaticString, _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Bool {
        guard end - start >= prefix.utf8CodeUnitCount else { return false }
        for index in 0..<prefix.utf8CodeUnitCount where bytes[start + index] != prefix.utf8Start[index] { return false }
        return true
    }

    /// The non-negative decimal number in `bytes[start..<end]`, or nil.
    static func decimal(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int? {
        guard end > start, end - start <= 18 else { return nil }
        var value = 0
        for byte in bytes[start..<end] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// True when `needle` occurs in `haystack` (an empty needle occurs everywhere).
    @inline(__always)
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: haystack) != nil
    }

    /// True when one of `needles` occurs in `haystack`: a line's alternatives (`code="110" || code='110'`).
    @inline(__always)
    static func containsAny(_ haystack: UnsafeRawBufferPointer, _ needles: [[UInt8]]) -> Bool {
        needles.contains { contains(haystack, $0) }
    }

    /// Where `needle` first occurs in `haystack` at or after `from`, or nil.
    @inline(__always)
    static func firstIndex(of needle: [UInt8], in haystack: UnsafeRawBufferPointer, from: Int = 0) -> Int? {
        guard !needle.isEmpty else { return from }
        guard haystack.count - from >= needle.count else { return nil }
        let first = needle[0]
        var start = from
        while start <= haystack.count - needle.count {
            if haystack[start] == first {
                var index = 1
                while index < needle.count && haystack[start + index] == needle[index] { index += 1 }
                if index == needle.count { return start }
            }
            start += 1
        }
        return nil
    }

    /// Where the first CRLF at or after `start` begins, or nil.
    static func crlf(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }
}
