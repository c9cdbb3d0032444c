/// A threshold checked against a run: what was measured, whether the threshold held, how sure that is, and whether the
/// run was a measurement of the server at all.
public struct ThresholdResult: Sendable, Equatable {
    /// Who asked for a threshold: the run's own command line, or a later `bench check`.
    public enum Source: String, Sendable {
        case run
        case check
    }

    /// What a verdict rests on: how many values it judged, how many lay beyond the limit, and what they decide.
    public struct Evidence: Sendable, Equatable {
        /// Values judged: measured and lost.
        public let values: Int
        /// Values on the wrong side of the limit (a lost one is too slow), for the statistics that are a share of the
        /// values (percentiles, `pct_under`, `lost` in percent); nil for the others.
        public let beyond: Int?
        /// The share of the values the threshold allows beyond its limit (0.01 for a p99); nil with `beyond`.
        public let allowedShare: Double?
        /// A percentile's 95% interval, in the unit of ``ThresholdResult/measuredNumber`` (µs).
        public let interval: ClosedRange<Double>?
        /// The interval as people read it: `980.1µs–4.63ms`.
        public let intervalText: String?
        /// The confidence the decision was taken with (0.95).
        public let confidence: Double
        /// Pass, fail or undecided with that confidence: from the count beyond the limit where there is one, else the
        /// measured value against the limit.
        public let decision: ProportionDecision.Outcome

        public init(
            values: Int, beyond: Int? = nil, allowedShare: Double? = nil, interval: ClosedRange<Double>? = nil,
            intervalText: String? = nil, confidence: Double = 0.95, decision: ProportionDecision.Outcome
        ) {
            self.values = values
            self.beyond = beyond
            self.allowedShare = allowedShare
            self.interval = interval
            self.intervalText = intervalText
            self.confidence = confidence
            self.decision = decision
        }

        /// The fewest values a pass could be decided from (none beyond the limit): 299 for a p99 at 95%.
        public var valuesToDecide: Int? {
            allowedShare.flatMap { ProportionDecision.valuesToPass(allowedShare: $0, confidence: confidence) }
        }

        /// True when a percentile of so few values can only be their largest (a p99 of under 100 values).
        public var isOnlyTheLargest: Bool {
            guard let allowedShare, allowedShare > 0 else { return false }
            return Double(values) * allowedShare < 1
        }
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
    /// What the verdict rests on; nil for a verdict read back from a thresholds.csv written before it was kept.
    public let evidence: Evidence?
    /// Why the verdict is not a measurement of the server (the run was interrupted, its harness saturated, the
    /// metric has no values…), unless the user accepted that; empty when it is one.
    public let inconclusive: [InconclusiveReason]

    public init(
        expression: String, metric: String, statistic: String, comparison: String, limitText: String,
        measuredText: String?, held: Bool, source: Source = .run, measuredNumber: Double? = nil,
        limitNumber: Double? = nil, evidence: Evidence? = nil, inconclusive: [InconclusiveReason] = []
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
        self.evidence = evidence
        self.inconclusive = inconclusive
    }

    /// The same verdict, as asked for by `source`.
    public func from(_ source: Source) -> ThresholdResult {
        ThresholdResult(
            expression: expression, metric: metric, statistic: statistic, comparison: comparison,
            limitText: limitText, measuredText: measuredText, held: held, source: source,
            measuredNumber: measuredNumber, limitNumber: limitNumber, evidence: evidence, inconclusive: inconclusive)
    }

    /// The same verdict, inconclusive also for the run's `reasons` but those in `accepted`.
    public func judged(in reasons: [InconclusiveReason], accepting accepted: Set<InconclusiveReason>) -> ThresholdResult {
        let all = (inconclusive + reasons.filter { !inconclusive.contains($0) }).filter { !accepted.contains($0) }
        return ThresholdResult(
            expression: expression, metric: metric, statistic: statistic, comparison: comparison,
            limitText: limitText, measuredText: measuredText, held: held, source: source,
            measuredNumber: measuredNumber, limitNumber: limitNumber, evidence: evidence, inconclusive: all)
    }

    /// What a gate reads: held, breached, or inconclusive (not a measurement of the server).
    public var verdict: Verdict {
        if !inconclusive.isEmpty { return .inconclusive }
        return held ? .held : .breached
    }

    /// The expression, marked `check:` when a check added it: how reports name the verdict.
    public var label: String {
        source == .check ? "check: \(expression)" : expression
    }

    /// `measured 1.31ms, limit 200ms; 95%: 980.1µs–4.63ms of 200 values`: what the verdict read, and how sure it is.
    public var measurementText: String {
        var text = "measured \(measuredText ?? "nothing: no value was measured"), limit \(limitText)"
        if let evidence, measuredText != nil, let percentile = SamplingUncertainty.percentile(of: statistic) {
            let confidence = DecimalText.trimmed(evidence.confidence * 100, fractionDigits: 3) + "%"
            if evidence.isOnlyTheLargest, let needed = evidence.valuesToDecide {
                text += "; of \(evidence.values) values a p\(DecimalText.trimmed(percentile, fractionDigits: 3)) is the "
                    + "largest: a verdict decided at \(confidence) needs \(needed) or more"
            } else if let interval = evidence.intervalText {
                text += "; \(confidence): \(interval) of \(evidence.values) values"
                // thresholds.csv's decision, said where the verdict is: as measured, but not decided at the confidence.
                if evidence.decision == .undecided && evidence.beyond != nil {
                    text += "; \(held ? "held" : "breached") as measured, not decided at \(confidence)"
                }
            }
        }
        return text
    }

    /// The line printed for a breach: `threshold breached: spread.p99<200ms (measured 250.1ms, limit 200ms)`.
    public var breachLine: String {
        "threshold breached: \(namedExpression) (\(measurementText))"
    }

    /// The expression with the metric it judged where it names none: `pct_under>=99% on delivery`; as written
    /// otherwise. Every verdict line says what it judged.
    public var namedExpression: String {
        expression.hasPrefix(metric + ".") || expression.hasPrefix(metric + "{") || metric.isEmpty
            ? expression : "\(expression) on \(metric)"
    }

    /// The line printed for a verdict that is not a measurement: `threshold inconclusive: spread.p99<200ms (measured
    /// 1.2ms, limit 200ms): the run was interrupted`.
    public var inconclusiveLine: String {
        "threshold inconclusive: \(namedExpression) (\(measurementText)): " + inconclusiveText
    }

    /// Why the verdict is inconclusive, for people: each reason's explanation, `; ` between them (empty when it is not).
    public var inconclusiveText: String {
        inconclusive.map(\.explanation).joined(separator: "; ")
    }

}

/// What a gate makes of a threshold.
public enum Verdict: String, Sendable, Equatable {
    case held, breached, inconclusive

    /// How a Markdown report marks it: ✅, ❌, or ⚠️ with the word.
    public var markdownMark: String {
        switch self {
        case .held: return "✅"
        case .breached: return "❌"
        case .inconclusive: return "⚠️ inconclusive:"
        }
    }
}
