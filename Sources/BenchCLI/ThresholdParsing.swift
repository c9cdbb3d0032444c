import BenchCore
import BenchScenarios

/// `--threshold` values read for a scenario, or a usage error that names the bad one.
enum ThresholdParsing {
    /// `metrics` are those the run reports (by default, what `scenario` reports with echoes, with `reconnect` when its
    /// clients may come back, a target's connect `phases`, and without stack).
    static func parse(
        _ expressions: [String], for scenario: Scenario, hasEchoes: Bool = true, reconnects: Bool = false,
        phases: [RunAnalysis.Metric] = [], metrics: [String]? = nil, command: String
    ) throws(UsageError) -> [Threshold] {
        let metrics = metrics
            ?? RunAnalysis.Metric.reported(by: scenario, hasEchoes: hasEchoes, reconnects: reconnects, phases: phases)
                .map(\.rawValue)
        var thresholds: [Threshold] = []
        for text in expressions {
            // A metric bench knows but this run does not report: say which runs have it, not "unknown metric".
            if let absent = RunAnalysis.Metric.allCases.first(where: {
                text.hasPrefix($0.rawValue + ".") && !metrics.contains($0.rawValue)
            }) {
                let hint = switch absent {
                case .reconnect:
                    ": it is measured when clients may come back or be cut off (--reconnect, --drop-connections-at, a "
                        + "--link with nat-idle or blackout)"
                case _ where absent.isConnectPhase && !metrics.contains("subscribe"):
                    ": a connect's phases are measured against a --target"
                default: " (its metrics: \(metrics.joined(separator: " ")))"
                }
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--threshold <expr>': this run has no "
                        + "\(absent.rawValue) metric\(hint)",
                    command: command)
            }
            do {
                thresholds.append(try Threshold(
                    parsing: text, defaultMetric: scenario.isBroadcast ? "spread" : "rtt", metrics: metrics))
            } catch {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--threshold <expr>': \(error.reason)", command: command)
            }
        }
        return thresholds
    }
}
