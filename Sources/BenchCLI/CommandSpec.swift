import BenchClients
import BenchScenarios

/// What a subcommand of `bench` accepts, for the parser and for its `--help` page.
struct CommandSpec: Sendable {
    /// The word after `bench`: `fanout`, `check`…
    let name: String
    /// One line for `bench --help`.
    let abstract: String
    /// The paragraph that opens the command's help page.
    let overview: String
    /// Positional arguments, in order: placeholder and help (`run-folder`, "A run folder written by bench.").
    let arguments: [(name: String, help: String)]
    /// The options, in help order (`--help` is added by the help page).
    let options: [OptionSpec]
    /// Lines after the options in the help page (notes on units, files written…).
    let notes: [String]

    init(
        name: String, abstract: String, overview: String, arguments: [(name: String, help: String)] = [],
        options: [OptionSpec], notes: [String] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.overview = overview
        self.arguments = arguments
        self.options = options
        self.notes = notes
    }

    /// `bench check <run-folder> [<options>]`.
    var usage: String {
        (["bench", name] + arguments.map { "<\($0.name)>" } + ["[<options>]"]).joined(separator: " ")
    }
}

extension CommandSpec {
    /// The usage error for `--name`, which this command does not take: an option of the other scenario says what
    /// this one uses instead (`roundtrip takes --count (messages per client)`), a near miss suggests the nearest
    /// option (`Did you mean '--clients'?`).
    func unknownOption(_ name: String) -> UsageError {
        let head = "Unknown option '--\(name)'"
        if let hint = otherScenarioHint(name) {
            return UsageError(message: "\(head): \(hint)", command: self.name)
        }
        let names = options.map(\.name) + ["help"]
        let nearest = OptionSpec.nearest(to: name, among: names)
        guard !nearest.isEmpty else { return UsageError(message: head, command: self.name) }
        let suggestion = nearest.map { "'--\($0)'" }.joined(separator: " or ")
        return UsageError(message: "\(head). Did you mean \(suggestion)?", command: self.name)
    }

    /// For `bench fanout` and `bench roundtrip`: what to say of an option only the other scenario takes.
    private func otherScenarioHint(_ name: String) -> String? {
        if self.name.split(separator: " ").last == Substring(Scenario.chat.rawValue) && name == "interval" {
            return "chat takes --rate, each member's messages per second, minute or hour (2/s)"
        }
        guard let scenario = Scenario(rawValue: self.name),
              let other = Scenario.allCases.first(where: { $0 != scenario }),
              RunOptions.options(for: other).contains(where: { $0.name == name })
        else { return nil }
        // The number of messages to measure is named after what is counted in each scenario.
        let counts: [Scenario: (option: String, what: String)] = [
            .fanout: ("messages", "broadcasts"),
            .roundtrip: ("count", "messages per client"),
        ]
        if let own = counts[scenario], let theirs = counts[other], theirs.option == name,
           options.contains(where: { $0.name == own.option }) {
            return "\(scenario.rawValue) takes --\(own.option) (\(own.what))"
        }
        return "--\(name) is for \(other.rawValue), not \(scenario.rawValue)"
    }
}
