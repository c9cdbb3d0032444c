import BenchCore

/// A comparison of two runs for a terminal, or as Markdown for a CI summary.
///
/// The table shows p50, p90, p99, p99.9 and max of each metric; a regression limit may name any statistic of
/// ``RegressionLimit/statistics`` and is reported below the table.
public enum ComparisonTable {
    static let shownStatistics: Set = ["p50", "p90", "p99", "p99.9", "max"]

    /// Text columns, one row per metric and statistic, then the regressions.
    public static func render(_ comparison: RunComparison, baseline: String, current: String) -> String {
        var rows = [["metric", "stat", "baseline", "current", "change", "change %"]]
        rows += comparison.rows.filter { shownStatistics.contains($0.statistic) }.map(cells)
        var lines = ["baseline: \(baseline)", "current:  \(current)", ""] + TextColumns.align(rows, leftAligned: 2)
        lines.append("")
        lines += comparison.regressions.map(\.line)
        if comparison.regressions.isEmpty { lines.append("no regression beyond the limits") }
        return lines.map { $0 + "\n" }.joined()
    }

    /// The same as a GitHub-flavoured Markdown section.
    public static func markdown(_ comparison: RunComparison, baseline: String, current: String) -> String {
        var text = "### bench compare\n\nbaseline `\(baseline)` · current `\(current)`\n\n"
        text += "| metric | stat | baseline | current | change | change % |\n|---|---|--:|--:|--:|--:|\n"
        for row in comparison.rows where shownStatistics.contains(row.statistic) {
            text += "| " + cells(row).joined(separator: " | ") + " |\n"
        }
        text += "\n" + (comparison.regressions.isEmpty
            ? "No regression beyond the limits.\n" : comparison.regressions.map { "- ❌ \($0.line)\n" }.joined())
        return text
    }

    private static func cells(_ row: RunComparison.Row) -> [String] {
        func time(_ value: Double?) -> String { value.map { DisplayDuration.text(nanoseconds: UInt64(roundingClamped: $0)) } ?? "-" }
        let change = row.change.map { ($0 >= 0 ? "+" : "-") + DisplayDuration.text(nanoseconds: UInt64(roundingClamped: $0.magnitude)) } ?? "-"
        let relative = row.relativeChange.map { ($0 >= 0 ? "+" : "") + DecimalText.fixed($0, fractionDigits: 1) + "%" } ?? "-"
        return [row.metric, row.statistic, time(row.baseline), time(row.current), change, relative]
    }
}
