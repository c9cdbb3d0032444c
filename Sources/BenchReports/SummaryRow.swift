import BenchCore

/// One metric's line in every summary table people read (terminal, Markdown, HTML): the same columns, the same
/// words, whatever the markup around them.
enum SummaryRow {
    /// The column titles, the last one naming the threshold: `<200ms`.
    static func header(under: UInt64) -> [String] {
        let limit = DurationText.format(under)  // exact, in µs as every time people read here
        return ["metric", "count", "lost", "p50", "p90", "p99", "p99.9", "max",
            "<" + (limit.hasSuffix("us") ? limit.dropLast(2) + "\u{B5}s" : limit)]
    }

    /// The cells: metric, count, lost, five times for people (`-` when not measured), percent under.
    static func cells(_ summary: DistributionSummary) -> [String] {
        let times = [summary.p50, summary.p90, summary.p99, summary.p999, summary.max].map { value in
            value.map { DisplayDuration.text(nanoseconds: $0) } ?? "-"
        }
        let percent = summary.percentUnder.map { DecimalText.fixed($0, fractionDigits: 2) + "%" } ?? "-"
        return [summary.metric, "\(summary.count)", "\(summary.lost)"] + times + [percent]
    }
}
