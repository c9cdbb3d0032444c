/// A threshold checked against a run: what was measured, and whether the threshold held.
public struct ThresholdResult: Sendable, Equatable {
    /// Who asked for a threshold: the run's own command line, or a later `bench check`.
    public enum Source: String, Sendable {
        case run
        case check
    }

    /// The expression as the user wrote it, e.g. `spread.p99<200ms`.
    public let expression: String
    /// The metric it reads: `rtt`, `delivery`, `spread`, `completion` or `lag`.
    public let metric: String
    /// The statistic it reads, as written: `p99`, `p99.9`, `max`, `lost`, `pct_under`…
    public let statistic: String
    /// The comparison: `<`, `<=`, `>`, `>=` or `==`.
    public let comparison: String
    /// The limit as people read it: `200ms`, `0`, `99%`.
    public let limitText: String
    /// The measured value as people read it (`183.2µs`, `3`, `99.95%`), or nil when the run has no such value
    /// (a percentile of a metric where every message was lost): then the threshold does not hold.
    public let measuredText: String?
    /// True when the measured value satisfies the comparison.
    public let held: Bool
    /// Whether the run was started with this threshold or a check added it afterwards.
    public let source: Source
    /// The measured value and the limit as numbers, for JSON: microseconds for times, else counts or percent; nil
    /// when not known (nothing measured, or a verdict read back from thresholds.csv).
    public let measuredNumber: Double?
    public let limitNumber: Double?

    public init(
        expression: String, metric: String, statistic: String, comparison: String, limitText: String,
        measuredText: String?, held: Bool, source: Source = .run, measuredNumber: Double? = nil,
        limitNumber: Double? = nil
    ) {
        self.measuredNumber = measuredNumber
        self.limitNumber = limitNumber
        self.expression = expression
        self.metric = metric
        self.statistic = statistic
        self.comparison = comparison
        self.limitText = limitText
        self.measuredText = measuredText
        self.held = held
        self.source = source
    }

    /// The same verdict, as asked for by `source`.
    public func from(_ source: Source) -> ThresholdResult {
        ThresholdResult(
            expression: expression, metric: metric, statistic: statistic, comparison: comparison,
            limitText: limitText, measuredText: measuredText, held: held, source: source,
            measuredNumber: measuredNumber, limitNumber: limitNumber)
    }

    /// The expression, marked `check:` when a check added it: how reports name the verdict.
    public var label: String {
        source == .check ? "check: \(expression)" : expression
    }

    /// The line printed for a breach: `threshold breached: spread.p99<200ms (measured 250.1ms, limit 200ms)`.
    public var breachLine: String {
        "threshold breached: \(expression) (measured \(measuredText ?? "nothing: no value was measured"), "
            + "limit \(limitText))"
    }
}
