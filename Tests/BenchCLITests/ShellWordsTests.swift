import Testing

@testable import BenchCLI

@Suite(.timeLimit(.minutes(10))) struct ShellWordsTests {
    @Test(arguments: [
        ("a b  c", ["a", "b", "c"]),
        ("--threshold 'spread.p99<200ms'", ["--threshold", "spread.p99<200ms"]),
        ("\"a b\" 'c d' e\\ f", ["a b", "c d", "e f"]),
        ("x'y z'w", ["xy zw"]),
        ("\"say \\\"hi\\\" \\\\ \\n\"", ["say \"hi\" \\ \\n"]),
        ("''", [""]),
        ("   ", []),
    ])
    func wordsSplitAsAShellSplitsThem(line: String, words: [String]) throws {
        #expect(try ShellWords.split(line) == words)
    }

    @Test(arguments: ["'open", "\"open", "a 'b"])
    func anUnclosedQuoteIsRefused(line: String) {
        #expect(throws: ShellWords.UnclosedQuote.self) { try ShellWords.split(line) }
    }

    @Test func quotedWordsForRunCSVSurviveASecondSplit() throws {
        let words = ["bench", "fanout", "--threshold", "spread.p99<200ms", "it's", ""]
        let line = words.map(BenchCommandLine.shellQuoted).joined(separator: " ")
        #expect(try ShellWords.split(line) == words)
    }
}
