/// One option a command accepts, as `--help` shows it and the parser reads it.
struct OptionSpec: Sendable {
    /// The name without dashes: `clients` for `--clients`.
    let name: String
    /// The value's placeholder in help (`n` shows as `<n>`); nil for a flag that takes no value.
    let valueName: String?
    /// One sentence for `--help`.
    let help: String
    /// The default as help shows it, or nil.
    let defaultText: String?
    /// True when the option may be given more than once and every value counts.
    let repeatable: Bool

    init(_ name: String, value: String? = nil, help: String, default defaultText: String? = nil, repeatable: Bool = false) {
        self.name = name
        self.valueName = value
        self.help = help
        self.defaultText = defaultText
        self.repeatable = repeatable
    }

    /// `--clients <n>` or `--quiet`.
    var synopsis: String {
        valueName.map { "--\(name) <\($0)>" } ?? "--\(name)"
    }
}

extension OptionSpec {
    /// The names in `names` that `name` most likely misspells: those at the smallest edit distance (a swap of two
    /// neighbouring letters counts one) if it is at most 2 (1 for a name of three letters or fewer, of which two
    /// changes leave little) and less than `name`'s length, else the one name `name` is a prefix of; empty when
    /// nothing is close.
    static func nearest(to name: String, among names: [String]) -> [String] {
        let typed = Array(name)
        let limit = typed.count <= 3 ? min(1, typed.count - 1) : 2  // --tls is no typo of --qos
        var best: [String] = []
        var bestDistance = Int.max
        for candidate in names where candidate != name {
            let distance = editDistance(typed, Array(candidate))
            guard distance <= limit else { continue }
            if distance < bestDistance {
                bestDistance = distance
                best = [candidate]
            } else if distance == bestDistance, !best.contains(candidate) {
                best.append(candidate)
            }
        }
        if !best.isEmpty { return best }
        let extending = names.filter { $0.hasPrefix(name) }
        return extending.count == 1 && !name.isEmpty ? extending : []
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours, one each.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, table[i - 2][j - 2] + 1)
                }
                table[i][j] = value
            }
        }
        return table[a.count][b.count]
    }
}
