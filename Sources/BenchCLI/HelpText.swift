/// `--help` pages, laid out like swift-argument-parser's.
enum HelpText {
    /// What `bench --help` prints.
    static var overview: String {
        let width = Commands.all.map(\.name.count).max()! + 4
        let commands = Commands.all.map { command in
            "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.abstract
        }
        return """
            OVERVIEW: Latency benchmarks for long-lived socket connections (TCP, WebSocket, TLS, MQTT, NATS, Redis,
            Socket.IO, SSE): fan-out spread, round trip, capacity.

            USAGE: bench <command> [<options>]

            COMMANDS:
            \(commands.joined(separator: "\n"))

            OPTIONS:
              --version    Show the version.
              -h, --help   Show help information.

              See 'bench <command> --help' for a command's options.

            EXIT CODES:
              0 ran, every threshold held · 1 a threshold was breached · 2 usage error (nothing run or written)
              3 the run could not be done
              4 inconclusive: a verdict that is not a measurement of the server (the run was interrupted or is
                incomplete, its harness was saturated, other work on the machine held it back, or the metric judged
                has no values); --accept REASON,... takes one as it is (interrupted, incomplete, failed, saturated,
                disturbed, no-values)
              130 / 143 interrupted by SIGINT / SIGTERM (what was measured is written)

            """
    }

    /// The usage line of a command, or of `bench` itself.
    static func usage(_ command: String?) -> String {
        command.flatMap(Commands.named)?.usage ?? "bench <command> [<options>]"
    }

    /// What `bench <command> --help` prints.
    static func page(for command: CommandSpec) -> String {
        let options = command.options + [OptionSpec("help", help: "Show help information.")]
        let names = command.arguments.map { "<\($0.name)>" } + options.map { $0.name == "help" ? "-h, --help" : $0.synopsis }
        let width = names.map(\.count).max()! + 4
        func line(_ name: String, _ help: String) -> String {
            "  \(name)\(String(repeating: " ", count: max(2, width - name.count)))\(help)"
        }
        var text = "OVERVIEW: \(command.overview)\n\nUSAGE: \(command.usage)\n\n"
        if !command.arguments.isEmpty {
            text += "ARGUMENTS:\n" + command.arguments.map { line("<\($0.name)>", $0.help) }.joined(separator: "\n") + "\n\n"
        }
        text += "OPTIONS:\n"
        text += options.map { spec in
            let defaultText = spec.defaultText.map { " (default: \($0))" } ?? ""
            return line(spec.name == "help" ? "-h, --help" : spec.synopsis, spec.help + defaultText)
        }.joined(separator: "\n")
        text += "\n"
        if !command.notes.isEmpty {
            text += "\n" + command.notes.map { "  " + $0 }.joined(separator: "\n") + "\n"
        }
        return text + "\n"
    }
}
