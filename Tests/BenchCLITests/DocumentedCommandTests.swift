@testable import BenchClients
import BenchScenarios
import Foundation
import Testing

@testable import BenchCLI

/// Every `bench` command of the README's and the guides' indented blocks (issue 47) reads as the command line it
/// claims to be: parsed and checked as bench checks a command before it runs anything (a run's options, a capacity search's plan, `bench
/// serve`'s), the guides' placeholders (HOST, PORT, TOPIC…) given values and `[optional]` parts left out. A command that
/// needs what its reader brings (a saved run, a suite, a server for an agent) is parsed, not checked further.
@Suite struct DocumentedCommandTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The placeholders of the guides' commands, and what each stands for here.
    static let placeholders: [(String, String)] = [
        ("[USER:PASS@]", ""), ("USER:PASS@", "u:p@"), (":PASSWORD@", ":p@"), ("HOST", "127.0.0.1"), ("PORT", "9"),
        ("PATH", "path"), ("TOPIC", "t"), ("SUBJECT", "s"), ("NAMESPACE", "chat"), ("CHANNEL", "c"), ("NAME", "n"),
        ("TEMPLATE", "{marker}"), ("TEXT", "x"), ("TOKEN", "t"), ("$(cat /tmp/sio.port)", "9"),
    ]

    /// Each command shown, with where it is: `bench …` lines of the indented blocks, comments left out.
    static func documentedCommands() throws -> [(place: String, words: [String])] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: root.path + "/docs").filter { $0.hasSuffix(".md") }
        var commands: [(String, [String])] = []
        for file in ["README.md"] + guides.sorted().map({ "docs/" + $0 }) {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let start = line.firstRange(of: "bench "), line.hasPrefix("    "),
                    line[..<start.lowerBound].allSatisfy({ $0 == " " }) || line.hasPrefix("    swift run -c release bench ")
                else { continue }
                var command = String(line[start.upperBound...])
                command = command.replacing(/\s+#\s.*$/, with: "")  // its comment
                command = command.replacing(/\s\[--(?:[^\]'"]|'[^']*'|"[^"]*")*\]/, with: "")  // optional: [--qos 0|1|2]
                command = command.replacing(/\s+(…|&)(?=\s|$)/, with: "")  // "the rest as above"; in the background
                for (placeholder, value) in placeholders { command = command.replacing(placeholder, with: value) }
                do {
                    commands.append(("\(file):\(number + 1)", try ShellWords.split(command)))
                } catch {
                    Issue.record("\(file):\(number + 1): an unclosed quote in \(command)")
                }
            }
        }
        return commands
    }

    @Test func everyCommandShownReadsAsACommandLine() throws {
        // The files the guides' commands name, as a reader would have them.
        let folder = temporaryFolderPath()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ("user,token\n" + (0..<1_000).map { "u\($0),t\($0)\n" }.joined()).write(
            toFile: folder + "/users.csv", atomically: true, encoding: .utf8)
        try "publish {payload}\n".write(toFile: folder + "/my.protocol", atomically: true, encoding: .utf8)
        let commands = try Self.documentedCommands().map { place, words in
            (place, words.map { $0 == "users.csv" || $0 == "my.protocol" ? folder + "/" + $0 : $0 })
        }
        #expect(commands.count >= 60, "\(commands.count)")
        for file in ["README.md", "docs/measuring-your-server.md", "docs/capacity-and-ci.md", "docs/placements-and-long-runs.md"] {
            #expect(commands.contains { $0.0.hasPrefix(file + ":") }, "commands found in \(file)")
        }
        for (place, words) in commands {
            do throws(UsageError) {
                try Self.check(words)
            } catch {
                Issue.record("\(place): bench \(words.joined(separator: " ")): \(error.message)")
            }
        }
    }

    /// Parses `words` as `bench` does, and checks what a command checks before it runs.
    static func check(_ words: [String]) throws(UsageError) {
        guard let first = words.first else { return }
        let twoWords = ["serve", "capacity"].contains(first) || (first == "protocols" && words.dropFirst().first == "show")
        let name = twoWords && words.count > 1 ? first + " " + words[1] : first
        guard let spec = Commands.named(name) else { throw UsageError(message: "no command \(name)", command: nil) }
        let rest = Array(words.dropFirst(name.split(separator: " ").count))
        if spec.name.hasPrefix("serve ") { try ServeCommand.refuseInapplicable(rest, command: spec.name) }
        let parsed = try ParsedOptions(rest, command: spec)
        guard !parsed.wantsHelp else { return }
        switch spec.name {
        case "fanout", "roundtrip", "chat": _ = try RunOptions(parsed, scenario: Scenario(rawValue: spec.name)!)
        case "serve fanout", "serve roundtrip", "serve chat":
            _ = try ServeCommand.options(parsed, scenario: Scenario(rawValue: String(spec.name.dropFirst(6)))!, command: spec.name)
        case "capacity fanout", "capacity roundtrip", "capacity chat":
            _ = try CapacityCommand.plan(parsed, scenario: Scenario(rawValue: String(spec.name.dropFirst(9)))!, command: spec.name)
        default: break  // check, compare, report, suite, clients: what they read is the reader's
        }
    }
}
