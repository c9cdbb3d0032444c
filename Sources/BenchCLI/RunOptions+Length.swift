import BenchCore
import BenchScenarios

extension RunOptions {
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
