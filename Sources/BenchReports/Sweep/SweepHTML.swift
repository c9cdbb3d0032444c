import BenchCore

/// `sweep.html`: one self-contained page (inline SVG, no scripts) with the sweep's curves: for fanout, spread and
/// delivery p50, p99 and max against the swept setting, for roundtrip rtt; the `--under` line; and pct_under. The x axis
/// is logarithmic for client counts and sizes. With several swept settings the first is the x axis and each
/// combination of the others is its own plot.
enum SweepHTML {
    static func render(_ report: SweepReport) -> String {
        let rows = report.rows
        let metrics = report.scenario == "roundtrip" ? ["rtt"] : ["spread", "delivery"]
        var body = "<h1>bench \(MarkupText.escape(report.scenario)) sweep</h1>\n"
        body += "<p class=\"meta\">\(Set(report.steps.map(\.key)).count) steps"
            + (report.repeats > 1 ? ", \(report.repeats) repeats each (medians)" : "")
            + "; under = \(MarkupText.escape(DurationText.format(report.under)))</p>\n"
        for note in report.conditionNotes { body += "<p class=\"warning\">⚠️ \(MarkupText.escape(note))</p>\n" }
        guard let axis = report.steps.first?.settings.first?.column else {
            return page(body + "<p>Nothing was swept.</p>\n")
        }
        // Series: the other swept settings' values.
        var seriesOrder: [[String]] = []
        for row in rows where !seriesOrder.contains(Array(row.settings.dropFirst().map(\.value))) {
            seriesOrder.append(Array(row.settings.dropFirst().map(\.value)))
        }
        var categories: [String] = []
        for row in rows where Double(row.settings[0].value) == nil && !categories.contains(row.settings[0].value) {
            categories.append(row.settings[0].value)
        }
        for series in seriesOrder {
            let title = zip(report.steps[0].settings.dropFirst().map(\.column), series)
                .map { "\(label($0)): \(valueText($1, column: $0))" }.joined(separator: ", ")
            if !title.isEmpty { body += "<h2>\(MarkupText.escape(title))</h2>\n" }
            body += "<div class=\"row\">\n"
            for metric in metrics {
                // A setting that is not a number (transport) goes on an axis of evenly spaced categories.
                let points = rows.filter { $0.metric == metric && Array($0.settings.dropFirst().map(\.value)) == series }
                    .map { row -> (x: Double, values: [(median: Double, low: Double, high: Double)?]) in
                        (Double(row.settings[0].value) ?? Double((categories.firstIndex(of: row.settings[0].value) ?? 0) + 1),
                         row.values)
                    }
                guard !points.isEmpty else { continue }
                body += figure(latencyPlot(points, metric: metric, axis: axis, under: report.under, categories: categories),
                    caption: "\(metric): p50 (blue), p99 (orange), max (grey, dashed, so a p99 equal to it shows) "
                        + "against \(label(axis)); red dashed: under"
                        + (report.repeats > 1 ? "; bars: the range of the \(report.repeats) repeats" : ""))
                body += figure(percentPlot(points, axis: axis, categories: categories), caption: "\(metric): share of all sent under the threshold")
            }
            body += "</div>\n"
        }
        return page(body + stepTable(report, metrics: metrics))
    }

    /// Each step's figures, per metric: p50, p99, max and the share under the threshold (with repeats, the median
    /// and the repeats' range beside it), and a link to each of its runs' report.html.
    static func stepTable(_ report: SweepReport, metrics: [String]) -> String {
        let columns = report.steps.first?.settings.map(\.column) ?? []
        var html = "<h2>steps</h2>\n<table><tr>" + columns.map { "<th>\(MarkupText.escape(label($0)))</th>" }.joined()
            + "<th>metric</th><th>p50</th><th>p99</th><th>max</th><th>% under</th><th>report</th></tr>\n"
        func time(_ value: (median: Double, low: Double, high: Double)?) -> String {
            guard let value else { return "-" }
            let text = { (microseconds: Double) in DurationText.display(UInt64(roundingClamped: microseconds * 1000)) }
            return text(value.median) + (value.low < value.high ? " (\(text(value.low))–\(text(value.high)))" : "")
        }
        func percent(_ value: (median: Double, low: Double, high: Double)?) -> String {
            guard let value else { return "-" }
            let text = { (share: Double) in DecimalText.fixed(share, fractionDigits: 2) + "%" }
            return text(value.median) + (value.low < value.high ? " (\(text(value.low))–\(text(value.high)))" : "")
        }
        for row in report.rows where metrics.contains(row.metric) {
            let runs = report.steps.filter { $0.key == row.settings.map(\.value) }
            let links = runs.map { step in
                "<a href=\"\(MarkupText.escape(step.folder))/\(HTMLRunReport.fileName)\">"
                    + (runs.count > 1 ? "\(step.repeatIndex)" : "report") + "</a>"
            }.joined(separator: " ")
            html += "<tr>" + row.settings.map { "<td>\(MarkupText.escape(valueText($0.value, column: $0.column)))</td>" }
                .joined() + "<td>\(MarkupText.escape(row.metric))</td>"
                + [time(row.values[2]), time(row.values[4]), time(row.values[6]), percent(row.values[7])]
                    .map { "<td class=\"n\">\(MarkupText.escape($0))</td>" }.joined()
                + "<td>\(links)</td></tr>\n"
        }
        return html + "</table>\n"
    }

    private static func label(_ column: String) -> String {
        switch column {
        case "payload_bytes": "payload"
        case "interval_ns": "interval"
        default: column
        }
    }

    /// A setting's value as people write it: 1KiB, 10ms.
    private static func valueText(_ value: String, column: String) -> String {
        switch column {
        case "payload_bytes": Int(value).map { ByteSizeText.format($0) } ?? value
        case "interval_ns": UInt64(value).map { DurationText.format($0) } ?? value
        default: value
        }
    }

    private static func xScale(
        _ xs: [Double], axis: String, categories: [String]
    ) -> (SVGPlot.Scale, [(Double, String)]) {
        if !categories.isEmpty {
            let ticks = categories.enumerated().map { (Double($0.offset + 1), $0.element) }
            return (.linear(0.5...Double(categories.count) + 0.5), ticks)
        }
        let low = xs.min()!, high = xs.max()!
        let logarithmic = (axis == "clients" || axis == "payload_bytes") && low > 0 && high / low >= 4
        let range = low == high ? low * 0.5...high * 1.5 + 1 : low...high
        let ticks = xs.map { value -> (Double, String) in (value, valueText("\(UInt64(value))", column: axis)) }
        return (logarithmic ? .logarithmic(range) : .linear(range), ticks)
    }

    private static func latencyPlot(
        _ points: [(x: Double, values: [(median: Double, low: Double, high: Double)?])], metric: String, axis: String,
        under: UInt64, categories: [String]
    ) -> String {
        // Statistics' positions in SweepReport.statistics: p50 2, p99 4, max 6; values in µs.
        let series = [(2, "p50"), (4, "p99"), (6, "max")]
        var values = points.flatMap { point in series.compactMap { point.values[$0.0].map { $0.median * 1000 } } }
        values.append(Double(under))
        let low = max(1, values.min()! / 1.5)
        let high = max(low * 10, values.max()! * 1.5)
        let (x, xTicks) = xScale(points.map(\.x), axis: axis, categories: categories)
        var plot = SVGPlot(
            x: x, y: .logarithmic(low...high), xLabel: label(axis), yLabel: metric,
            xTicks: xTicks, yTicks: AxisTicks.latency(low...high))
        for (index, name) in series {
            let line = points.compactMap { point in point.values[index].map { (point.x, $0.median * 1000) } }
            plot.line(line, cssClass: name)
            plot.points(line, cssClass: name + "-dot")
            // The repeats' range of each step, as a bar through its median.
            for point in points {
                guard let value = point.values[index], value.low < value.high else { continue }
                plot.line([(point.x, value.low * 1000), (point.x, value.high * 1000)], cssClass: name + "-range")
            }
        }
        let xs = points.map(\.x)
        plot.line([(xs.min()!, Double(under)), (xs.max()!, Double(under))], cssClass: "under")
        return plot.svg
    }

    private static func percentPlot(
        _ points: [(x: Double, values: [(median: Double, low: Double, high: Double)?])], axis: String,
        categories: [String]
    ) -> String {
        let (x, xTicks) = xScale(points.map(\.x), axis: axis, categories: categories)
        var plot = SVGPlot(
            x: x, y: .linear(0...100), xLabel: label(axis), yLabel: "% under",
            xTicks: xTicks, yTicks: AxisTicks.linear(upTo: 100) { "\(Int($0))%" })
        let line = points.compactMap { point in point.values[7].map { (point.x, $0.median) } }
        plot.line(line, cssClass: "p50")
        plot.points(line, cssClass: "p50-dot")
        return plot.svg
    }

    private static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(svg)<figcaption>\(MarkupText.escape(caption))</figcaption></figure>\n"
    }

    private static func page(_ body: String) -> String {
        ReportPage.html(title: "bench sweep", style: """
            svg .p50 { fill: none; stroke: #1f6fb2; stroke-width: 2; } svg .p50-dot { fill: #1f6fb2; }
            svg .p99 { fill: none; stroke: #e07b20; stroke-width: 2; } svg .p99-dot { fill: #e07b20; }
            svg .max { fill: none; stroke: #8a949e; stroke-width: 1.5; stroke-dasharray: 6 4; } svg .max-dot { fill: #8a949e; }
            svg .p50-range { stroke: #1f6fb2; stroke-width: 1; } svg .p99-range { stroke: #e07b20; stroke-width: 1; }
            svg .max-range { stroke: #8a949e; stroke-width: 1; }
            .warning { color: #8a4b00; background: #fff6e5; padding: 4px 8px; }
            """, body: body)
    }
}
