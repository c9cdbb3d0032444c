import BenchCore

extension HTMLRunReport {
    /// Chat with rooms of different sizes: delivery and spread by room size (``RoomSizesCSV``), smallest rooms first.
    static func roomSizesSection(_ results: RunResults) -> String {
        guard !results.roomSizes.isEmpty else { return "" }
        func time(_ text: String) -> String { UInt64(text).map { DurationText.display($0) } ?? "–" }
        var html = "<h2>by room size</h2>\n<table>\n<tr><th>members</th><th>rooms</th><th>deliveries</th><th>lost</th>"
            + "<th>delivery p50</th><th>delivery p99</th><th>spread p50</th><th>spread p99</th><th>spread max</th></tr>\n"
        for row in results.roomSizes where row.count == RoomSizesCSV.header.count {
            let cells = [
                MarkupText.escape(row[0]), row[1], row[2], row[3], time(row[4]), time(row[5]), time(row[9]), time(row[10]),
                time(row[11]),
            ]
            html += "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n<p class=\"meta\">each member's messages by the size of its room: a p99 the few "
            + "big rooms hold shows here, not in the run's own</p>\n"
    }
}
