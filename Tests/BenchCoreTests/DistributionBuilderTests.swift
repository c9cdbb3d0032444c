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

    @Test func valuesPastFourSecondsKeepTheirPlaceAndEveryDigit() {
        // Below 2^32 ns a value is kept in 4 bytes, above in 8: the order across the two, the ranks and the sums are
        // those of the values themselves, derived here from one sorted list.
        let values: [UInt64] = (0..<200).map { UInt64($0) * 37_000_000 + 3 } + [1 << 32, (1 << 32) - 1, 1 << 40, 9_000_000_000, 5]
        var builder = DistributionBuilder(metric: "delivery", under: 1 << 32)
        for value in values.reversed() { builder.record(value) }
        let sorted = values.sorted()
        func rank(_ percent: Int) -> UInt64 { sorted[(percent * sorted.count + 99) / 100 - 1] }
        let summary = builder.summary(limits: [1 << 32, 9_000_000_000])
        #expect(builder.keptValues == values.count)
        #expect((summary.min, summary.max) == (sorted.first, sorted.last))
        #expect((summary.p50, summary.p90, summary.p99) == (rank(50), rank(90), rank(99)))
        #expect(summary.countsAtOrAbove[1 << 32] == sorted.count { $0 >= 1 << 32 })
        #expect(summary.countsAtOrAbove[9_000_000_000] == 2)
        #expect(summary.percentUnder! * Double(values.count) == 100 * Double(sorted.count { $0 < 1 << 32 }))
        let mean = sorted.reduce(0.0) { $0 + Double($1 - 3) } / Double(sorted.count) + 3
        #expect(abs(summary.mean! - mean) < 1e-3)
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
