/// Splits a line into words the way a POSIX shell does for a plain command: blanks separate words, single
/// quotes keep everything literally, double quotes keep everything but `\"` and `\\`, a backslash outside
/// quotes escapes the next character. No variables, globs or substitutions.
enum ShellWords {
    struct UnclosedQuote: Error {}

    static func split(_ line: String) throws(UnclosedQuote) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = line[...]
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                guard let end = characters.firstIndex(of: "'") else { throw UnclosedQuote() }
                word += characters[..<end]
                characters = characters[characters.index(after: end)...]
            case "\"":
                inWord = true
                var closed = false
                while let next = characters.popFirst() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\", let escaped = characters.first, escaped == "\"" || escaped == "\\" {
                        word.append(escaped)
                        characters = characters.dropFirst()
                    } else {
                        word.append(next)
                    }
                }
                guard closed else { throw UnclosedQuote() }
            case "\\":
                inWord = true
                if let escaped = characters.popFirst() { word.append(escaped) }
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
