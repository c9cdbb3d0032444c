/// A threshold's verdict on a run: the measured value against the limit, and what it rests on.
extension Threshold {
    /// Checks the threshold against the summary of its metric: the measured value against the limit, and, where the
    /// statistic is a share of the values (a percentile, `pct_under`, `lost` in percent), how many values lie beyond
    /// the limit and what that decides with `confidence` (``ProportionDecision``), with the 95% interval of a
    /// percentile. A metric with no values at all (nothing measured, nothing lost) is not a measurement: its verdict
    /// is inconclusive.
    public func evaluate(_ summary: DistributionSummary, confidence: Double = 0.95) -> ThresholdResult {
        let measured: Double?
        let measuredText: String?
        switch statistic {
        case .lost:
            if case .percent = limit {
                let total = summary.count + summary.lost
                measured = total > 0 ? 100 * Double(summary.lost) / Double(total) : nil
                measuredText = measured.map { Self.percentText($0) }
            } else {
                measured = Double(summary.lost)
                measuredText = "\(summary.lost)"
            }
        case .percentUnder:
            measured = summary.percentUnder
            measuredText = measured.map { Self.percentText($0) }
        case .percentile(let thousandths):
            let nanoseconds = summary.percentiles[thousandths]
            measured = nanoseconds.map { Double($0) }
            measuredText = nanoseconds.map { DurationText.display($0) }
        default:
            let nanoseconds = summary.time(of: statistic.rawValue)
            measured = nanoseconds
            measuredText = nanoseconds.map { DurationText.display(UInt64(roundingClamped: $0)) }
        }
        let limitValue: Double
        let scale: Double
        switch limit {
        case .nanoseconds(let value): (limitValue, scale) = (Double(value), 1e-3)  // numbers in µs, as summary.csv
        case .count(let value): (limitValue, scale) = (Double(value), 1)
        case .percent(let value): (limitValue, scale) = (value, 1)
        }
        let held = measured.map { comparison.holds($0, limitValue) } ?? false
        let counted = beyondLimit(in: summary)
        let decision = counted.map {
            ProportionDecision.decide(
                beyond: $0.beyond, of: $0.values, allowedShare: $0.allowedShare, confidence: confidence)
        } ?? (held ? .pass : .fail)
        let interval = statistic.percentile == nil ? nil : SamplingUncertainty.interval(of: statistic.rawValue, in: summary)
        return ThresholdResult(
            expression: expression, metric: metric, statistic: statistic.rawValue, comparison: comparison.rawValue,
            limitText: limitText, measuredText: measuredText, held: held,
            measuredNumber: measured.map { $0 * scale }, limitNumber: limitValue * scale,
            evidence: ThresholdResult.Evidence(
                values: summary.count + summary.lost, beyond: counted?.beyond, allowedShare: allowedShare,
                interval: interval.map { ($0.lowerBound * scale)...($0.upperBound * scale) },
                intervalText: interval.map {
                    DurationText.display(UInt64(roundingClamped: $0.lowerBound)) + "–"
                        + DurationText.display(UInt64(roundingClamped: $0.upperBound))
                },
                confidence: confidence, decision: decision),
            inconclusive: summary.count + summary.lost == 0 ? [.noValues] : [])
    }

    /// The limit a summary must count the values at or above of, for this threshold's verdict to be decided from
    /// them: a percentile's limit (one more for `<=` and `>`, so that the count is of values over it); nil for the
    /// other statistics.
    public var countedLimit: UInt64? {
        guard statistic.percentile != nil, case .nanoseconds(let value) = limit, comparison != .equal else { return nil }
        if comparison == .less || comparison == .greaterOrEqual { return value }
        return value == .max ? nil : value + 1  // nothing is over the largest value: judged as measured
    }

    /// The share of the values the threshold allows beyond its limit (0.01 for `p99<…`, 0.5 for `p50>…`, 0.01 for
    /// `pct_under>=99%`); nil where the statistic is not a share of the values (min, max, mean, a count of lost) and
    /// for `==`.
    public var allowedShare: Double? {
        guard comparison != .equal else { return nil }
        let upper = comparison == .less || comparison == .lessOrEqual
        switch (statistic, limit) {
        case (.percentUnder, .percent(let percent)), (.lost, .percent(let percent)):
            // pct_under>=99% allows 1% not under; lost<=0.1% allows 0.1% lost: the share of the wrong side.
            return upper ? percent / 100 : (100 - percent) / 100
        case (_, .nanoseconds):
            guard let percentile = statistic.percentile else { return nil }
            return upper ? (100 - percentile) / 100 : percentile / 100
        default:
            return nil
        }
    }

    /// The values on the wrong side of the limit (lost ones count as too slow), and of how many; nil where there is
    /// no ``allowedShare``, nothing was sent, or the summary was not made counting over the limit.
    private func beyondLimit(in summary: DistributionSummary) -> (beyond: Int, values: Int, allowedShare: Double)? {
        let total = summary.count + summary.lost
        guard total > 0, let allowedShare else { return nil }
        let upper = comparison == .less || comparison == .lessOrEqual
        switch statistic {
        case .percentUnder:
            let under = Int(((summary.percentUnder ?? 0) * Double(total) / 100).rounded())
            return (upper ? under : total - under, total, allowedShare)
        case .lost:
            return (upper ? summary.lost : summary.count, total, allowedShare)
        default:
            guard let countedLimit, let atOrAbove = summary.countsAtOrAbove[countedLimit] else { return nil }
            return (upper ? atOrAbove + summary.lost : summary.count - atOrAbove, total, allowedShare)
        }
    }

    /// The limits the thresholds among `expressions` count values over (``countedLimit``), for
    /// ``DistributionBuilder/summary(percentiles:limits:)``, as ``percentiles(in:)`` reads them.
    public static func countedLimits(in expressions: [String]) -> [UInt64] {
        expressions.compactMap { text in
            guard let range = operatorRange(in: text),
                let left = try? selection(in: text[..<range.lowerBound].trimmingSpaces, of: text).left
            else { return nil }
            let dotted = left.firstIndex(of: ".").map { String(left[left.index(after: $0)...]) }
            let threshold = try? Threshold(
                parsing: text, defaultMetric: "", metrics: dotted.flatMap { Statistic(rawValue: $0) } != nil
                    ? [String(left[..<left.firstIndex(of: ".")!])] : [])
            return threshold?.countedLimit
        }
    }
}
