/// A pass/fail condition on one statistic of one metric, written `[metric.]stat OP value` (SPEC §4):
/// `spread.p99<200ms`, `rtt.p50<=2ms`, `pct_under>=99%`, `lost==0`.
public struct Threshold: Sendable, Equatable {
    /// What a threshold reads from a metric's summary.
    ///
    /// Its raw value is the name as written: `p50` `p90` `p95` `p99` `p99.9` (also `p999`, as `summary.csv` names
    /// it) `min` `max` `mean` `lost` `pct_under`, or any other percentile `pNN.NNN` above 0 and below 100 with up to
    /// three decimals (`p75`, `p99.99`, `p99.999`).
    public enum Statistic: Sendable, Hashable, CaseIterable, RawRepresentable {
        case p50, p90, p95, p99, p999
        case min, max, mean, lost
        case percentUnder
        /// A percentile other than the five every summary holds, in thousandths of a percent (`p99.99` is
        /// 99_990): computed when a summary is made for it (``DistributionBuilder/summary(percentiles:)``).
        case percentile(thousandths: Int)

        /// The statistics with a name of their own, in the order error messages list them.
        public static let allCases: [Statistic] = [
            .p50, .p90, .p95, .p99, .p999, .min, .max, .mean, .lost, .percentUnder,
        ]

        public init?(rawValue: String) {
            switch rawValue {
            case "p999": self = .p999
            case "min": self = .min
            case "max": self = .max
            case "mean": self = .mean
            case "lost": self = .lost
            case "pct_under": self = .percentUnder
            default:
                guard let thousandths = Self.thousandths(rawValue) else { return nil }
                switch thousandths {
                case 50_000: self = .p50
                case 90_000: self = .p90
                case 95_000: self = .p95
                case 99_000: self = .p99
                case 99_900: self = .p999
                default: self = .percentile(thousandths: thousandths)
                }
            }
        }

        /// The name: `p99.9` for ``p999``, `pct_under`, `p99.99`…
        public var rawValue: String {
            switch self {
            case .p50: return "p50"
            case .p90: return "p90"
            case .p95: return "p95"
            case .p99: return "p99"
            case .p999: return "p99.9"
            case .min: return "min"
            case .max: return "max"
            case .mean: return "mean"
            case .lost: return "lost"
            case .percentUnder: return "pct_under"
            case .percentile(let thousandths):
                var fraction = String(thousandths % 1000)
                fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
                while fraction.hasSuffix("0") { fraction.removeLast() }
                return "p\(thousandths / 1000)" + (fraction.isEmpty ? "" : "." + fraction)
            }
        }

        /// The percentile it reads (`99.99` for `p99.99`), nil for the statistics that are not percentiles.
        public var percentile: Double? {
            switch self {
            case .p50: return 50
            case .p90: return 90
            case .p95: return 95
            case .p99: return 99
            case .p999: return 99.9
            case .percentile(let thousandths): return Double(thousandths) / 1000
            case .min, .max, .mean, .lost, .percentUnder: return nil
            }
        }

        /// `pNN.NNN` in thousandths of a percent, if above 0 and below 100 with at most three decimals.
        private static func thousandths(_ text: String) -> Int? {
            guard text.first == "p" else { return nil }
            let parts = text.dropFirst().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let whole = parts[0]
            let fraction = parts.count == 2 ? parts[1] : ""
            guard !whole.isEmpty, whole.count <= 3, whole.allSatisfy(\.isASCIIDigit),
                parts.count == 1 || (1...3).contains(fraction.count), fraction.allSatisfy(\.isASCIIDigit),
                let wholeValue = Int(whole)
            else { return nil }
            let value = wholeValue * 1000 + (Int(fraction + String(repeating: "0", count: 3 - fraction.count)) ?? 0)
            return value > 0 && value < 100_000 ? value : nil
        }
    }

    /// How the measured value is compared with the limit.
    public enum Comparison: String, Sendable, CaseIterable {
        case lessOrEqual = "<="
        case greaterOrEqual = ">="
        case equal = "=="
        case less = "<"
        case greater = ">"

        func holds(_ measured: Double, _ limit: Double) -> Bool {
            switch self {
            case .less: return measured < limit
            case .lessOrEqual: return measured <= limit
            case .greater: return measured > limit
            case .greaterOrEqual: return measured >= limit
            case .equal: return measured == limit
            }
        }
    }

    /// The limit, in the unit its statistic is measured in.
    public enum Limit: Sendable, Equatable {
        /// For percentiles, min, max, mean.
        case nanoseconds(UInt64)
        /// For `lost`: a number of messages (or broadcasts).
        case count(Int)
        /// For `pct_under`, or `lost` as a share of everything sent.
        case percent(Double)
    }

    /// The expression as written.
    public let expression: String
    public let metric: String
    public let statistic: Statistic
    public let comparison: Comparison
    public let limit: Limit

    /// Reads an expression.
    ///
    /// - Parameters:
    ///   - text: `[metric.]stat OP value`; spaces around the parts are allowed.
    ///   - defaultMetric: The metric when none is named (`spread` for fanout, `rtt` for roundtrip).
    ///   - metrics: The metrics the scenario reports; any other is an error.
    /// - Throws: ``ThresholdError`` for an unknown metric or statistic, a missing operator, or a value whose unit
    ///   does not suit the statistic (a duration on `lost`, a percent on `p99`…).
    public init(parsing text: String, defaultMetric: String, metrics: [String]) throws(ThresholdError) {
        expression = text
        guard let operatorRange = Self.operatorRange(in: text) else {
            throw ThresholdError(expression: text, reason: "expected [metric.]stat OP value with OP one of < <= > >= ==")
        }
        comparison = Comparison(rawValue: String(text[operatorRange]))!
        let left = text[..<operatorRange.lowerBound].trimmingSpaces
        let right = text[operatorRange.upperBound...].trimmingSpaces

        let named = metrics.first { left.hasPrefix($0 + ".") }
        metric = named ?? defaultMetric
        let statisticText = named.map { String(left.dropFirst($0.count + 1)) } ?? left
        guard let statistic = Statistic(rawValue: statisticText) else {
            let known = Statistic.allCases.map(\.rawValue).joined(separator: " ")
                + ", or any pNN.NNN from p0.001 to p99.999"
            if let dot = left.firstIndex(of: "."), Statistic(rawValue: String(left[left.index(after: dot)...])) != nil {
                throw ThresholdError(
                    expression: text,
                    reason: "unknown metric '\(left[..<dot])' (metrics: \(metrics.joined(separator: " ")))")
            }
            throw ThresholdError(expression: text, reason: "unknown statistic '\(statisticText)' (statistics: \(known))")
        }
        self.statistic = statistic
        limit = try Self.limit(right, for: statistic, in: text)
    }

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
        return comparison == .less || comparison == .greaterOrEqual ? value : value &+ 1
    }

    /// The share of the values the threshold allows beyond its limit (0.01 for `p99<…`, 0.5 for `p50>…`, 0.01 for
    /// `pct_under>=99%`); nil where the statistic is not a share of the values (min, max, mean, a count of lost) and
    /// for `==`.
    public var allowedShare: Double? {
        guard comparison != .equal else { return nil }
        let upper = comparison == .less || comparison == .lessOrEqual
        switch (statistic, limit) {
        case (.percentUnder, .percent(let percent)), (.lost, .percent(let percent)):
            let share = percent / 100
            return upper == (statistic == .lost) ? share : (100 - percent) / 100
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

    /// The limit as people read it.
    public var limitText: String {
        switch limit {
        case .nanoseconds(let value): return DurationText.format(value)
        case .count(let value): return "\(value)"
        case .percent(let value): return Self.percentText(value)
        }
    }

    /// The percentiles the thresholds among `expressions` read, for ``DistributionBuilder/summary(percentiles:)``
    /// before the expressions can be checked against a run's metrics (`bench check` reads the run first). An
    /// expression that is not a threshold asks for none.
    public static func percentiles(in expressions: [String]) -> [Double] {
        expressions.compactMap { text in
            guard let range = operatorRange(in: text) else { return nil }
            let left = text[..<range.lowerBound].trimmingSpaces
            let statistic = Statistic(rawValue: left)
                ?? left.firstIndex(of: ".").flatMap { Statistic(rawValue: String(left[left.index(after: $0)...])) }
            return statistic?.percentile
        }
    }

    /// The limits the thresholds among `expressions` count values over (``countedLimit``), for
    /// ``DistributionBuilder/summary(percentiles:limits:)``, as ``percentiles(in:)`` reads them.
    public static func countedLimits(in expressions: [String]) -> [UInt64] {
        expressions.compactMap { text in
            guard let range = operatorRange(in: text) else { return nil }
            let left = text[..<range.lowerBound].trimmingSpaces
            let dotted = left.firstIndex(of: ".").map { String(left[left.index(after: $0)...]) }
            let threshold = try? Threshold(
                parsing: text, defaultMetric: "", metrics: dotted.flatMap { Statistic(rawValue: $0) } != nil
                    ? [String(left[..<left.firstIndex(of: ".")!])] : [])
            return threshold?.countedLimit
        }
    }

    private static func operatorRange(in text: String) -> Range<String.Index>? {
        guard let start = text.firstIndex(where: { $0 == "<" || $0 == ">" || $0 == "=" }) else { return nil }
        let twoCharacters = String(text[start...].prefix(2))  // one character when the operator ends the text
        let length = twoCharacters.count == 2 && Comparison(rawValue: twoCharacters) != nil ? 2 : 1
        let end = text.index(start, offsetBy: length)
        guard Comparison(rawValue: String(text[start..<end])) != nil else { return nil }
        return start..<end
    }

    private static func limit(_ text: String, for statistic: Statistic, in expression: String) throws(ThresholdError) -> Limit {
        if text.hasSuffix("%") {
            guard statistic == .percentUnder || statistic == .lost else {
                throw ThresholdError(expression: expression, reason: "\(statistic.rawValue) takes a duration, not a percent")
            }
            guard let value = Double(text.dropLast()), value >= 0, value <= 100 else {
                throw ThresholdError(expression: expression, reason: "'\(text)' is not a percent from 0% to 100%")
            }
            return .percent(value)
        }
        switch statistic {
        case .percentUnder:
            throw ThresholdError(expression: expression, reason: "pct_under takes a percent, e.g. 99%")
        case .lost:
            guard let count = Int(text), count >= 0 else {
                throw ThresholdError(
                    expression: expression, reason: "lost takes a count (e.g. 0) or a percent of all sent (e.g. 0.1%)")
            }
            return .count(count)
        default:
            do {
                return .nanoseconds(try DurationText.parseLong(text))
            } catch {
                throw ThresholdError(
                    expression: expression, reason: "\(statistic.rawValue) takes a duration: \(error.reason)")
            }
        }
    }

    private static func percentText(_ value: Double) -> String {
        var text = DecimalText.fixed(value, fractionDigits: 3)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "%"
    }
}

/// An expression that is not a threshold: a usage error, before anything runs.
public struct ThresholdError: Error, Equatable, Sendable, CustomStringConvertible {
    public let expression: String
    public let reason: String

    public var description: String { "'\(expression)': \(reason)" }
}

extension StringProtocol {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
