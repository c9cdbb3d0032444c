import BenchClients
import BenchCore
import BenchScenarios

extension HTMLRunReport {
    /// The main metric (delivery in fanout and chat, rtt in roundtrip) per report interval: p50, p99 and max over the run's
    /// time, so that drift over a long run shows. Nothing for a run of a single interval.
    static func timelineSection(_ results: RunResults) -> String {
        let scenario = results.setting("scenario").flatMap(Scenario.init(rawValue:)) ?? .fanout
        let metric = RunAnalysis.Metric.main(of: scenario).rawValue
        let rows = results.timeline.filter { $0.metric == metric && $0.count > 0 }
        guard rows.count >= 2 else { return "" }
        let seconds = rows.map { Double($0.start + $0.end) / 2e9 }
        let lastSecond = max(Double(rows.last!.end) / 1e9, 0.001)
        let top = max(Double(rows.compactMap(\.max).max() ?? 1) * 1.25, 1)  // room for the legend above the max
        let unit = LatencyUnit.fitting(upTo: top)
        var plot = SVGPlot(
            x: .linear(0...lastSecond), y: .linear(0...top), xLabel: "time since start (s)", yLabel: metric,
            xTicks: AxisTicks.linear(upTo: lastSecond) { DecimalText.fixed($0, fractionDigits: $0 < 10 ? 1 : 0) },
            yTicks: AxisTicks.linear(upTo: top) { unit.text(nanoseconds: $0) })
        let statistics: [(String, (TimelineRow) -> UInt64?)] = [("max", { $0.max }), ("p99", { $0.p99 }), ("p50", { $0.p50 })]
        for (statistic, value) in statistics {
            let points = zip(seconds, rows).compactMap { second, row in value(row).map { (second, Double($0)) } }
            plot.line(points, cssClass: statistic)
        }
        plot.legend([("p50", "p50"), ("p99", "p99"), ("max", "max")])
        let lost = rows.reduce(0) { $0 + $1.lost }
        return "<h2>\(metric) over time</h2>\n"
            + figure(
                plot.svg,
                caption: "per report interval (\(rows.count) of them): p50 (blue), p99 (orange), max (red, dashed), "
                    + "from each interval's histogram" + (lost > 0 ? "; \(lost) lost in all" : ""))
    }
}
