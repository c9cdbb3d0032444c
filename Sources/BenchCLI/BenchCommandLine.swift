import BenchClients
import BenchCore
import BenchScenarios
import BenchProtocols

/// The `bench` command line: reads the arguments, runs the command, returns the exit code.
public enum BenchCommandLine {
    /// The harness's version, as `bench --version` and `run.csv` show it.
    public static let version = "0.1.0"

    /// Runs `bench` with `arguments` (without the program name) and returns the process exit code.
    public static func main(_ arguments: [String]) -> Int32 {
        do {
            return try dispatch(arguments).rawValue
        } catch {
            Console.error("Error: \(error.message)\n")
            Console.error("Usage: \(HelpText.usage(error.command))\n")
            let help = error.command.map { "bench \($0) --help" } ?? "bench --help"
            Console.error("  See '\(help)' for more information.\n")
            return ExitCode.usage.rawValue
        }
    }

    private static func dispatch(_ arguments: [String]) throws(UsageError) -> ExitCode {
        guard var command = arguments.first else {
            throw UsageError(message: "Missing command (\(Commands.all.map(\.name).joined(separator: ", ")))", command: nil)
        }
        var rest = Array(arguments.dropFirst())
        if command == "serve" || command == "capacity" {  // two words: `bench serve fanout`
            if rest.first == "--help" || rest.first == "-h" {
                Console.out(command == "serve" ? ServeCommand.overview : CapacityCommand.overview)
                return .success
            }
            let scenarios = Scenario.allCases.map(\.rawValue)
            guard let scenario = rest.first, scenarios.contains(scenario) else {
                let named = scenarios.map { "bench \(command) \($0)" }
                throw UsageError(
                    message: "bench \(command) needs its scenario: \(named.dropLast().joined(separator: ", ")) or \(named.last!)",
                    command: nil)
            }
            command += " " + scenario
            rest.removeFirst()
        } else if command == "protocols" && rest.first == "show" {  // `bench protocols show NAME`
            command = "protocols show"
            rest.removeFirst()
        }
        switch command {
        case "-h", "--help", "help":
            if let topic = rest.first {
                let twoWords = topic == "serve" || topic == "capacity"
                let topic = twoWords ? ([topic] + rest.dropFirst().prefix(1)).joined(separator: " ") : topic
                if topic == "serve" || topic == "capacity" {
                    Console.out(topic == "serve" ? ServeCommand.overview : CapacityCommand.overview)
                    return .success
                }
                guard let spec = Commands.named(topic) else {
                    throw UsageError(message: "Unknown command '\(topic)'", command: nil)
                }
                Console.out(HelpText.page(for: spec))
            } else {
                Console.out(HelpText.overview)
            }
            return .success
        case "--version":
            Console.out("\(version)\n")
            return .success
        default:
            guard let spec = Commands.named(command) else {
                let what = command.hasPrefix("-") ? "option" : "command"
                // As for options: the command it most likely misspells (`fanot`: fanout).
                let names = Set(Commands.all.map { $0.name.split(separator: " ").first.map(String.init) ?? $0.name })
                let near = command.hasPrefix("-") ? [] : OptionSpec.nearest(to: command, among: names.sorted())
                throw UsageError(
                    message: "Unknown \(what) '\(command)'"
                        + (near.isEmpty ? "" : ". Did you mean " + near.map { "'\($0)'" }.joined(separator: " or ") + "?"),
                    command: nil)
            }
            if spec.name.hasPrefix("serve ") {
                // Help wins over an option bench serve refuses (or does not know), as it does everywhere.
                if rest.contains("--help") || rest.contains("-h") {
                    Console.out(HelpText.page(for: spec))
                    return .success
                }
                try ServeCommand.refuseInapplicable(rest, command: spec.name)
            }
            let parsed = try ParsedOptions(rest, command: spec)
            if parsed.wantsHelp {
                Console.out(HelpText.page(for: spec))
                return .success
            }
            return try Commands.run(spec, parsed, arguments: arguments)
        }
    }

    /// `bench` and `arguments` as a person reads them back (run.csv's `command_line`, a suite's progress), quoted as
    /// a POSIX shell needs, with every secret hidden: a `--header`'s value, a `--token`, `--connection-params`, a URL's password.
    static func recorded(_ arguments: [String]) -> String {
        var words = ["bench"]
        var hideNext: ((String) -> String)?
        for word in arguments {
            if let hide = hideNext {
                words.append(hide(word))
                hideNext = nil
                continue
            }
            let name = word.hasPrefix("--") ? String(word.dropFirst(2).prefix { $0 != "=" }) : ""
            let hide: ((String) -> String)? = switch name {
            case "header": { value in value.firstIndex(of: ":").map { String(value[..<$0]) + ": ***" } ?? "***" }
            case "token", "connection-params": { _ in "***" }
            default: nil
            }
            if let hide, word.contains("=") {
                words.append("--\(name)=" + hide(String(word.drop { $0 != "=" }.dropFirst())))
            } else {
                hideNext = hide
                words.append(TargetURL.hidingPassword(in: word))
            }
        }
        return words.map(shellQuoted).joined(separator: " ")
    }

    /// A word as a POSIX shell would need it quoted, for `run.csv`'s `command_line`.
    static func shellQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_./,=:@%+".contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
