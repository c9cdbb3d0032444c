import BenchCore

/// `report.html`: one self-contained page (inline CSS and SVG, no scripts, nothing fetched) with the settings,
/// the summary, the thresholds, each metric's latency CDF (log axis, with the `--under` line) and histogram, and
/// for fanout the spread of each broadcast over the run.
public enum HTMLRunReport {
    public static let fileName = "report.html"

    public static func render(_ results: RunResults) -> String {
        let scenario = results.setting("scenario") ?? "run"
        let under = results.setting("under_ns").flatMap { Double($0) } ?? 200_000_000
        var body = "<h1>bench \(MarkupText.escape(scenario)): \(MarkupText.escape(results.setting("status") ?? ""))</h1>\n"
        body += "<p class=\"meta\">\(MarkupText.escape(headline(results)))</p>\n"
        body += summaryTable(results, under: under)
        if !results.thresholds.isEmpty { body += thresholdList(results.thresholds) }
        for (summary, histogram) in zip(results.summaries, results.histograms) where summary.metric != "lag" {
            body += "<h2>\(MarkupText.escape(summary.metric))</h2>\n<div class=\"row\">\n"
            body += figure(cdf(summary, histogram, under: under), caption: "share of all sent at or below a latency")
            body += figure(bars(histogram), caption: "messages per bin (8 bins per doubling)")
            body += "</div>\n"
        }
        if scenario == "fanout" && !results.broadcasts.isEmpty {
            body += "<h2>spread per broadcast</h2>\n"
            body += figure(spreadOverTime(results.broadcasts, under: under),
                caption: "each broadcast's spread at its start; red crosses: incomplete broadcasts (no spread)")
        }
        body += "<h2>settings</h2>\n" + settingsTable(results.settings)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>bench \(MarkupText.escape(scenario)) report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; color: #1d2733; background: #fff; margin: 24px auto; max-width: 1180px; }
            h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 6px; }
            .meta { color: #566; margin: 0 0 16px; }
            table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #dde3ea; }
            th { text-align: left; background: #f3f6f9; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
            .row { display: flex; flex-wrap: wrap; gap: 12px; } figure { margin: 0; }
            figcaption { color: #566; font-size: 12px; }
            .held { color: #17803d; } .breached { color: #c0262d; font-weight: 600; }
            svg .area { fill: #fbfcfd; stroke: #c9d2dc; } svg .grid { stroke: #e7ecf1; }
            svg .tick { font-size: 11px; fill: #566; } svg .label { font-size: 12px; fill: #334; }
            svg .curve { fill: none; stroke: #1f6fb2; stroke-width: 2; } svg .bar { fill: #6aa3d5; }
            svg .under { stroke: #c0262d; stroke-dasharray: 5 4; stroke-width: 1.5; }
            svg .under-label { font-size: 11px; fill: #c0262d; }
            svg .dot { fill: #1f6fb2; } svg .lost { stroke: #c0262d; stroke-width: 1.5; fill: none; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    private static func headline(_ results: RunResults) -> String {
        let setting = { (key: String) in results.setting(key) ?? "-" }
        let messages = results.setting("messages").map { "\($0) broadcasts" }
            ?? results.setting("count").map { "\($0) messages per client" } ?? ""
        return "\(setting("clients")) clients · \(messages) · every \(setting("interval")) (\(setting("arrival")))"
            + " · \(setting("payload_bytes")) B · seed \(setting("seed")) · \(setting("start_utc"))"
            + " · server CPU \(setting("server_cpus")), clients CPU \(setting("client_cpus"))"
    }

    private static func summaryTable(_ results: RunResults, under: Double) -> String {
        var html = "<table>\n<tr>" + SummaryRow.header(under: UInt64(roundingClamped: under)).map { "<th>\(MarkupText.escape($0))</th>" }
            .joined() + "</tr>\n"
        for summary in results.summaries {
            let cells = SummaryRow.cells(summary)
            html += "<tr><td>\(MarkupText.escape(cells[0]))</td>"
                + cells.dropFirst().map { "<td class=\"n\">\(MarkupText.escape($0))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }

    private static func thresholdList(_ thresholds: [ThresholdResult]) -> String {
        "<h2>thresholds</h2>\n<ul>\n" + thresholds.map { result in
            "<li class=\"\(result.held ? "held" : "breached")\">\(result.held ? "held" : "breached"): "
                + "<code>\(MarkupText.escape(result.expression))</code>"
                + (result.source == .check ? " (added by bench check)" : "") + ", measured "
                + "\(MarkupText.escape(result.measuredText ?? "nothing")), limit \(MarkupText.escape(result.limitText))</li>"
        }.joined(separator: "\n") + "\n</ul>\n"
    }

    private static func settingsTable(_ settings: [(key: String, value: String)]) -> String {
        "<table>\n" + settings.map { "<tr><td>\(MarkupText.escape($0.key))</td><td>\(MarkupText.escape($0.value))</td></tr>" }
            .joined(separator: "\n") + "\n</table>\n"
    }

    private static func figure(_ svg: String, caption: String) -> String {
        "<figure>\n\(svg)\n<figcaption>\(MarkupText.escape(caption))</figcaption>\n</figure>\n"
    }

    /// The x range of a latency plot: the data's, widened to whole decades and to include `under`.
    private static func latencyRange(_ histogram: LatencyHistogram, under: Double) -> ClosedRange<Double> {
        var low = 1.0
        while low * 10 <= Double(max(histogram.min ?? 1, 1)) { low *= 10 }
        var high = low * 10
        while high < max(Double(histogram.max ?? 1), under) { high *= 10 }
        return low...high
    }

    private static func cdf(_ summary: DistributionSummary, _ histogram: LatencyHistogram, under: Double) -> String {
        let range = latencyRange(histogram, under: under)
        var plot = SVGPlot(
            x: .logarithmic(range), y: .linear(0...100), xLabel: "latency", yLabel: "% of sent",
            xTicks: AxisTicks.latency(range), yTicks: AxisTicks.linear(upTo: 100) { "\(Int($0))%" })
        let total = Double(summary.count + summary.lost)
        var cumulative = 0.0
        var points: [(Double, Double)] = []
        for bin in histogram.bins(coarseSubBucketBits: 7) where total > 0 {
            if points.isEmpty { points.append((Double(bin.low), 0)) }
            cumulative += Double(bin.count)
            points.append((Double(bin.high), 100 * cumulative / total))
        }
        plot.line(points, cssClass: "curve")
        plot.verticalLine(at: under, label: "--under " + AxisTicks.label(nanoseconds: under), cssClass: "under")
        return plot.svg
    }

    private static func bars(_ histogram: LatencyHistogram) -> String {
        let bins = histogram.bins(coarseSubBucketBits: 4)
        let range = latencyRange(histogram, under: Double(histogram.max ?? 1))
        let tallest = Double(bins.map(\.count).max() ?? 1)
        var plot = SVGPlot(
            x: .logarithmic(range), y: .linear(0...max(tallest, 1)), xLabel: "latency", yLabel: "messages",
            xTicks: AxisTicks.latency(range), yTicks: AxisTicks.linear(upTo: tallest) { "\(Int($0))" })
        for bin in bins where bin.count > 0 {
            plot.bar(from: Double(bin.low), to: Double(bin.high), height: Double(bin.count), cssClass: "bar")
        }
        return plot.svg
    }

    private static func spreadOverTime(_ broadcasts: [RunResults.Broadcast], under: Double) -> String {
        let seconds = broadcasts.map { Double($0.start) / 1e9 }
        let lastSecond = max(seconds.max() ?? 1, 0.001)
        let highest = Double(broadcasts.compactMap(\.spread).max() ?? 1)
        var plot = SVGPlot(
            x: .linear(0...lastSecond), y: .linear(0...max(highest * 1.1, 1)), xLabel: "time since start (s)",
            yLabel: "spread",
            xTicks: AxisTicks.linear(upTo: lastSecond) { DecimalText.fixed($0, fractionDigits: $0 < 10 ? 1 : 0) },
            yTicks: AxisTicks.linear(upTo: highest * 1.1) { DisplayDuration.text(nanoseconds: UInt64(roundingClamped: $0)) })
        plot.points(zip(broadcasts, seconds).compactMap { broadcast, second in
            broadcast.spread.map { (second, Double($0)) }
        }, cssClass: "dot")
        plot.points(zip(broadcasts, seconds).filter { $0.0.spread == nil }.map { ($0.1, highest * 1.05) },
            cssClass: "lost", cross: true)
        return plot.svg
    }
}
