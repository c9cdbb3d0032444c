import BenchCore
import Foundation
import FoundationXML
import Testing

@testable import BenchReports

/// summary.md, junit.xml, report.html and .hgrm of an interrupted roundtrip without thresholds, and the escaping
/// of text no real run produces.
@Suite struct RoundtripDerivedReportsTests {
    /// A roundtrip of 2 clients, interrupted, without thresholds: rtt (with 3 lost) and lag.
    private func results(metric: String = "rtt", thresholds: [ThresholdResult] = []) -> RunResults {
        var rtt = DistributionBuilder(metric: metric, under: 1_000_000)
        var lag = DistributionBuilder(metric: "lag", under: 1_000_000)
        for index in 0..<400 as Range<UInt64> {
            rtt.record(20_000 + index * index * 7)  // skewed: a long tail, many values per low bucket
            lag.record(1_000 + index % 17 * 100)
        }
        rtt.recordLost(3)
        return RunResults(
            settings: [
                ("scenario", "roundtrip"), ("status", "interrupted"), ("status_reason", "SIGINT"), ("clients", "2"),
                ("count", "250"), ("interval", "1ms"), ("arrival", "poisson"), ("payload_bytes", "64"), ("seed", "7"),
                ("under_ns", "1000000"), ("start_utc", "2026-11-22T16:16:34Z"), ("messages_measured", "403"),
                ("messages_lost", "3"),
            ],
            summaries: [rtt.summary(), lag.summary()],
            histograms: [rtt.histogram, lag.histogram],
            broadcasts: [],
            thresholds: thresholds
        )
    }

    /// A summary's Markdown row, built from the summary itself.
    private func markdownRow(_ summary: DistributionSummary) throws -> String {
        let times = try [summary.p50, summary.p90, summary.p99, summary.p999, summary.max].map { value in
            DisplayDuration.text(nanoseconds: try #require(value))
        }
        let percent = DecimalText.fixed(try #require(summary.percentUnder), fractionDigits: 2) + "%"
        let cells = [summary.metric.replacingOccurrences(of: "|", with: "\\|"), "\(summary.count)", "\(summary.lost)"]
            + times + [percent]
        return "| " + cells.joined(separator: " | ") + " |"
    }

    @Test func theMarkdownNamesTheRunAndHasOneRowPerSummaryAndNoVerdicts() throws {
        let results = results()
        let text = MarkdownSummary.render(results)
        #expect(text.hasPrefix("### bench roundtrip: interrupted\n"))
        #expect(text.contains("2 clients · 250 messages per client · every 1ms (poisson) · 64 B · seed 7"))
        #expect(text.contains("Status: SIGINT"))
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| metric") }
        #expect(rows.map(String.init) == (try results.summaries.map(markdownRow)))
        #expect(!text.contains("✅") && !text.contains("❌"))
    }

    @Test func aPipeInATableCellIsEscaped() throws {
        let results = results(metric: "rtt|echo")
        let text = MarkdownSummary.render(results)
        #expect(text.contains(try markdownRow(results.summaries[0])))
        #expect(text.contains("| rtt\\|echo | 400 | 3 |"))
    }

    @Test func withoutThresholdsAnInterruptedRunIsAnErrorInItsOneTestCase() throws {
        let document = try XMLDocument(xmlString: JUnitXML.render(results()))
        #expect(try document.nodes(forXPath: "/testsuites/testsuite/@name").first?.stringValue == "bench roundtrip")
        #expect(try document.nodes(forXPath: "//testsuite/@tests").first?.stringValue == "1")
        #expect(try document.nodes(forXPath: "//testsuite/@failures").first?.stringValue == "0")
        #expect(try document.nodes(forXPath: "//testsuite/@errors").first?.stringValue == "1")
        #expect(try document.nodes(forXPath: "//testcase/@classname").first?.stringValue == "bench.roundtrip")
        #expect(try document.nodes(forXPath: "//testcase/@name").first?.stringValue == "run completed")
        let messages = try document.nodes(forXPath: "//error/@message").compactMap(\.stringValue)
        #expect(messages == ["the run ended interrupted: SIGINT; 403 of 500 messages sent, 3 lost"])
    }

    @Test func anInterruptedRunIsAnErrorInJUnitEvenWhenItsThresholdsHeld() throws {
        let held = ThresholdResult(
            expression: "rtt.p50<1ms", metric: "rtt", statistic: "p50", comparison: "<", limitText: "1ms",
            measuredText: "20us", held: true)
        let document = try XMLDocument(xmlString: JUnitXML.render(results(thresholds: [held])))
        #expect(try document.nodes(forXPath: "//testcase/@name").compactMap(\.stringValue) == ["run completed", "rtt.p50<1ms"])
        #expect(try document.nodes(forXPath: "//testsuite/@errors").first?.stringValue == "1")
        let messages = try document.nodes(forXPath: "//error/@message").compactMap(\.stringValue)
        #expect(messages == ["the run ended interrupted: SIGINT; 403 of 500 messages sent, 3 lost"])
    }

    @Test func junitDropsControlCharactersAndEscapesApostrophes() throws {
        let expression = "rtt.p50<1ms\u{01} && 'x'\u{1B}"
        let threshold = ThresholdResult(
            expression: expression, metric: "rtt", statistic: "p50", comparison: "<", limitText: "1ms",
            measuredText: "2ms", held: false)
        let xml = JUnitXML.render(results(thresholds: [threshold]))
        #expect(!xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(xml.contains("&#39;x&#39;"))
        let document = try XMLDocument(xmlString: xml)
        #expect(try document.nodes(forXPath: "//testcase/@name").last?.stringValue == "rtt.p50<1ms && 'x'")
        let messages = try document.nodes(forXPath: "//failure/@message").compactMap(\.stringValue)
        #expect(messages.last == "threshold breached: rtt.p50<1ms && 'x' (measured 2ms, limit 1ms)")
    }

    @Test func theHgrmMedianRowIsTheTopOfTheBucketHoldingTheMedian() throws {
        let histogram = results().histograms[0]
        let rows = PercentileDistributionText.render(histogram).split(separator: "\n")
            .dropFirst().filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
        let median = try #require(rows.first { $0[1] == "0.500000000000" })
        let exact = Double(try #require(histogram.value(atPercentile: 50))) / 1_000
        let shown = try #require(Double(median[0]))
        // HdrHistogram prints a bucket's highest equivalent value; value(atPercentile:) gives its midpoint.
        #expect(shown >= exact && shown <= exact * (1 + 1.0 / 1024), "\(shown) µs vs \(exact) µs")
        let percentiles = rows.map { Double($0[1])! }
        #expect(zip(percentiles, percentiles.dropFirst()).allSatisfy { $0 < $1 }, "no level printed twice")
        let last = try #require(rows.last)
        #expect(last.count == 3, "no 1/(1-Percentile) on the 100% row")
        #expect(Array(last[1...]) == ["1.000000000000", "\(histogram.count)"])
        #expect(last[0] == Substring(DecimalText.microseconds(fromNanoseconds: try #require(histogram.max))))
    }

    @Test func aRoundtripReportPlotsEachMetricAndHasNoSpreadPlot() throws {
        let html = HTMLRunReport.render(results())
        #expect(html.components(separatedBy: "<svg").count - 1 == 4, "rtt's and lag's percentile plot and histogram")
        #expect(html.contains("--under 1ms"))
        #expect(!html.contains("spread per broadcast"))
        #expect(!html.contains("<script"))
        let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!withoutNamespace.contains("http://") && !withoutNamespace.contains("https://"))
        _ = try XMLDocument(xmlString: html.replacingOccurrences(of: "<!DOCTYPE html>\n", with: ""))
    }
}
