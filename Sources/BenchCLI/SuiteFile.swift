import BenchClients
import BenchScenarios

/// A suite: named runs of `bench fanout`, `bench roundtrip` or `bench chat`, one per line, checked in full before any runs.
///
///     # comment
///     <name>  <fanout|roundtrip|chat> <options as on the command line, quotes allowed>
///
/// Blank lines and lines starting with `#` are ignored. `--out` and `--json` belong to `bench suite`, not to
/// its lines.
struct SuiteFile {
    /// One line of the suite.
    struct Entry {
        let name: String
        let line: Int
        /// The words after the name: the command and its options.
        let arguments: [String]
        let options: RunOptions
    }

    let entries: [Entry]

    /// Reads a suite's text; `path` is for messages.
    init(text: String, path: String) throws(UsageError) {
        var entries: [Entry] = []
        // Lines end in LF or CRLF ("\r\n" is one Character in Swift, so split on the scalars).
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0.last == "\r" ? $0.dropLast() : $0)) }
        for (offset, rawLine) in lines.enumerated() {
            let line = offset + 1
            func failure(_ message: String) -> UsageError {
                UsageError(message: "\(path):\(line): \(message)", command: SuiteCommand.spec.name)
            }
            let trimmed = rawLine.drop { $0 == " " || $0 == "\t" }
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let words: [String]
            do {
                words = try ShellWords.split(String(trimmed))
            } catch {
                throw failure("a quote is not closed")
            }
            guard words.count >= 2, let scenario = Scenario(rawValue: words[1]) else {
                throw failure("expected a name, then fanout, roundtrip or chat and its options")
            }
            guard !entries.contains(where: { $0.name == words[0] }) else {
                throw failure("the name '\(words[0])' is used twice")
            }
            let spec = RunCommand.spec(for: scenario)
            let options: RunOptions
            do throws(UsageError) {
                let parsed = try ParsedOptions(Array(words.dropFirst(2)), command: spec)
                if parsed.value("out") != nil || parsed.has("json") || parsed.wantsHelp {
                    throw UsageError(message: "--out, --json and --help belong to bench suite, not to its lines", command: spec.name)
                }
                options = try RunOptions(parsed, scenario: scenario)
            } catch {
                throw failure(error.message)
            }
            entries.append(Entry(name: words[0], line: line, arguments: Array(words.dropFirst()), options: options))
        }
        guard !entries.isEmpty else {
            throw UsageError(message: "\(path) lists no runs", command: SuiteCommand.spec.name)
        }
        self.entries = entries
    }
}
