/// A baseline run against a current one, statistic by statistic, with the regressions that break limits.
public struct RunComparison: Sendable {
    /// One statistic of one metric in both runs.
    public struct Row: Sendable, Equatable {
        public let metric: String
        public let statistic: String
        /// Nanoseconds; nil when the run has no such value (everything lost).
        public let baseline: Double?
        public let current: Double?

        /// current − baseline, in nanoseconds.
        public var change: Double? {
            guard let baseline, let current else { return nil }
            return current - baseline
        }

        /// (current − baseline) / baseline, in percent; nil when the baseline is 0 or missing.
        public var relativeChange: Double? {
            guard let baseline, let change, baseline > 0 else { return nil }
            return 100 * change / baseline
        }
    }

    /// A limit that the current run broke.
    public struct Regression: Sendable, Equatable {
        public let limit: RegressionLimit
        public let row: Row

        /// `regression: spread.p99=+25% broken: 400.0µs → 531.0µs (+131.0µs, +32.8%)`.
        public var line: String {
            // In the table's units (µs, ms, s by magnitude), not to the nanosecond.
            let change = row.change.map { ($0 >= 0 ? "+" : "-") + DurationText.display(UInt64(roundingClamped: $0.magnitude)) }
            let relative = row.relativeChange.map { ($0 >= 0 ? "+" : "") + DecimalText.fixed($0, fractionDigits: 1) + "%" }
            return "regression: \(limit.expression) broken: \(Self.text(row.baseline)) → \(Self.text(row.current))"
                + " (\([change, relative].compactMap { $0 }.joined(separator: ", ")))"
        }

        static func text(_ value: Double?) -> String {
            value.map { DurationText.display(UInt64(roundingClamped: $0)) } ?? "nothing measured"
        }
    }

    /// Every statistic of every metric both runs report, in the baseline's order.
    public let rows: [Row]
    /// The limits the current run broke (changes smaller than the noise floor never count).
    public let regressions: [Regression]

    /// Compares two runs' summaries.
    ///
    /// - Parameters:
    ///   - noiseFloor: Changes smaller than this (in nanoseconds) are never regressions.
    public init(
        baseline: [DistributionSummary],
        current: [DistributionSummary],
        limits: [RegressionLimit],
        noiseFloor: UInt64
    ) {
        var rows: [Row] = []
        for old in baseline {
            guard let new = current.first(where: { $0.metric == old.metric }) else { continue }
            for statistic in RegressionLimit.statistics {
                rows.append(Row(
                    metric: old.metric, statistic: statistic, baseline: old.time(of: statistic),
                    current: new.time(of: statistic)))
            }
        }
        self.rows = rows
        regressions = limits.compactMap { limit in
            guard let row = rows.first(where: { $0.metric == limit.metric && $0.statistic == limit.statistic }) else {
                return nil
            }
            guard let baseline = row.baseline else { return nil }  // nothing to regress from
            guard let change = row.change else { return Regression(limit: limit, row: row) }  // nothing measured now
            guard change.magnitude >= Double(noiseFloor) else { return nil }
            return change > limit.allowedIncrease(from: baseline) ? Regression(limit: limit, row: row) : nil
        }
    }

    /// The same comparison without the regressions `excluded` says are none (a change within repeats' own range).
    public func excluding(_ excluded: (Regression) -> Bool) -> RunComparison {
        RunComparison(rows: rows, regressions: regressions.filter { !excluded($0) })
    }

    private init(rows: [Row], regressions: [Regression]) {
        self.rows = rows
        self.regressions = regressions
    }
}
