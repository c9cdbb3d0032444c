import BenchCore
import Foundation
import FoundationXML
import Testing

@testable import BenchReports

/// summary.md, junit.xml, report.html and .hgrm from hand-made results.
@Suite struct DerivedReportsTests {
    /// A fanout of 3 broadcasts (one incomplete) with a held and a breached threshold.
    private func results(thresholds: Bool = true) -> RunResults {
        var delivery = DistributionBuilder(metric: "delivery", under: 200_000)
        var spread = DistributionBuilder(metric: "spread", under: 200_000)
        for value in stride(from: 10_000, through: 1_000_000, by: 10_000) { delivery.record(UInt64(value)) }
        delivery.recordLost(2)
        spread.record(50_000)
        spread.record(150_000)
        spread.recordLost()
        let expression = "spread.p99<100us & \"<quoted>\""
        let checked = [
            ThresholdResult(
                expression: "delivery.lost<=2", metric: "delivery", statistic: "lost", comparison: "<=", limitText: "2",
                measuredText: "2", held: true),
            ThresholdResult(
                expression: expression, metric: "spread", statistic: "p99", comparison: "<", limitText: "100us",
                measuredText: "150us", held: false),
        ]
        return RunResults(
            settings: [
                ("scenario", "fanout"), ("status", "complete"), ("clients", "3"), ("messages", "3"),
                ("interval", "10ms"), ("arrival", "fixed"), ("payload_bytes", "64"), ("seed", "1"),
                ("under_ns", "200000"), ("command_line", "bench fanout | <script>"),
            ],
            summaries: [delivery.summary(), spread.summary()],
            histograms: [delivery.histogram, spread.histogram],
            broadcasts: [
                .init(index: 0, start: 1_000_000, spread: 50_000), .init(index: 1, start: 11_000_000, spread: 150_000),
                .init(index: 2, start: 21_000_000, spread: nil),
            ],
            thresholds: thresholds ? checked : []
        )
    }

    @Test func theMarkdownTableHasARowPerMetricAndTheVerdicts() {
        let text = MarkdownSummary.render(results())
        #expect(text.contains("| delivery | 100 | 2 | 500.0µs | 900.0µs | 990.0µs | 1.00ms | 1.00ms | 18.63% |"))
        #expect(text.contains("| spread | 2 | 1 | 50.0µs | 150.0µs | 150.0µs | 150.0µs | 150.0µs | 66.67% |"))
        #expect(text.contains("- ✅ `delivery.lost<=2`: measured 2, limit 2"))
        #expect(text.contains("- ❌ `spread.p99<100us & \"<quoted>\"`: measured 150us, limit 100us"))
    }

    @Test func junitIsValidXMLWithAFailurePerBreach() throws {
        let xml = JUnitXML.render(results())
        let document = try XMLDocument(xmlString: xml)
        #expect(try document.nodes(forXPath: "//testcase").count == 2)
        let failures = try document.nodes(forXPath: "//testcase/failure/@message").compactMap(\.stringValue)
        #expect(failures == ["threshold breached: spread.p99<100us & \"<quoted>\" (measured 150us, limit 100us)"])
        let names = try document.nodes(forXPath: "//testcase/@name").compactMap(\.stringValue)
        #expect(names == ["delivery.lost<=2", "spread.p99<100us & \"<quoted>\""])
        #expect(try document.nodes(forXPath: "/testsuites/@failures").first?.stringValue == "1")
    }

    @Test func withoutThresholdsJUnitSaysWhetherTheRunCompleted() throws {
        let document = try XMLDocument(xmlString: JUnitXML.render(results(thresholds: false)))
        #expect(try document.nodes(forXPath: "//testcase/@name").first?.stringValue == "run completed")
        #expect(try document.nodes(forXPath: "//failure").isEmpty)
        let interrupted = JUnitXML.render([JUnitXML.Suite(name: "x", status: "interrupted", thresholds: [])])
        // Not a measurement of the server: an error, not a failure.
        #expect(try XMLDocument(xmlString: interrupted).nodes(forXPath: "//error").count == 1)
        #expect(try XMLDocument(xmlString: interrupted).nodes(forXPath: "//failure").isEmpty)
    }

    @Test func hgrmFollowsHdrHistogramsPercentileDistribution() throws {
        let histogram = results().histograms[0]
        let text = PercentileDistributionText.render(histogram)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "       Value     Percentile TotalCount 1/(1-Percentile)")
        #expect(lines[1] == "")
        let rows = lines.dropFirst(2).filter { !$0.isEmpty && !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
        // A row's value is the highest its bucket holds, as in HdrHistogram: within 1/1024 above the true value.
        let first = try #require(rows.first)
        #expect((10.0...10.010).contains(Double(first[0])!))
        #expect(Array(first[1...]) == ["0.000000000000", "1", "1.00"])
        #expect(rows.last.map { Array($0) } == ["1000.000", "1.000000000000", "100"])
        let values = rows.map { Double($0[0])! }
        let percentiles = rows.map { Double($0[1])! }
        let counts = rows.map { Int($0[2])! }
        #expect(values == values.sorted() && percentiles == percentiles.sorted() && counts == counts.sorted())
        #expect(rows.count > 20, "five ticks per half distance")
        let median = try #require(rows.first { $0[1] == "0.500000000000" })
        #expect(abs(Double(median[0])! - 500) <= 500 * 0.001, "the 50% row holds the median (within a bucket)")
        #expect(text.contains("#[Mean    =      505.000, StdDeviation   =      288.661]"))
        #expect(text.contains("#[Max     =     1000.000, Total count    =          100]"))
        #expect(text.contains("#[Buckets =           34, SubBuckets     =         2048]"))
    }

    @Test func theHTMLReportIsSelfContainedWellFormedAndHasEveryPlot() throws {
        let html = HTMLRunReport.render(results())
        #expect(!html.contains("<script"), "no script, even from a setting's text")
        #expect(html.contains("bench fanout | &lt;script&gt;"))
        let withoutNamespace = html.replacingOccurrences(of: "xmlns=\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!withoutNamespace.contains("http://") && !withoutNamespace.contains("https://"), "nothing fetched")
        #expect(html.components(separatedBy: "<svg").count - 1 == 5, "CDF and histogram per metric, spread over time")
        #expect(html.contains("--under 200µs"))
        #expect(html.contains("breached: <code>spread.p99&lt;100us &amp; &quot;&lt;quoted&gt;&quot;</code>"))
        let body = html.replacingOccurrences(of: "<!DOCTYPE html>\n", with: "")
        _ = try XMLDocument(xmlString: body)  // well-formed: every element closed, every attribute quoted
    }

    @Test func reportsWrittenTwiceFromTheSameResultsAreIdentical() throws {
        let folder = NSTemporaryDirectory() + "bench-derived-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try DerivedReports.write(results(), into: folder)
        let first = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(first == ["delivery.hgrm", "junit.xml", "report.html", "spread.hgrm", "summary.md"])
        let before = try first.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
        try DerivedReports.write(results(), into: folder)
        let after = try first.map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
        #expect(before == after)
    }
}
