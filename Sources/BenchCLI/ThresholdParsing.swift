import BenchClients
import BenchCore
import BenchScenarios

/// `--threshold` values read for a scenario, or a usage error that names the bad one.
enum ThresholdParsing {
    /// The connect phases every step of a `--transport` sweep has (a threshold on one that a step lacks could not be
    /// judged there): those of `base` over each of `transports`, in order.
    static func phasesOfEveryStep(_ base: RunConfiguration, transports: [TransportKind]) -> [RunAnalysis.Metric] {
        let each = transports.map { transport in
            var step = base
            step.transport = transport
            return Set(RunAnalysis.Metric.connectPhases(of: step))
        }
        return RunAnalysis.Metric.connectPhases(of: base).filter { phase in each.allSatisfy { $0.contains(phase) } }
    }

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
                    ": a connect's phases are measured against a --target, and over --transport tls, ws or wss"
                default: " (its metrics: \(metrics.joined(separator: " ")))"
                }
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--threshold <expr>': this run has no "
                        + "\(absent.rawValue) metric\(hint)",
                    command: command)
            }
            do {
                thresholds.append(try Threshold(
                    parsing: text, defaultMetric: scenario.isBroadcast ? "spread" : "rtt", metrics: metrics,
                    shareMetric: scenario.isBroadcast ? "delivery" : "rtt"))
            } catch {
                throw UsageError(
                    message: "The value '\(text)' is invalid for '--threshold <expr>': \(error.reason)", command: command)
            }
        }
        return thresholds
    }

    /// Refuses a threshold on a link group (`delivery{link=3g}.p99<300ms`) that the run cannot have: a group not in
    /// its mix (`link`), or any group in a run without a mix, unless agents may bring links of their own (`bench
    /// serve` without `--link`: their groups are known once they joined; a group none brought has no values, and its
    /// verdict is inconclusive).
    static func checkLinkGroups(
        of thresholds: [Threshold], link: LinkMix?, agentsMayBringLinks: Bool, command: String
    ) throws(UsageError) {
        for threshold in thresholds {
            guard let group = threshold.link, !agentsMayBringLinks else { continue }
            let groups = link?.isMix == true ? link!.groups.map(\.name) : []
            guard !groups.contains(group) else { continue }
            throw UsageError(
                message: "The value '\(threshold.expression)' is invalid for '--threshold <expr>': "
                    + (groups.isEmpty
                        ? "this run has no link groups (they come with a --link mix, or agents' own links in bench serve)"
                        : "'\(group)' is no link group of this run (its groups: \(groups.joined(separator: " ")))"),
                command: command)
        }
    }
}
