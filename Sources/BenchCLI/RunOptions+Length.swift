import BenchClients
import BenchCore
import BenchScenarios

extension RunOptions {
    /// The options of long runs and of runs too large for one process.
    static func lengthOptions(defaults: RunConfiguration, countOption: String) -> [OptionSpec] {
        [
            OptionSpec(
                "duration", value: "duration",
                help: "Send for this long (5m, 1h; warmup included) instead of --\(countOption); memory stays "
                    + "flat however long.",
                default: "none"),
            OptionSpec(
                "report-every", value: "duration",
                help: "Write results so far (timeline.csv, samples streamed) and print a line this often; 0 = at the end.",
                default: DurationText.format(defaults.reportEvery)),
            OptionSpec(
                "exact-budget", value: "bytes",
                help: "Memory for exact percentiles (reckoned at 8 B a value; most take 4); beyond, percentiles come from histograms (±0.05%).",
                default: ByteSizeText.format(defaults.exactBudget)),
            OptionSpec(
                "client-procs", value: "k",
                help: "Run the clients in k child processes (bench clients), so that more fit than one process's "
                    + "descriptors allow; 0 = in this process.",
                default: "as many as the descriptor limit needs"),
            OptionSpec(
                "server-procs", value: "k",
                help: "Run the built-in server in k processes, each on its own port serving a share of the clients "
                    + "(fanout, roundtrip) or hosting whole rooms (chat: at most --rooms), so that more fit than one "
                    + "process's descriptors allow; one measurement on one clock.",
                default: "as many as the descriptor limit needs"),
        ]
    }

    /// `--server-procs`: k server processes when the run can have them (``ServerShards/refusal(of:)``); nil when not
    /// given.
    static func readServerProcesses(
        reader: OptionReader, parsed: ParsedOptions, steps: [SweepStep], command: String
    ) throws(UsageError) -> Int? {
        guard let text = parsed.value("server-procs") else { return nil }
        let count = try reader.integer("server-procs", placeholder: "k", in: 1...ServerShards.most, default: 1)
        guard count > 1 else { return count }
        let configuration = steps[0].configuration
        func refuse(_ why: String) -> UsageError {
            reader.invalid("server-procs", "k", text, why)
        }
        if let refusal = ServerShards.refusal(of: configuration) { throw refuse(refusal) }
        guard steps.count == 1 else { throw refuse("a sweep's runs each have one server process") }
        // A chat relay's members are measured in this process, as a target's are: their processes are this one's.
        guard parsed.value("client-procs") == nil || configuration.scenario == .chat else {
            throw refuse("each server process starts its own clients' processes: give no --client-procs")
        }
        guard count <= configuration.clients else { throw refuse("must be at most --clients (\(configuration.clients))") }
        if let refusal = ServerShards.chatRefusal(of: count, configuration) { throw refuse(refusal) }
        return count
    }

    /// `--duration`, `--report-every` and `--exact-budget`: how long a run goes and how its results are kept.
    static func readLength(
        into configuration: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        let countOption = configuration.scenario == .fanout ? "messages" : "count"
        if parsed.value("duration") != nil {
            guard parsed.value(countOption) == nil else {
                throw UsageError(
                    message: "--duration and --\(countOption) both say when the run ends: give one", command: command)
            }
            let text = parsed.value("duration") ?? ""
            let duration: UInt64
            do {
                duration = try DurationText.parseRunLength(text)
            } catch {
                throw reader.invalid("duration", "duration", text, error.reason)
            }
            guard duration > 0 else { throw reader.invalid("duration", "duration", text, "must be more than 0") }
            guard duration <= RunConfiguration.Limits.longestRun else {
                throw reader.invalid(
                    "duration", "duration", parsed.value("duration") ?? "",
                    "must be at most \(DurationText.format(RunConfiguration.Limits.longestRun)) (a week)")
            }
            configuration.duration = duration
        }
        configuration.reportEvery = try reader.duration("report-every", allowZero: true, default: configuration.reportEvery)
        if let text = parsed.value("exact-budget") {
            do {
                configuration.exactBudget = try ByteSizeText.parse(text)
            } catch {
                throw reader.invalid("exact-budget", "bytes", text, error.reason)
            }
        }
    }
}
