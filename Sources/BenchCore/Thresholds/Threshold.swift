/// A pass/fail condition on one statistic of one metric, written `[metric.]stat OP value` (SPEC §4):
/// `spread.p99<200ms`, `rtt.p50<=2ms`, `pct_under>=99%`, `lost==0`.
public struct Threshold: Sendable, Equatable {
    /// What a threshold reads from a metric's summary.
    public enum Statistic: String, Sendable, CaseIterable {
        case p50, p90, p95, p99
        case p999 = "p99.9"
        case min, max, mean, lost
        case percentUnder = "pct_under"
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

    /// Checks the threshold against the summary of its metric.
    public func evaluate(_ summary: DistributionSummary) -> ThresholdResult {
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
        default:
            let nanoseconds = summary.time(of: statistic.rawValue)
            measured = nanoseconds
            measuredText = nanoseconds.map { DurationText.format(UInt64(roundingClamped: $0)) }
        }
        let limitValue: Double
        switch limit {
        case .nanoseconds(let value): limitValue = Double(value)
        case .count(let value): limitValue = Double(value)
        case .percent(let value): limitValue = value
        }
        return ThresholdResult(
            expression: expression, metric: metric, statistic: statistic.rawValue, comparison: comparison.rawValue,
            limitText: limitText, measuredText: measuredText,
            held: measured.map { comparison.holds($0, limitValue) } ?? false
        )
    }

    /// The limit as people read it.
    public var limitText: String {
        switch limit {
        case .nanoseconds(let value): return DurationText.format(value)
        case .count(let value): return "\(value)"
        case .percent(let value): return Self.percentText(value)
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
                return .nanoseconds(try DurationText.parse(text))
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
