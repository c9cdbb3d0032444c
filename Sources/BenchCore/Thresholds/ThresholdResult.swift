/// A threshold checked against a run: what was measured, and whether the threshold held.
public struct ThresholdResult: Sendable, Equatable {
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

    public init(
        expression: String, metric: String, statistic: String, comparison: String, limitText: String,
        measuredText: String?, held: Bool
    ) {
        self.expression = expression
        self.metric = metric
        self.statistic = statistic
        self.comparison = comparison
        self.limitText = limitText
        self.measuredText = measuredText
        self.held = held
    }

    /// The line printed for a breach: `threshold breached: spread.p99<200ms (measured 250.1ms, limit 200ms)`.
    public var breachLine: String {
        "threshold breached: \(expression) (measured \(measuredText ?? "nothing: no value was measured"), "
            + "limit \(limitText))"
    }
}
