/// A command's options as given: `--name value`, `--name=value` or `--flag`, checked against its specs.
struct ParsedOptions {
    /// Values of each option given, in order (a non-repeatable option keeps only its last).
    private(set) var values: [String: [String]] = [:]
    /// Flags given.
    private(set) var flags: Set<String> = []
    /// The positional arguments, one per argument the command declares.
    private(set) var positionals: [String] = []
    /// True when `-h` or `--help` was given.
    private(set) var wantsHelp = false

    /// Parses `arguments` (the words after the command's name).
    ///
    /// - Throws: ``UsageError`` for an unknown option, a missing value, a value given to a flag, or positional
    ///   arguments other than those the command declares.
    init(_ arguments: [String], command spec: CommandSpec) throws(UsageError) {
        let command = spec.name
        let specs = spec.options
        let commandSpec = spec
        var remaining = arguments[...]
        while let word = remaining.popFirst() {
            if word == "-h" || word == "--help" {
                wantsHelp = true
                continue
            }
            guard word.hasPrefix("--"), word.count > 2 else {
                guard positionals.count < spec.arguments.count else {
                    throw UsageError(message: "Unexpected argument '\(word)'", command: command)
                }
                positionals.append(word)
                continue
            }
            let body = word.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inlineValue = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
            guard let spec = specs.first(where: { $0.name == name }) else {
                throw commandSpec.unknownOption(name)
            }
            guard spec.valueName != nil else {
                if inlineValue != nil {
                    throw UsageError(message: "'--\(name)' takes no value", command: command)
                }
                flags.insert(name)
                continue
            }
            if inlineValue == nil, remaining.first?.hasPrefix("--") ?? true {
                throw UsageError(message: "Missing value for '\(spec.synopsis)'", command: command)
            }
            let value = inlineValue ?? remaining.removeFirst()
            if spec.repeatable {
                values[name, default: []].append(value)
            } else {
                values[name] = [value]
            }
        }
        if !wantsHelp && positionals.count < spec.arguments.count {
            let missing = spec.arguments[positionals.count].name
            throw UsageError(message: "Missing expected argument '<\(missing)>'", command: command)
        }
    }

    /// A copy with `name`'s values replaced by `values` (nil: as if it was not given): how `bench capacity` makes
    /// each step's command line from its own.
    func replacing(_ name: String, with values: [String]?) -> ParsedOptions {
        var copy = self
        copy.values[name] = values
        return copy
    }

    /// The last value given for `name`, if any.
    func value(_ name: String) -> String? {
        values[name]?.last
    }

    /// True when the flag `name` was given.
    func has(_ name: String) -> Bool {
        flags.contains(name)
    }
}
