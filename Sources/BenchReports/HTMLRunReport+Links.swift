import BenchCore

extension HTMLRunReport {
    /// Behind a mix of links: each link group's metrics (`summary.csv`'s rows with a `link`), in the mix's order, so
    /// that the clients on a good link and those on a bad one are seen apart.
    static func linkGroupsSection(_ results: RunResults) -> String {
        let columns = SummaryCSV.header
        guard !results.linkGroups.isEmpty else { return "" }
        let at = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        func time(_ row: [String], _ column: String) -> String {
            guard let micros = Double(row[at[column]!]), micros >= 0, micros < 1e15 else { return "–" }
            return DurationText.display(UInt64((micros * 1_000).rounded()))
        }
        var html = "<h2>by link</h2>\n<table>\n<tr><th>link</th><th>metric</th><th>count</th><th>lost</th><th>p50</th>"
            + "<th>p99</th><th>max</th><th>% under</th></tr>\n"
        for row in results.linkGroups where row.count == columns.count {
            let percent = row[at["pct_under"]!]
            let cells = [
                row[at["link"]!], row[at["metric"]!], row[at["count"]!], row[at["lost"]!], time(row, "p50_us"),
                time(row, "p99_us"), time(row, "max_us"), percent.isEmpty ? "–" : percent + "%",
            ]
            html += "<tr>" + cells.map { "<td>\(MarkupText.escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n<p class=\"meta\">each metric again among the clients of one link of the mix: a "
            + "message counts in its receiver's group, a broadcast's spread among each group's members</p>\n"
    }
}
