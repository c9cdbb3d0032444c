import Testing

@Suite(.timeLimit(.minutes(10))) struct HelpTests {
    @Test(arguments: ["fanout", "roundtrip"])
    func everyCommandListsItsOptionsWithDefaults(command: String) throws {
        let result = try BenchProcess.run([command, "--help"])
        #expect(result.exitCode == 0)
        #expect(result.standardError.isEmpty)
        let countOption = command == "fanout" ? "--messages <m>" : "--count <c>"
        for option in [
            "--clients <n>", countOption, "--interval <duration>", "--arrival <kind>", "--payload <bytes>",
            "--under <duration>", "--timeout <duration>", "--warmup <n>", "--seed <s>", "--host <address>",
            "--port <port>", "--pin <server-cpu,client-cpu>", "--out <dir>", "--quiet", "--json", "-h, --help",
        ] {
            #expect(result.standardOutput.contains(option), "\(command) --help lists \(option)")
        }
        #expect(result.standardOutput.contains("USAGE: bench \(command) [<options>]"))
        let defaults = command == "fanout" ? "(default: 50)" : "(default: 1)"
        #expect(result.standardOutput.contains(defaults))
    }

    /// Each option is listed once in a command's help, however many option groups the command is made of (capacity
    /// listed --accept twice: once among the run's options, once among its own).
    @Test(arguments: [
        ["fanout"], ["roundtrip"], ["chat"], ["serve", "fanout"], ["capacity", "fanout"], ["capacity", "roundtrip"],
        ["capacity", "chat"], ["clients"], ["check"], ["compare"],
    ])
    func noOptionIsListedTwice(command: [String]) throws {
        let result = try BenchProcess.run(command + ["--help"])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let options = result.standardOutput.split(separator: "\n")
            .filter { $0.hasPrefix("  --") }
            .map { $0.dropFirst(2).prefix { $0 != " " } }
        #expect(!options.isEmpty)
        let repeated = Dictionary(grouping: options, by: { $0 }).filter { $0.value.count > 1 }.keys
        #expect(repeated.isEmpty, "\(command.joined(separator: " ")) --help lists \(repeated.sorted()) more than once")
    }

    @Test func theTopLevelHelpListsCommandsAndExitCodes() throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 0)
            #expect(result.standardOutput.contains("fanout"))
            #expect(result.standardOutput.contains("roundtrip"))
            #expect(result.standardOutput.contains("EXIT CODES"))
        }
    }

    @Test func helpForACommandCanBeAskedAsASubcommand() throws {
        let result = try BenchProcess.run(["help", "roundtrip"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.contains("USAGE: bench roundtrip"))
    }

    @Test func versionPrintsAVersion() throws {
        let result = try BenchProcess.run(["--version"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput.split(separator: ".").count == 3)
    }
}
