import Testing

@testable import BenchCore

/// Nearest-rank percentile in exact integers: rank = max(1, ⌈thousandths · n / 100 000⌉).
private func nearestRank(_ sorted: [UInt64], thousandths: Int) -> UInt64 {
    sorted[max(1, (thousandths * sorted.count + 99_999) / 100_000) - 1]
}

/// Mean and population standard deviation from exact 128-bit sums of the differences from the minimum.
private func exactMoments(_ values: [UInt64]) -> (mean: Double, standardDeviation: Double) {
    let low = values.min()!
    var sum: UInt128 = 0
    var squares: UInt128 = 0
    for value in values {
        let difference = UInt128(value - low)
        sum += difference
        squares += difference * difference
    }
    let n = UInt128(values.count)
    let variance = Double(n * squares - sum * sum) / (Double(n) * Double(n))
    return (Double(low) + Double(sum) / Double(n), variance.squareRoot())
}

private func close(_ value: Double?, _ truth: Double, relative: Double = 1e-12) -> Bool {
    guard let value else { return false }
    return truth == 0 ? value == 0 : abs(value - truth) <= abs(truth) * relative
}

// More cases for the `DistributionBuilderTests` suite declared in DistributionBuilderTests.swift: random data
// against exact percentiles, moments and shares, and the edges of `under`.
extension DistributionBuilderTests {
    @Test(arguments: [1, 2, 3, 10, 999, 1_000, 1_001, 12_345])
    func aSummaryOfRandomValuesIsExactInEveryStatistic(count: Int) {
        var random = SplitMix64(seed: UInt64(count))
        let under: UInt64 = 500_000
        let lost = Int(random.nextBounded(50))
        let values = (0..<count).map { _ in
            // Mostly uniform, some far out, and some exactly at the threshold.
            switch random.nextBounded(10) {
            case 0: return under
            case 1: return 1_000_000_000 + random.nextBounded(1_000_000_000)
            default: return random.nextBounded(1_000_000)
            }
        }
        var builder = DistributionBuilder(metric: "rtt", under: under)
        for value in values { builder.record(value) }
        for _ in 0..<lost { builder.recordLost() }
        let summary = builder.summary()
        let sorted = values.sorted()
        let truth = exactMoments(values)
        #expect(summary.metric == "rtt" && summary.under == under)
        #expect(summary.count == count && summary.lost == lost)
        #expect(summary.min == sorted.first && summary.max == sorted.last)
        let percentiles = [summary.p50, summary.p90, summary.p95, summary.p99, summary.p999]
        #expect(percentiles == [50_000, 90_000, 95_000, 99_000, 99_900].map { nearestRank(sorted, thousandths: $0) })
        #expect(close(summary.mean, truth.mean), "mean \(String(describing: summary.mean)) vs \(truth.mean)")
        #expect(close(summary.standardDeviation, truth.standardDeviation, relative: 1e-9))
        let strictlyUnder = values.filter { $0 < under }.count
        #expect(close(summary.percentUnder, Double(strictlyUnder) / Double(count + lost) * 100))
        #expect(builder.histogram.count == UInt64(count) && builder.histogram.max == sorted.last)
    }

    @Test func aTinySpreadAroundAHugeMeanKeepsItsExactMeanAndDeviation() {
        var random = SplitMix64(seed: 0x7E12)
        let values = (0..<100_000).map { _ in 1_000_000_000_000 - 5 + random.nextBounded(11) }
        var builder = DistributionBuilder(metric: "delivery", under: 1)
        for value in values { builder.record(value) }
        let summary = builder.summary()
        let truth = exactMoments(values)
        #expect(close(summary.mean, truth.mean, relative: 1e-15))
        #expect(close(summary.standardDeviation, truth.standardDeviation, relative: 1e-9))
        #expect(summary.percentUnder == 0)
    }

    @Test(arguments: [
        (0, 0.0), (1, 20.0), (10, 20.0), (11, 40.0), (99, 40.0), (100, 60.0), (UInt64.max, 60.0),
    ] as [(UInt64, Double)])
    func onlyValuesStrictlyBelowUnderCountAndEveryLossCountsAgainst(under: UInt64, percent: Double) {
        var builder = DistributionBuilder(metric: "spread", under: under)
        for value: UInt64 in [0, 10, 99, UInt64.max] { builder.record(value) }
        builder.recordLost()
        #expect(builder.summary().percentUnder == percent)
    }

    @Test func lossesAloneGiveZeroValuesNoStatisticsAndZeroPercentUnder() {
        var builder = DistributionBuilder(metric: "completion", under: .max)
        builder.recordLost(3)
        builder.recordLost()
        let summary = builder.summary()
        #expect(summary.count == 0 && summary.lost == 4)
        #expect(summary.min == nil && summary.max == nil && summary.mean == nil && summary.standardDeviation == nil)
        #expect([summary.p50, summary.p90, summary.p95, summary.p99, summary.p999] == [nil, nil, nil, nil, nil])
        #expect(summary.percentUnder == 0)
        #expect(["p50", "min", "max", "mean"].allSatisfy { summary.time(of: $0) == nil })
    }

    @Test func nothingRecordedAtAllHasNoShareAndNoStatistics() {
        let summary = DistributionBuilder(metric: "lag", under: 0).summary()
        #expect(summary.count == 0 && summary.lost == 0)
        #expect(summary.percentUnder == nil && summary.p50 == nil && summary.mean == nil)
    }

    @Test func aSummaryIsASnapshotThatLaterRecordsDoNotChange() {
        var builder = DistributionBuilder(metric: "rtt", under: 10)
        builder.record(5)
        let first = builder.summary()
        builder.record(50)
        builder.recordLost()
        #expect(first.count == 1 && first.max == 5 && first.percentUnder == 100)
        let second = builder.summary()
        #expect(second.count == 2 && second.max == 50 && second.lost == 1)
        #expect(close(second.percentUnder, 100.0 / 3))
        #expect(first != second && builder.summary() == second)
    }
}

@Suite struct DistributionBuilderBudgetTests {
    @Test func droppingTheValuesKeepsCountsAndExtremesExactAndReadsPercentilesWithinTheHistogramsError() {
        var exact = DistributionBuilder(metric: "rtt", under: 50_000)
        var dropped = DistributionBuilder(metric: "rtt", under: 50_000)
        var random = SplitMix64(seed: 9, stream: 0)
        for step in 0..<20_000 {
            let value = 1_000 + random.nextBounded(99_000) * (step % 100 == 0 ? 50 : 1)
            exact.record(value)
            dropped.record(value)
            if step == 5_000 { dropped.dropValues() }
        }
        exact.recordLost(7)
        dropped.recordLost(7)
        #expect(dropped.keptValues == 0 && !dropped.keepsValues)
        let (a, b) = (exact.summary(percentiles: [99.99]), dropped.summary(percentiles: [99.99]))
        #expect(a.isExact && !b.isExact)
        #expect((a.count, a.lost, a.min, a.max, a.percentUnder) == (b.count, b.lost, b.min, b.max, b.percentUnder))
        for (x, y) in [(a.p50, b.p50), (a.p90, b.p90), (a.p99, b.p99), (a.p999, b.p999), (a.percentile(99.99), b.percentile(99.99))] {
            let (truth, read) = (Double(x!), Double(y!))
            #expect(abs(read - truth) <= truth / 2048 + 1, "\(read) vs \(truth)")
        }
    }
}
