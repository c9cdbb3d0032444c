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
