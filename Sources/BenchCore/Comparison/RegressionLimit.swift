/// How much worse one statistic may get from a baseline run to the current one: `spread.p99=+25%` or
/// `rtt.p50=+200us` (or `+200µs`, `+200 us`); `p999` is `p99.9`, as `summary.csv` names it.
public struct RegressionLimit: Sendable, Equatable {
    /// How the allowance is given.
    public enum Allowance: Sendable, Equatable {
        /// A share of the baseline value, in percent.
        case percent(Double)
        /// An absolute increase.
        case nanoseconds(UInt64)
    }

    /// The statistics a limit can name: the ones measured in time.
    public static let statistics = ["p50", "p90", "p95", "p99", "p99.9", "min", "max", "mean"]

    /// The expression as written.
    public let expression: String
    public let metric: String
    public let statistic: String
    public let allowance: Allowance

    /// Reads `metric.stat=+N%` or `metric.stat=+DURATION`.
    ///
    /// - Parameter metrics: The metrics both runs report; any other is an error.
    public init(parsing text: String, metrics: [String]) throws(ThresholdError) {
        expression = text
        let parts = text.split(separator: "=", maxSplits: 1).map { String($0).filter { $0 != " " } }
        guard parts.count == 2, let dot = parts[0].firstIndex(of: ".") else {
            throw ThresholdError(expression: text, reason: "expected metric.stat=+N% or metric.stat=+DURATION")
        }
        metric = String(parts[0][..<dot])
        let statisticText = String(parts[0][parts[0].index(after: dot)...])
        statistic = statisticText == "p999" ? "p99.9" : statisticText  // as summary.csv names it
        guard metrics.contains(metric) else {
            throw ThresholdError(expression: text, reason: "unknown metric '\(metric)' (metrics: \(metrics.joined(separator: " ")))")
        }
        guard Self.statistics.contains(statistic) else {
            throw ThresholdError(
                expression: text,
                reason: "unknown statistic '\(statistic)' (statistics: \(Self.statistics.joined(separator: " ")))")
        }
        var value = parts[1]
        guard value.hasPrefix("+") else {
            throw ThresholdError(expression: text, reason: "the allowance is an increase: start it with +, e.g. +25%")
        }
        value.removeFirst()
        if value.hasSuffix("%") {
            guard let percent = Double(value.dropLast()), percent >= 0, percent <= 1_000_000 else {
                throw ThresholdError(expression: text, reason: "'\(value)' is not a percent from 0% to 1000000%")
            }
            allowance = .percent(percent)
        } else {
            do {
                allowance = .nanoseconds(try DurationText.parse(value))
            } catch {
                throw ThresholdError(expression: text, reason: "the allowance is a percent or a duration: \(error.reason)")
            }
        }
    }

    /// The largest increase allowed from `baseline`, in nanoseconds.
    public func allowedIncrease(from baseline: Double) -> Double {
        switch allowance {
        case .percent(let percent): return baseline * percent / 100
        case .nanoseconds(let value): return Double(value)
        }
    }

    /// `+25%` or `+200us`.
    public var allowanceText: String {
        switch allowance {
        case .percent(let percent):
            return "+\(DecimalText.trimmed(percent, fractionDigits: 3))%"
        case .nanoseconds(let value): return "+" + DurationText.format(value)
        }
    }
}
