import BenchClients
import BenchScenarios

/// Every subcommand of `bench`: its spec, and what runs it.
enum Commands {
    /// The commands in help order.
    static let all: [CommandSpec] = [
        RunCommand.spec(for: .fanout), RunCommand.spec(for: .roundtrip), RunCommand.spec(for: .chat), CheckCommand.spec, CompareCommand.spec,
        ReportCommand.spec, SuiteCommand.spec, CapacityCommand.spec(for: .fanout), CapacityCommand.spec(for: .roundtrip),
        CapacityCommand.spec(for: .chat),
        ServeCommand.spec(for: .fanout), ServeCommand.spec(for: .roundtrip), ServeCommand.spec(for: .chat),
        ClientsCommand.spec, LinksCommand.spec, ProtocolsCommand.spec, ProtocolsCommand.showSpec,
    ]

    /// The command called `name`.
    static func named(_ name: String) -> CommandSpec? {
        all.first { $0.name == name }
    }

    /// Runs the command `spec` with its parsed options.
    static func run(_ spec: CommandSpec, _ parsed: ParsedOptions, arguments: [String]) throws(UsageError) -> ExitCode {
        switch spec.name {
        case "fanout", "roundtrip", "chat":
            let scenario = Scenario(rawValue: spec.name)!
            let options = try RunOptions(parsed, scenario: scenario)
            let commandLine = BenchCommandLine.recorded(arguments)
            return RunCommand.execute(options, commandLine: commandLine)
        case "serve fanout", "serve roundtrip", "serve chat":
            let scenario = Scenario(rawValue: String(spec.name.dropFirst("serve ".count)))!
            let options = try ServeCommand.options(parsed, scenario: scenario, command: spec.name)
            let commandLine = BenchCommandLine.recorded(arguments)
            return RunCommand.execute(options, commandLine: commandLine)
        case "capacity fanout", "capacity roundtrip", "capacity chat":
            let scenario = Scenario(rawValue: String(spec.name.dropFirst("capacity ".count)))!
            return try CapacityCommand.execute(parsed, scenario: scenario, arguments: arguments)
        case "clients":
            return try ClientsCommand.execute(parsed)
        case "check":
            return try CheckCommand.execute(parsed)
        case "compare":
            return try CompareCommand.execute(parsed)
        case "report":
            return try ReportCommand.execute(parsed)
        case "suite":
            return try SuiteCommand.execute(parsed)
        case "links":
            return try LinksCommand.execute(parsed)
        case "protocols":
            return ProtocolsCommand.list()
        case "protocols show":
            return try ProtocolsCommand.show(parsed)
        default:
            preconditionFailure("no command \(spec.name)")
        }
    }
}
