extension JSONText {
    /// The deepest nesting ``isObject(_:)`` reads (a flag's value, not a document).
    static let deepestNesting = 64

    /// True when `text` is one JSON object (RFC 8259), blanks around it allowed: a flag's value that a protocol sends
    /// as written (`--connection-params`), checked before any connection uses it.
    public static func isObject(_ text: String) -> Bool {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipBlanks()
        guard reader.peek == UInt8(ascii: "{"), reader.value(depth: 0) else { return false }
        reader.skipBlanks()
        return reader.isAtEnd
    }

    /// A recursive reader of JSON's grammar that only says whether the bytes follow it.
    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        var isAtEnd: Bool { at == bytes.count }
        var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipBlanks() {
            while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { at += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            at += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < JSONText.deepestNesting else { return false }
            skipBlanks()
            switch peek {
            case UInt8(ascii: "{"): return members(depth: depth)
            case UInt8(ascii: "["): return elements(depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return word("true")
            case UInt8(ascii: "f"): return word("false")
            case UInt8(ascii: "n"): return word("null")
            default: return number()
            }
        }

        mutating func members(depth: Int) -> Bool {
            at += 1
            skipBlanks()
            if take(UInt8(ascii: "}")) { return true }
            repeat {
                skipBlanks()
                guard string() else { return false }
                skipBlanks()
                guard take(UInt8(ascii: ":")), value(depth: depth + 1) else { return false }
                skipBlanks()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}"))
        }

        mutating func elements(depth: Int) -> Bool {
            at += 1
            skipBlanks()
            if take(UInt8(ascii: "]")) { return true }
            repeat {
                guard value(depth: depth + 1) else { return false }
                skipBlanks()
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]"))
        }

        mutating func string() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while let byte = peek {
                at += 1
                switch byte {
                case UInt8(ascii: "\""): return true
                case UInt8(ascii: "\\"):
                    guard let escaped = peek else { return false }
                    at += 1
                    if escaped == UInt8(ascii: "u") {
                        for _ in 0..<4 {
                            guard let digit = peek, digit.isHexDigit else { return false }
                            at += 1
                        }
                    } else if !Array("\"\\/bfnrt".utf8).contains(escaped) {
                        return false
                    }
                case ..<0x20: return false
                default: continue
                }
            }
            return false
        }

        mutating func word(_ word: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
            guard bytes.count - at >= expected.count, bytes[at..<at + expected.count].elementsEqual(expected) else {
                return false
            }
            at += expected.count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() -> Bool {
            _ = take(UInt8(ascii: "-"))
            if !take(UInt8(ascii: "0")) {
                guard let first = peek, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
                digits()
            }
            if take(UInt8(ascii: ".")) {
                guard peek?.isDigit == true else { return false }
                digits()
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                _ = take(UInt8(ascii: "+")) || take(UInt8(ascii: "-"))
                guard peek?.isDigit == true else { return false }
                digits()
            }
            return true
        }

        mutating func digits() {
            while peek?.isDigit == true { at += 1 }
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isHexDigit: Bool {
        isDigit || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
