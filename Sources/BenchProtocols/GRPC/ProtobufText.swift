/// A protocol buffers message written as `protoc --decode_raw` prints one, turned into its wire bytes: fields by number,
/// so that no .proto file and no generated code are needed.
///
///     1: "lobby"                  a length-delimited field (a string, bytes), with C escapes (\n \" \\ \x41 \101)
///     2: 150   3: -1              a varint (a negative number as its 64-bit two's complement, as int64's)
///     4: 0x3f800000               a fixed32 (8 hex digits) or fixed64 (16)
///     5 { 1: 5 }                  a nested message (a colon before the brace is taken too)
///
/// Encoded once per connection or publication, never per message; the place of one byte of the text (the marker's,
/// inside a string) is followed into the bytes, so that the marker is rewritten there per message.
public struct ProtobufText {
    /// Why a text is not a message, for the usage error.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
        /// The byte of the text where it stopped being a message.
        public let position: Int
    }

    private let text: [UInt8]
    private var position = 0
    /// The text offset whose place in the bytes is wanted, and that place once the encoding passed it.
    private let followed: Int?
    private var found: Int?
    /// Nested messages open now: at most ``maximumDepth``, so that no text recurses without bound.
    private var depth = 0
    static let maximumDepth = 64

    /// `text` encoded; with `following`, also where the byte at that offset of the text (inside a string) lands in the
    /// bytes, nil when it is not inside a string.
    public static func encode(_ text: String, following offset: Int? = nil) throws(Invalid) -> (bytes: [UInt8], offset: Int?) {
        var parser = ProtobufText(text: Array(text.utf8), followed: offset)
        let bytes = try parser.message(nested: false)
        return (bytes, parser.found)
    }

    private init(text: [UInt8], followed: Int?) {
        (self.text, self.followed) = (text, followed)
    }

    /// The fields up to the text's end (or, `nested`, up to the closing brace, which it takes).
    private mutating func message(nested: Bool) throws(Invalid) -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            skipBlanks()
            guard position < text.count else {
                if nested { throw invalid("a nested message without its closing }") }
                return bytes
            }
            if text[position] == UInt8(ascii: "}") {
                guard nested else { throw invalid("a } without its {") }
                position += 1
                return bytes
            }
            let number = try fieldNumber()
            skipBlanks()
            if position < text.count && text[position] == UInt8(ascii: ":") {
                position += 1
                skipBlanks()
            }
            guard position < text.count else { throw invalid("field \(number) has no value") }
            switch text[position] {
            case UInt8(ascii: "{"):
                guard depth < Self.maximumDepth else { throw invalid("messages nested more than \(Self.maximumDepth) deep") }
                position += 1
                let foundBefore = found != nil
                depth += 1
                let inner = try message(nested: true)
                depth -= 1
                Self.appendVarint(UInt64(number) << 3 | 2, to: &bytes)
                Self.appendVarint(UInt64(inner.count), to: &bytes)
                if !foundBefore, let inside = found { found = bytes.count + inside }  // it was inside the nested message's bytes
                bytes.append(contentsOf: inner)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let (body, offset) = try string()
                Self.appendVarint(UInt64(number) << 3 | 2, to: &bytes)
                Self.appendVarint(UInt64(body.count), to: &bytes)
                if let offset { found = bytes.count + offset }
                bytes.append(contentsOf: body)
            default:
                try scalar(number, into: &bytes)
            }
        }
    }

    private mutating func fieldNumber() throws(Invalid) -> UInt64 {
        let start = position
        while position < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position]) { position += 1 }
        guard position > start, let number = UInt64(String(decoding: text[start..<position], as: UTF8.self)),
            (1...536_870_911).contains(number)
        else { throw invalid("expected a field number (1 to 536870911)") }
        return number
    }

    /// A number: a varint, or in hex a fixed32 (8 digits) or fixed64 (16).
    private mutating func scalar(_ number: UInt64, into bytes: inout [UInt8]) throws(Invalid) {
        let start = position
        while position < text.count, !Self.isBlank(text[position]), text[position] != UInt8(ascii: "}") { position += 1 }
        let word = String(decoding: text[start..<position], as: UTF8.self)
        if word.hasPrefix("0x") {
            let digits = word.dropFirst(2)
            guard digits.count == 8 || digits.count == 16, let value = UInt64(digits, radix: 16) else {
                throw invalid("field \(number): \(word) is no fixed32 (0x and 8 hex digits) or fixed64 (16)")
            }
            Self.appendVarint(number << 3 | (digits.count == 8 ? 5 : 1), to: &bytes)
            for index in 0..<digits.count / 2 { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index))) }
        } else if let value = UInt64(word) {
            Self.appendVarint(number << 3, to: &bytes)
            Self.appendVarint(value, to: &bytes)
        } else if let value = Int64(word) {
            Self.appendVarint(number << 3, to: &bytes)
            Self.appendVarint(UInt64(bitPattern: value), to: &bytes)
        } else {
            position = start  // where the word that is no value began
            throw invalid("field \(number): expected a number, a \"string\" or { a message }, not \(word.prefix(20))")
        }
    }

    /// A quoted string's bytes, its escapes undone; and where the followed offset landed in them.
    private mutating func string() throws(Invalid) -> (bytes: [UInt8], offset: Int?) {
        let quote = text[position]
        position += 1
        var body: [UInt8] = []
        var offset: Int?
        while position < text.count && text[position] != quote {
            if position == followed { offset = body.count }
            guard text[position] == UInt8(ascii: "\\") else {
                body.append(text[position])
                position += 1
                continue
            }
            position += 1
            guard position < text.count else { break }
            let escape = text[position]
            position += 1
            switch escape {
            case UInt8(ascii: "n"): body.append(0x0A)
            case UInt8(ascii: "r"): body.append(0x0D)
            case UInt8(ascii: "t"): body.append(0x09)
            case UInt8(ascii: "x"):
                let digits = text[position...].prefix(2).prefix { Self.hexValue($0) != nil }
                guard !digits.isEmpty else { throw invalid("\\x without hex digits") }
                body.append(digits.reduce(0) { $0 << 4 | Self.hexValue($1)! })
                position += digits.count
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(escape - UInt8(ascii: "0"))
                for _ in 0..<2 where position < text.count && (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(text[position]) {
                    value = value << 3 | Int(text[position] - UInt8(ascii: "0"))
                    position += 1
                }
                guard value < 256 else { throw invalid("an octal escape over \\377") }
                body.append(UInt8(value))
            default: body.append(escape)  // \" \' \\ \? and the rest stand for themselves
            }
        }
        guard position < text.count else { throw invalid("a string without its closing quote") }
        position += 1
        return (body, offset)
    }

    private mutating func skipBlanks() {
        while position < text.count && Self.isBlank(text[position]) { position += 1 }
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private func invalid(_ reason: String) -> Invalid {
        Invalid(description: "\(reason) (at byte \(position) of the message)", position: position)
    }
}
