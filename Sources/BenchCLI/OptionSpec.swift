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
