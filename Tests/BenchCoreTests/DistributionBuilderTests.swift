import Testing

@testable import BenchCore

@Suite struct DistributionBuilderTests {
    @Test func percentilesAreExactNearestRanks() throws {
        var builder = DistributionBuilder(metric: "rtt", under: 1)
        for value in (1...1000).reversed() { builder.record(UInt64(value)) }
        let summary = builder.summary()
        #expect((summary.p50, summary.p90, summary.p95, summary.p99, summary.p999) == (500, 900, 950, 990, 999))
        #expect((summary.min, summary.max, summary.mean) == (1, 1000, 500.5))
        #expect(abs(summary.standardDeviation! - 288.674990257210) < 1e-9)
    }

    @Test func percentUnderCountsLossesAgainstTheShare() {
        var builder = DistributionBuilder(metric: "delivery", under: 100)
        for value: UInt64 in [10, 50, 99, 100, 150] { builder.record(value) }
        builder.recordLost(5)
        let summary = builder.summary()
        #expect(summary.count == 5)
        #expect(summary.lost == 5)
        #expect(summary.percentUnder == 30, "3 of 10 sent are strictly under 100")
    }

    @Test func onlyLossesMeansNoValuesAndNothingUnder() {
        var builder = DistributionBuilder(metric: "spread", under: 100)
        builder.recordLost(4)
        let summary = builder.summary()
        #expect(summary.count == 0)
        #expect(summary.p50 == nil && summary.min == nil && summary.mean == nil)
        #expect(summary.percentUnder == 0)
    }

    @Test func nothingSentMeansNoShareAtAll() {
        #expect(DistributionBuilder(metric: "lag", under: 1).summary().percentUnder == nil)
    }

    @Test func timeStatisticsAreFoundByTheirThresholdNames() {
        var builder = DistributionBuilder(metric: "rtt", under: 1)
        for value in 1...100 { builder.record(UInt64(value)) }
        let summary = builder.summary()
        let names = ["p50", "p90", "p95", "p99", "p99.9", "min", "max", "mean", "lost", "p98"]
        #expect(names.map { summary.time(of: $0) } == [50, 90, 95, 99, 100, 1, 100, 50.5, nil, nil])
    }
}
