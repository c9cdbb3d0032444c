import BenchCore
import BenchScenarios

/// `report.html`: one self-contained page (inline CSS and SVG, no scripts, nothing fetched) with the settings,
/// the summary, the thresholds, each metric's percentile distribution (HdrHistogram's plot: latency on a log axis
/// over 1/(1−p) on a log axis, with the `--under` line) and histogram on the same latency range, for fanout the
/// spread of each broadcast over the run, and for chat each message's and, with rooms of different sizes, each size's.
public enum HTMLRunReport {
    public static let fileName = "report.html"

    public static func render(_ results: RunResults) -> String {
        let scenario = results.setting("scenario") ?? "run"
        let under = results.setting("under_ns").flatMap { Double($0) } ?? 200_000_000
        let name = runName(results)
        var body = "<h1>\(MarkupText.escape(name)): \(MarkupText.escape(results.setting("status") ?? ""))</h1>\n"
        body += "<p class=\"meta\">\(MarkupText.escape(headline(results)))</p>\n"
        if let detail = results.statusDetail { body += "<p class=\"meta\">\(MarkupText.escape(detail))</p>\n" }
        for note in [
            RunNotes.harness(results), RunNotes.machine(results), RunNotes.backpressure(results), RunNotes.losses(results), RunNotes.outages(results), RunNotes.listenOverflows(results), RunNotes.linkLateness(results), RunNotes.closedEarly(results),
            RunNotes.synRetries(results),
        ].compactMap({ $0 }) {
            body += "<p class=\"note\">\(MarkupText.escape(note))</p>\n"
        }
        body += summaryTable(results, under: under)
        body += roomSizesSection(results)
        body += linkGroupsSection(results)
        if !results.thresholds.isEmpty { body += thresholdList(results.thresholds) }
        for (summary, histogram) in zip(results.summaries, results.histograms) {
            let noun = countNoun(metric: summary.metric, scenario: scenario)
            body += "<h2>\(MarkupText.escape(summary.metric))</h2>\n"
            guard let minimum = summary.min ?? histogram.min, let maximum = summary.max ?? histogram.max else {
                body += "<p class=\"meta\">nothing measured (\(summary.lost) \(MarkupText.escape(noun)) lost)</p>\n"
                continue
            }
            let axis = LatencyAxis(minimum: minimum, maximum: maximum, under: under)
            body += "<div class=\"row\">\n"
            var caption = "latency at each percentile (log scales); dots: the exact min, p50, p90, p95, p99, p99.9"
            if summary.lost > 0 { caption += "; \(summary.lost) lost \(noun) not included" }
            body += figure(percentilePlot(summary, histogram, axis: axis), caption: caption)
            body += figure(bars(histogram, axis: axis, noun: noun), caption: "\(noun) per bin (8 bins per doubling)")
            body += "</div>\n"
        }
        if scenario != "roundtrip" && !results.broadcasts.isEmpty {
            body += "<h2>spread per \(scenario == "chat" ? "message" : "broadcast")</h2>\n"
            body += figure(
                overTime(results.broadcasts.map { (Double($0.start) / 1e9, $0.spread) }, yLabel: "spread"),
                caption: scenario == "chat"
                    ? "each message's spread at its write; red crosses: incomplete messages (no spread)"
                    : "each broadcast's spread at its start; red crosses: incomplete broadcasts (no spread)")
        }
        if let roundTrips = results.roundTripsOverTime, !roundTrips.buckets.isEmpty {
            body += "<h2>rtt over time</h2>\n"
            body += figure(
                overTime(roundTrips.buckets.map { (Double($0.start) / 1e9, $0.worst) }, yLabel: "rtt (worst)"),
                caption: "the worst rtt of each slice of the run (at most \(OverTime.maximumBuckets)), by send time; "
                    + "red crosses: slices where every message was lost")
        }
        body += timelineSection(results)
        body += settingsSection(results)
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>\(MarkupText.escape(name)) report</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; color: #1d2733; background: #fff; margin: 24px auto; max-width: 1180px; }
            h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 24px 0 6px; }
            .meta { color: #566; margin: 0 0 16px; } .note { color: #9a4a00; margin: -8px 0 12px; }
            details summary { cursor: pointer; color: #566; margin: 10px 0 6px; }
            table { border-collapse: collapse; } td, th { padding: 3px 10px; border-bottom: 1px solid #dde3ea; }
            th { text-align: left; background: #f3f6f9; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
            .row { display: flex; flex-wrap: wrap; gap: 12px; } figure { margin: 0; }
            figcaption { color: #566; font-size: 12px; max-width: 560px; }
            .held { color: #17803d; } .breached { color: #c0262d; font-weight: 600; }
            .inconclusive { color: #a15c00; font-weight: 600; }
            svg .area { fill: #fbfcfd; stroke: #c9d2dc; } svg .grid { stroke: #e7ecf1; }
            svg .tick { font-size: 11px; fill: #566; } svg .label { font-size: 12px; fill: #334; }
            svg .curve { fill: none; stroke: #1f6fb2; stroke-width: 2; } svg .bar { fill: #6aa3d5; }
            svg .under { stroke: #c0262d; stroke-dasharray: 5 4; stroke-width: 1.5; }
            svg .under-label, svg .under-note { font-size: 11px; fill: #c0262d; stroke: #fff; stroke-width: 3px; paint-order: stroke; }
            svg .dot { fill: #1f6fb2; } svg .exact { fill: #fff; stroke: #1f6fb2; stroke-width: 1.5; }
            svg .lost { stroke: #c0262d; stroke-width: 1.5; fill: none; }
            svg .p50 { fill: none; stroke: #1f6fb2; stroke-width: 2; } svg .p99 { fill: none; stroke: #e08a1e; stroke-width: 2; }
            svg .max { fill: none; stroke: #c0262d; stroke-width: 1.5; stroke-dasharray: 4 3; }
            </style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    /// The run's name, for the page title and heading: `bench fanout 2026-11-23 12:53:43 UTC`.
    static func runName(_ results: RunResults) -> String {
        var name = "bench " + (results.setting("scenario") ?? "run")
        if let start = results.setting("start_utc"), !start.isEmpty {
            name += " " + start.replacingAll("T", with: " ").replacingAll("Z", with: " UTC")
        }
        return name
    }

    /// What one value of `metric` counts: a message, a broadcast (spread, completion and fanout's lag have one
    /// value per broadcast), a client (connect and its phases) or a client's outage (reconnect).
    static func countNoun(metric: String, scenario: String) -> String {
        if RunAnalysis.Metric(rawValue: metric)?.isConnectPhase == true { return "clients" }
        switch metric {
        case "spread", "completion": return scenario == "chat" ? "messages" : "broadcasts"
        case "delivery" where scenario == "chat": return "deliveries"
        case "lag": return scenario == "fanout" ? "broadcasts" : "messages"
        case "connect": return "clients"
        case "reconnect": return "outages"
        default: return "messages"
        }
    }

    private static func plural(_ count: String, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == "1" ? singular : plural)"
    }

    static func headline(_ results: RunResults) -> String {
        let setting = { (key: String) in results.setting(key) ?? "-" }
        let chat = results.setting("scenario") == "chat"
        let messages = results.durationText ?? results.setting("messages").map { plural($0, "broadcast", "broadcasts") }
            ?? results.setting("count").map { plural($0, "message", "messages") + (chat ? " per member" : " per client") } ?? ""
        let rooms = chat ? " in \(plural(setting("rooms"), "room", "rooms")) (\(setting("room_sizes")))" : ""
        let closedLoop = results.setting("arrival") == "closed-loop" || results.setting("interval_ns") == "0"
        let pace = closedLoop ? "closed loop" : "every \(setting("interval")) (\(setting("arrival")))"
        let target = results.setting("target").flatMap { $0.isEmpty ? nil : $0 }
        let server = target.map { "through \($0)" }
            ?? (chat ? "through the built-in relay" : results.setting("transport").map { "over \($0)" })
        let clientCPUs = results.setting("client_cpus").flatMap { $0.isEmpty ? nil : "clients CPU \($0)" }
        let serverCPUs = target == nil ? "\(chat ? "relay" : "server") CPU \(setting("server_cpus"))" : nil
        let who = "\(plural(setting("clients"), "client", "clients"))\(rooms) · \(messages) · \(pace)"
        let run: [String] = [server, who].compactMap { $0 }
        let cpus: [String] = [serverCPUs, clientCPUs].compactMap { $0 }
        let rest = " · \(setting("payload_bytes")) B · seed \(setting("seed")) · \(setting("start_utc"))"
        return run.joined(separator: " · ") + rest + (cpus.isEmpty ? "" : " · " + cpus.joined(separator: ", "))
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
            "<li class=\"\(result.verdict.rawValue)\">\(result.verdict.rawValue): "
                + "<code>\(MarkupText.escape(result.namedExpression))</code>"
                + (result.source == .check ? " (added by bench check)" : "") + ", "
                + MarkupText.escape(result.measurementText)
                + (result.inconclusive.isEmpty
                    ? "" : ": " + MarkupText.escape(result.inconclusiveText))
                + "</li>"
        }.joined(separator: "\n") + "\n</ul>\n"
    }

    static func settingsTable(_ settings: [(key: String, value: String)]) -> String {
        "<table>\n" + settings.map { "<tr><td>\(MarkupText.escape($0.key))</td><td>\(MarkupText.escape($0.value))</td></tr>" }
            .joined(separator: "\n") + "\n</table>\n"
    }

    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\n\(svg)\n<figcaption>\(MarkupText.escape(caption))</figcaption>\n</figure>\n"
    }

    /// One point of a percentile plot.
    struct PercentilePoint: Equatable {
        /// 0...100.
        let percentile: Double
        /// Nanoseconds.
        let value: UInt64
        /// From the summary (every value kept, nearest rank), not the histogram.
        let exact: Bool
    }

    /// The points of a metric's percentile plot: the summary's exact min, p50, p90, p95, p99 and p99.9, and between
    /// them the histogram's percentile distribution (the `.hgrm` rows, each its bucket's highest value), kept
    /// between its exact neighbours so the curve never runs backwards. The max comes last, at 100%.
    static func percentilePoints(_ summary: DistributionSummary, _ histogram: LatencyHistogram) -> [PercentilePoint] {
        guard let minimum = summary.min ?? histogram.min, let maximum = summary.max ?? histogram.max else { return [] }
        let exact: [PercentilePoint] = [
            (0.0, minimum), (50, summary.p50), (90, summary.p90), (95, summary.p95), (99, summary.p99),
            (99.9, summary.p999),
        ].compactMap { level, value in value.map { PercentilePoint(percentile: level, value: $0, exact: true) } }
        let between = histogram.percentileDistribution(ticksPerHalfDistance: 5).filter { step in
            step.percentile > 0 && step.percentile < 100
                && !exact.contains { abs($0.percentile - step.percentile) < 1e-9 }
        }.map { PercentilePoint(percentile: $0.percentile, value: $0.value, exact: false) }
        var points = (exact + between).sorted { $0.percentile < $1.percentile }
        for index in points.indices where !points[index].exact {
            let below = points[..<index].last { $0.exact }?.value ?? minimum
            let above = points[(index + 1)...].first { $0.exact }?.value ?? maximum
            let value = min(max(points[index].value, below), max(above, below))
            points[index] = PercentilePoint(percentile: points[index].percentile, value: value, exact: false)
        }
        return points + [PercentilePoint(percentile: 100, value: maximum, exact: true)]
    }

    /// Latency (log, y) at each percentile (log of 1/(1−p), x), as HdrHistogram's plotter draws it, with the
    /// `--under` line.
    private static func percentilePlot(
        _ summary: DistributionSummary, _ histogram: LatencyHistogram, axis: LatencyAxis
    ) -> String {
        let count = max(summary.count, Int(histogram.count))
        let end = PercentileAxis.end(count: count)
        var plot = SVGPlot(
            x: .logarithmic(1...end), y: .logarithmic(axis.range), xLabel: "percentile", yLabel: "latency",
            xTicks: PercentileAxis.ticks(upTo: end), yTicks: axis.ticks)
        let points = percentilePoints(summary, histogram)
        // The max holds for every percentile past the last one the count resolves: a flat line to the edge.
        var curve = points.dropLast().map { (PercentileAxis.position($0.percentile), Double($0.value)) }
            .filter { $0.0 <= end }
        if let maximum = points.last { curve.append((end, Double(maximum.value))) }
        plot.line(curve, cssClass: "curve")
        plot.points(points.dropLast().filter(\.exact).compactMap { point in
            let position = PercentileAxis.position(point.percentile)
            guard position <= end else { return nil }
            let name = point.percentile == 0 ? "min" : "p" + DecimalText.fixed(point.percentile, fractionDigits: 1)
                .replacingAll(".0", with: "")
            return (position, Double(point.value), "\(name) = \(DisplayDuration.text(nanoseconds: point.value))")
        } + (points.last.map { [(end, Double($0.value), "max = \(DisplayDuration.text(nanoseconds: $0.value))")] } ?? []),
            cssClass: "exact", radius: 3)
        if let note = axis.underNote {
            plot.note(note.replacingAll("→", with: "↑").replacingAll("←", with: "↓"),
                at: axis.underPlacement == .beyondHigh ? .topLeft : .bottomRight, cssClass: "under-note")
        } else {
            // The curve rises from the left: its left end is below the line unless every value is over --under, and
            // then the label goes below the line, clear of the curve.
            let everyValueOver = Double(points.first?.value ?? 0) > axis.under
            plot.horizontalLine(at: axis.under, label: axis.underLabel, cssClass: "under", labelBelow: everyValueOver)
        }
        return plot.svg
    }

    private static func bars(_ histogram: LatencyHistogram, axis: LatencyAxis, noun: String) -> String {
        let bins = histogram.bins(coarseSubBucketBits: 4)
        let tallest = Double(bins.map(\.count).max() ?? 1)
        var plot = SVGPlot(
            x: .logarithmic(axis.range), y: .linear(0...max(tallest * 1.1, 1)), xLabel: "latency", yLabel: noun,
            xTicks: axis.ticks, yTicks: AxisTicks.counts(upTo: max(tallest * 1.1, 1)))
        for bin in bins where bin.count > 0 {
            plot.bar(from: Double(bin.low), to: Double(bin.high), height: Double(bin.count), cssClass: "bar")
        }
        if let note = axis.underNote {
            plot.note(note, at: axis.underPlacement == .beyondHigh ? .topRight : .topLeft, cssClass: "under-note")
        } else {
            plot.verticalLine(at: axis.under, label: axis.underLabel, cssClass: "under")
        }
        return plot.svg
    }

    /// Values (nil: lost) at times in seconds since the start: each broadcast's spread, each slice's worst rtt.
    private static func overTime(_ points: [(second: Double, value: UInt64?)], yLabel: String) -> String {
        let seconds = points.map(\.second)
        let lastSecond = max(seconds.max() ?? 1, 0.001)
        let highest = Double(points.compactMap(\.value).max() ?? 1)
        let top = max(highest * 1.1, 1)
        let unit = LatencyUnit.fitting(upTo: top)
        var plot = SVGPlot(
            x: .linear(0...lastSecond), y: .linear(0...top), xLabel: "time since start (s)",
            yLabel: yLabel,
            xTicks: AxisTicks.linear(upTo: lastSecond) { DecimalText.fixed($0, fractionDigits: $0 < 10 ? 1 : 0) },
            yTicks: AxisTicks.linear(upTo: top) { unit.text(nanoseconds: $0) })
        plot.points(points.compactMap { point in point.value.map { (point.second, Double($0)) } }, cssClass: "dot")
        plot.points(points.filter { $0.value == nil }.map { ($0.second, highest * 1.05) }, cssClass: "lost", cross: true)
        return plot.svg
    }
}
