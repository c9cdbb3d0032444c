import BenchScenarios

/// `--help` pages, laid out like swift-argument-parser's.
enum HelpText {
    /// What `bench --help` prints.
    static let overview = """
        OVERVIEW: Latency benchmarks for long-lived TCP connections: fan-out spread and round trip.

        USAGE: bench <command> [<options>]

        COMMANDS:
          fanout       Broadcast to N clients; measure delivery, spread per broadcast, completion and echo round trip.
          roundtrip    Send each client its own messages; measure the echo round trip.

        OPTIONS:
          --version    Show the version.
          -h, --help   Show help information.

          See 'bench <command> --help' for a command's options.

        EXIT CODES:
          0 ran, every threshold held · 1 a threshold was breached · 2 usage error (nothing run or written)
          3 the run could not be done · 130 / 143 interrupted by SIGINT / SIGTERM (what was measured is written)

        """

    /// One line per command for the usage line of errors.
    static func usage(_ command: String?) -> String {
        command.map { "bench \($0) [<options>]" } ?? "bench <command> [<options>]"
    }

    /// What `bench <scenario> --help` prints.
    static func page(for scenario: Scenario) -> String {
        let abstract = scenario == .fanout
            ? """
              Start a broadcast server and N clients on this machine; broadcast M timestamped messages to all \
              clients in a new random order each time; every client stamps arrival and echoes. Reports delivery \
              (client read − start of the broadcast), spread (last − first client read of a broadcast), \
              completion (last client read − start) and rtt (echo read − write), with losses.
              """
            : """
              Start a server and N clients on this machine; the server sends each client COUNT timestamped \
              messages, the client echoes each at once. Reports rtt (echo read at the server − write), with losses.
              """
        let specs = RunOptions.specs(for: scenario) + [OptionSpec("help", help: "Show help information.")]
        let width = specs.map { $0.synopsis.count }.max()! + 4
        let options = specs.map { spec -> String in
            let name = spec.name == "help" ? "-h, --help" : spec.synopsis
            let padding = String(repeating: " ", count: max(2, width - name.count))
            let defaultText = spec.defaultText.map { " (default: \($0))" } ?? ""
            return "  \(name)\(padding)\(spec.help)\(defaultText)"
        }
        return """
            OVERVIEW: \(abstract)

            USAGE: bench \(scenario.rawValue) [<options>]

            OPTIONS:
            \(options.joined(separator: "\n"))

              Durations take ns, us, ms or s (10ms); sizes take B, KiB or MiB (64, 1KiB).
              Results go to <out>/\(scenario.rawValue)-<UTC yyyyMMdd-HHmmss>/: run.csv, samples.csv, summary.csv, \
            histogram.csv\(scenario == .fanout ? ", broadcasts.csv" : "").

            """
    }
}
