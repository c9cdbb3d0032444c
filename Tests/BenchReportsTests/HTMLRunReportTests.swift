import BenchCore
import Foundation
import Testing

@testable import BenchReports

/// report.html: the percentile plot's points, the latency axes, and the words around them.
@Suite struct HTMLRunReportTests {
    /// A skewed metric: many values per low bucket and a long tail, so histogram and exact percentiles differ.
    private func metric(_ name: String, count: UInt64 = 5_000, under: UInt64 = 1_000_000) -> (DistributionSummary, LatencyHistogram) {
        var builder = DistributionBuilder(metric: name, under: under)
        for index in 0..<count { builder.record(20_000 + index * index * 7 / (count / 400) + index % 13) }
        builder.recordLost(2)
        return (builder.summary(), builder.histogram)
    }

    private func results(
        scenario: String = "roundtrip", clients: String = "1", interval: String = "2ms", under: UInt64 = 1_000_000,
        metrics: [String] = ["rtt", "lag"]
    ) -> RunResults {
        let measured = metrics.map { metric($0, under: under) }
        var settings: [(key: String, value: String)] = [
            ("scenario", scenario), ("status", "complete"), ("clients", clients),
            scenario == "fanout" ? ("messages", "1") : ("count", "1"),
            ("interval", interval), ("interval_ns", interval == "0s" ? "0" : "2000000"),
            ("arrival", interval == "0s" ? "closed-loop" : "poisson"), ("payload_bytes", "64"), ("seed", "7"),
            ("under_ns", "\(under)"), ("start_utc", "2026-11-22T16:16:34Z"),
        ]
        settings.append(("server_cpus", "0"))
        return RunResults(
            settings: settings, summaries: measured.map(\.0), histograms: measured.map(\.1), broadcasts: [],
            thresholds: [])
    }

    @Test func thePercentilePlotsPointsAtTheSummarysPercentilesAreItsExactValues() throws {
        let (summary, histogram) = metric("rtt")
        let points = HTMLRunReport.percentilePoints(summary, histogram)
        func value(at percentile: Double) -> UInt64? { points.first { $0.percentile == percentile }?.value }
        #expect(value(at: 0) == summary.min)
        #expect(value(at: 50) == summary.p50)
        #expect(value(at: 90) == summary.p90)
        #expect(value(at: 95) == summary.p95)
        #expect(value(at: 99) == summary.p99)
        #expect(value(at: 99.9) == summary.p999)
        #expect(value(at: 100) == summary.max)
        #expect(points.filter(\.exact).count == 7)
        // The histogram's percentile distribution (the .hgrm rows) fills the rest; the curve never runs backwards.
        let hgrmLevels = histogram.percentileDistribution(ticksPerHalfDistance: 5).map(\.percentile)
        #expect(points.filter { !$0.exact }.allSatisfy { point in hgrmLevels.contains(point.percentile) })
        #expect(points.filter { !$0.exact }.count > 20)
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.percentile < $1.percentile && $0.value <= $1.value })
        // The exact values are what the page shows at those points.
        let html = HTMLRunReport.render(results())
        #expect(html.contains("<title>p50 = \(DisplayDuration.text(nanoseconds: try #require(summary.p50)))</title>"))
        #expect(html.contains("<title>p99.9 = \(DisplayDuration.text(nanoseconds: try #require(summary.p999)))</title>"))
        #expect(html.contains(">99.9%</text>") && html.contains(">99.99%</text>"), "5000 values: up to 99.99%")
    }

    /// The `--under` label stays off the curve: above its line where the curve starts below it, below its line where
    /// every value is over it (the curve then runs above the line all the way).
    @Test(arguments: [(UInt64(1_000_000), "-4"), (10_000, "13")])
    func theUnderLabelSitsOnTheSideOfItsLineTheCurveIsNot(under: UInt64, offset: String) {
        let html = HTMLRunReport.render(results(under: under))
        let label = "dy=\"\(offset)\" text-anchor=\"start\" class=\"under-label\">--under "
        #expect(html.contains(label), "values from 20µs, under \(under) ns")
    }

    @Test func oneClientAndOneMessageAreSingular() {
        let html = HTMLRunReport.render(results())
        #expect(html.contains("1 client · 1 message per client · every 2ms (poisson)"))
        #expect(!html.contains("1 clients"))
        #expect(HTMLRunReport.render(results(scenario: "fanout", clients: "3")).contains("3 clients · 1 broadcast ·"))
    }

    @Test func aZeroIntervalIsClosedLoop() {
        let html = HTMLRunReport.render(results(interval: "0s"))
        #expect(html.contains("1 client · 1 message per client · closed loop ·"))
        #expect(!html.contains("every 0s"))
    }

    @Test func theTitleNamesTheScenarioAndTheStart() {
        let html = HTMLRunReport.render(results())
        #expect(html.contains("<title>bench roundtrip 2026-11-22 16:16:34 UTC report</title>"))
        #expect(html.contains("<h1>bench roundtrip 2026-11-22 16:16:34 UTC: complete</h1>"))
    }

    @Test func anUnderFarBeyondTheDataIsANoteAndDoesNotWidenTheAxis() throws {
        let html = HTMLRunReport.render(results(under: 200_000_000))
        #expect(html.contains("--under 200ms →"), "the histogram's note at its right edge")
        #expect(html.contains("--under 200ms ↑"), "the percentile plot's note (latency is its y axis)")
        let axis = LatencyAxis(minimum: 20_000, maximum: 1_000_000, under: 200_000_000)
        #expect(axis.range == 20_000...1_000_000)
        #expect(axis.underPlacement == .beyondHigh)
        let near = LatencyAxis(minimum: 20_000, maximum: 1_000_000, under: 2_000_000)
        #expect(near.underPlacement == .onAxis && near.range.contains(2_000_000) && near.underNote == nil)
    }

    /// Each tick reads in the largest unit it is at least 1 of, as the spread's axes do: `1ms`, never `1000µs` (the
    /// issue saw `1000000µs` on an axis whose range was chosen in µs).
    @Test func latencyTicksAreEachInTheirOwnUnit() {
        let micro = LatencyAxis(minimum: 12_000, maximum: 900_000, under: 0).ticks.map(\.1).filter { !$0.isEmpty }
        #expect(micro == ["10µs", "20µs", "50µs", "100µs", "200µs", "500µs", "1ms"])
        let milli = LatencyAxis(minimum: 150_000, maximum: 180_000_000, under: 0).ticks.map(\.1).filter { !$0.isEmpty }
        #expect(milli == ["100µs", "1ms", "10ms", "100ms"])
        let wide = LatencyAxis(minimum: 150_000, maximum: 180_000_000, under: 0)
        #expect(wide.ticks.first?.0 == 100_000)
    }

    @Test func broadcastMetricsCountBroadcastsAndEveryMetricIsPlotted() {
        let html = HTMLRunReport.render(results(scenario: "fanout", metrics: ["delivery", "spread", "completion", "lag", "connect"]))
        #expect(html.components(separatedBy: "<svg").count - 1 == 10)
        #expect(html.components(separatedBy: "broadcasts per bin").count - 1 == 3, "spread, completion, lag")
        #expect(html.contains("messages per bin") && html.contains("clients per bin"))
        #expect(HTMLRunReport.countNoun(metric: "lag", scenario: "roundtrip") == "messages")
        #expect(HTMLRunReport.countNoun(metric: "reconnect", scenario: "fanout") == "outages")
    }

    @Test func countTicksAreWholeNumbers() {
        #expect(AxisTicks.counts(upTo: 1.1).map(\.1) == ["0", "1"])
    }
}

@Suite struct PercentileAxisLabelTests {
    /// However many nines the axis reaches, no two labels overlap (by SVGPlot's own estimate of their width), and
    /// the median and the last one are always labelled.
    @Test(arguments: [100.0, 1e3, 1e5, 1e7, 1e9])
    func labelsNeverRunTogether(end: Double) {
        let ticks = PercentileAxis.ticks(upTo: end)
        let decades = portableLog2(end) / portableLog2(10)
        let labelled = ticks.filter { !$0.1.isEmpty }.map { tick in
            (pixels: portableLog2(tick.0) / portableLog2(10) / decades * 480, half: Double(tick.1.count) * 3.4)
        }
        for (a, b) in zip(labelled, labelled.dropFirst()) {
            #expect(b.pixels - a.pixels >= a.half + b.half, "\(ticks.map(\.1))")
        }
        #expect(ticks.contains { $0.1 == "50%" })
        #expect(ticks.last?.1.isEmpty == false, "\(ticks.map(\.1))")
    }

    @Test func aLatencyAxisLabelsEachTickInItsOwnUnit() {
        let axis = LatencyAxis(minimum: 800, maximum: 1_500_000_000, under: 200_000_000)
        let labels = axis.ticks.map(\.1).filter { !$0.isEmpty }
        #expect(labels.contains("1ms") && labels.contains("1s") && labels.contains("1µs"), "\(labels)")
        #expect(!labels.contains { $0.hasPrefix("1000") }, "\(labels)")
    }
}
