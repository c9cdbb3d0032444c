import BenchCore
import BenchScenarios

/// `--threshold` values read for a scenario, or a usage error that names the bad one.
enum ThresholdParsing {
    static func parse(
        _ expressions: [String], for scenario: Scenario, hasEchoes: Bool = true, command: String
    ) throws(UsageError) -> [Threshold] {
        let metrics = RunAnalysis.Metric.reported(by: scenario, hasEchoes: hasEchoes).map(\.rawValue)
        var thresholds: [Threshold] = []
        for text in expressions {
            do {
                thresholds.append(try Threshold(
                    parsing: text, defaultMetric: scenario == .fanout ? "spread" : "rtt", metrics: metrics))
            } catch {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--threshold <expr>': \(error.reason)", command: command)
            }
        }
        return thresholds
    }
}
