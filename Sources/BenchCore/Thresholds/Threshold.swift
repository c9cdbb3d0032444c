/// A pass/fail condition on one statistic of one metric, written `[metric.]stat OP value` (SPEC §4):
/// `spread.p99<200ms`, `rtt.p50<=2ms`, `pct_under>=99%`, `lost==0`; or of one link group's, the group selected after
/// the metric: `delivery{link=3g}.p99<300ms`.
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
    /// The link group whose summary it judges (`{link=3g}`); nil: the run's own.
    public let link: String?
    public let statistic: Statistic
    public let comparison: Comparison
    public let limit: Limit

    /// Reads an expression.
    ///
    /// - Parameters:
    ///   - text: `[metric.]stat OP value`; spaces around the parts are allowed.
    ///   - defaultMetric: The metric when none is named (`spread` for fanout, `rtt` for roundtrip).
    ///   - metrics: The metrics the scenario reports; any other is an error.
    ///   - shareMetric: The metric of `pct_under` and `lost` when none is named: the one every sent message has a value
    ///     of (`delivery`, `rtt`), as `pct_under` is the share of all sent messages; nil: `defaultMetric`.
    /// - Throws: ``ThresholdError`` for an unknown metric or statistic, a missing operator, or a value whose unit
    ///   does not suit the statistic (a duration on `lost`, a percent on `p99`…).
    public init(
        parsing text: String, defaultMetric: String, metrics: [String], shareMetric: String? = nil
    ) throws(ThresholdError) {
        expression = text
        if text.contains("{") && !text.contains("}") {
            throw ThresholdError(expression: text, reason: "'{' without its '}': select a link group as {link=3g}")
        }
        guard let operatorRange = Self.operatorRange(in: text) else {
            throw ThresholdError(expression: text, reason: "expected [metric.]stat OP value with OP one of < <= > >= ==")
        }
        comparison = Comparison(rawValue: String(text[operatorRange]))!
        let written = text[..<operatorRange.lowerBound].trimmingSpaces
        let right = text[operatorRange.upperBound...].trimmingSpaces
        let (left, link) = try Self.selection(in: written, of: text)
        self.link = link
        if link != nil, !metrics.contains(where: { left.hasPrefix($0 + ".") }) {
            throw ThresholdError(
                expression: text, reason: "a link group is selected on a named metric, as delivery{link=3g}.p99<300ms "
                    + "(metrics: \(metrics.joined(separator: " ")))")
        }

        let named = metrics.first { left.hasPrefix($0 + ".") }
        let statisticText = named.map { String(left.dropFirst($0.count + 1)) } ?? left
        let isShare = statisticText == Statistic.percentUnder.rawValue || statisticText == Statistic.lost.rawValue
        metric = named ?? (isShare ? shareMetric ?? defaultMetric : defaultMetric)
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
            guard let range = operatorRange(in: text),
                let left = try? selection(in: text[..<range.lowerBound].trimmingSpaces, of: text).left
            else { return nil }
            let statistic = Statistic(rawValue: left)
                ?? left.firstIndex(of: ".").flatMap { Statistic(rawValue: String(left[left.index(after: $0)...])) }
            return statistic?.percentile
        }
    }

    /// `left` without its link group's selector (`delivery{link=3g}.p99` is `delivery.p99` of group `3g`), and the
    /// group; `left` itself and nil without one. A selector is `{link=NAME}` right after the metric, NAME not empty.
    static func selection(in left: String, of expression: String) throws(ThresholdError) -> (left: String, link: String?) {
        guard let open = left.firstIndex(of: "{") else { return (left, nil) }
        guard let close = left[open...].firstIndex(of: "}") else {
            throw ThresholdError(expression: expression, reason: "'{' without its '}': select a link group as {link=3g}")
        }
        let selector = left[left.index(after: open)..<close]
        guard selector.hasPrefix("link="), selector.count > 5 else {
            throw ThresholdError(
                expression: expression, reason: "'{\(selector.prefix(40))}' selects nothing bench knows: select a link "
                    + "group as {link=3g}")
        }
        return (String(left[..<open]) + String(left[left.index(after: close)...]), String(selector.dropFirst(5)))
    }

    static func operatorRange(in text: String) -> Range<String.Index>? {
        // Past a link group's selector, whose `link=` is no operator.
        let from = text.firstIndex(of: "}").map { text.index(after: $0) } ?? text.startIndex
        guard let start = text[from...].firstIndex(where: { $0 == "<" || $0 == ">" || $0 == "=" }) else { return nil }
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

    static func percentText(_ value: Double) -> String {
        DecimalText.trimmed(value, fractionDigits: 3) + "%"
    }
}

/// An expression that is not a threshold: a usage error, before anything runs.
public struct ThresholdError: Error, Equatable, Sendable, CustomStringConvertible {
    public let expression: String
    public let reason: String

    public var description: String { "'\(expression)': \(reason)" }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
