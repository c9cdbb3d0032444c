/// Why a run's verdicts are not a measurement of the server: a gate neither passes nor fails them, it calls them
/// inconclusive (exit 4) unless the user accepts the reason (`--accept saturated,interrupted`).
public enum InconclusiveReason: String, Sendable, CaseIterable, Hashable {
    /// Stopped on request before every message had its turn.
    case interrupted
    /// Cut off (killed): its folder was read back as far as it was written.
    case incomplete
    /// Stopped because it could not go on (every client gone).
    case failed
    /// The harness was the bottleneck: it measured itself, and sent fewer messages a second than asked.
    case saturated
    /// Other work on the machine held the run's timetable back while the harness had time to spare.
    case disturbed
    /// The metric judged has no values at all: nothing measured, nothing lost.
    case noValues = "no-values"

    /// The reasons a run's status and its harness give (`complete` and a harness that kept up give none).
    public static func of(status: String, saturated: Bool, disturbed: Bool = false) -> [InconclusiveReason] {
        var reasons: [InconclusiveReason] = []
        switch status {
        case "interrupted": reasons.append(.interrupted)
        case "incomplete", "running": reasons.append(.incomplete)
        case "failed": reasons.append(.failed)
        default: break
        }
        if saturated { reasons.append(.saturated) }
        if disturbed { reasons.append(.disturbed) }
        return reasons
    }

    /// Reads `--accept`'s comma-separated list: the reasons it names, and the words that name none.
    public static func parseList(_ text: String) -> (accepted: Set<InconclusiveReason>, unknown: [String]) {
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        return (Set(words.compactMap(InconclusiveReason.init(rawValue:))), words.filter { InconclusiveReason(rawValue: $0) == nil })
    }

    /// The reason in a sentence: `the run was interrupted`.
    public var explanation: String {
        switch self {
        case .interrupted: return "the run was interrupted before its end"
        case .incomplete: return "the run was cut off and is incomplete"
        case .failed: return "the run failed before its end"
        case .saturated: return "the harness was saturated: it measured itself, under a lighter load than asked"
        case .disturbed: return "the machine was busy with other work: it held the timetable back"
        case .noValues: return "the metric has no values"
        }
    }
}
