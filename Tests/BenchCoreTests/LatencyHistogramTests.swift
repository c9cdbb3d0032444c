import Testing

@testable import BenchCore

@Suite struct LatencyHistogramTests {
    /// Nearest-rank percentile of sorted values, computed independently: rank = ceil(p/100 · n), at least 1.
    private func exact(_ sorted: [UInt64], _ percentile: Double) -> UInt64 {
        let thousandths = Int((percentile * 1000).rounded())
        return sorted[max(1, (thousandths * sorted.count + 99_999) / 100_000) - 1]
    }

    /// Seeded distributions: uniform, exponential, heavy-tailed, constant, and all below 2048 (exact buckets).
    private static let distributions: [(name: String, values: [UInt64])] = {
        var random = SplitMix64(seed: 77)
        let uniform = (0..<20_000).map { _ in 1 + random.nextBounded(1_000_000) }
        let exponential = (0..<20_000).map { _ in UInt64(-portableNaturalLog(random.nextUnitInterval()) * 250_000) }
        let heavy = (0..<20_000).map { _ in UInt64(1_000 / pow3(random.nextUnitInterval())) }
        let small = (0..<5_000).map { _ in random.nextBounded(2048) }
        return [
            ("uniform", uniform), ("exponential", exponential), ("heavy tail", heavy.map { min($0, 10_000_000_000) }),
            ("constant", Array(repeating: 123_456_789, count: 1000)), ("below 2048", small),
        ]
    }()

    private static func pow3(_ x: Double) -> Double { x * x * x }

    @Test(arguments: distributions.indices)
    func percentilesMatchExactSortedPercentilesWithinATenthOfAPercent(distribution: Int) {
        let (name, values) = Self.distributions[distribution]
        var histogram = LatencyHistogram()
        let refused = values.filter { !histogram.record($0) }
        #expect(refused.isEmpty)
        let sorted = values.sorted()
        for percentile in [0.0, 1, 25, 50, 90, 95, 99, 99.9, 99.99, 100] {
            let truth = exact(sorted, percentile)
            let reported = histogram.value(atPercentile: percentile)!
            let error = reported > truth ? reported - truth : truth - reported
            #expect(Double(error) <= Double(truth) / 1000 + 1, "\(name) p\(percentile): \(reported) vs \(truth)")
            if truth < 2048 { #expect(reported == truth, "\(name): values under 2048 are exact") }
        }
        #expect(histogram.min == sorted.first)
        #expect(histogram.max == sorted.last)
        #expect(histogram.count == UInt64(values.count))
    }

    @Test func meanAndStandardDeviationMatchADirectTwoPassComputation() {
        for (name, values) in Self.distributions + [("tiny spread, huge mean", (0..<1000).map { 1_000_000_000_000 + UInt64($0 % 11) })] {
            var histogram = LatencyHistogram(highestTrackableValue: 1 << 44)
            for value in values { histogram.record(value) }
            let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
            let variance = values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(values.count)
            #expect(abs(histogram.mean! - mean) <= mean * 1e-9, "\(name) mean")
            #expect(abs(histogram.standardDeviation! - variance.squareRoot()) <= max(variance.squareRoot() * 1e-6, 1e-6), "\(name) stddev")
        }
    }

    @Test func valuesAboveTheHighestTrackableAreRefusedAndCounted() {
        var histogram = LatencyHistogram(highestTrackableValue: 1_000_000)
        let atTheLimit = histogram.record(1_000_000)
        let beyond = histogram.record(1_000_001)
        #expect(atTheLimit && !beyond)
        #expect(histogram.count == 1)
        #expect(histogram.overflowCount == 1)
        #expect(histogram.max == 1_000_000)
    }

    @Test func anEmptyHistogramHasNoStatistics() {
        let histogram = LatencyHistogram()
        #expect(histogram.min == nil && histogram.max == nil && histogram.mean == nil)
        #expect(histogram.value(atPercentile: 50) == nil)
        #expect(histogram.bins(coarseSubBucketBits: 4).isEmpty)
        #expect(histogram.percentileDistribution().isEmpty)
    }

    @Test func coarseBinsAreContiguousHoldEveryValueOnceAndSumToTheCount() {
        var histogram = LatencyHistogram()
        let values = Self.distributions[1].values
        for value in values { histogram.record(value) }
        let bins = histogram.bins(coarseSubBucketBits: 4)
        #expect(bins.reduce(0) { $0 + $1.count } == histogram.count)
        for (bin, next) in zip(bins, bins.dropFirst()) { #expect(bin.high == next.low) }
        #expect(bins.first!.low <= histogram.min! && histogram.min! < bins.first!.high)
        #expect(bins.last!.low <= histogram.max! && histogram.max! < bins.last!.high)
        for bin in bins where bin.low >= 16 { #expect(Double(bin.high - bin.low) <= Double(bin.low) / 8) }
        // Each bin's count is exactly the number of values that fall in it.
        for bin in bins { #expect(UInt64(values.filter { (bin.low..<bin.high).contains($0) }.count) == bin.count) }
    }

    @Test func addingHistogramsIsRecordingEverythingInOne() {
        let values = Self.distributions[0].values
        var whole = LatencyHistogram()
        var first = LatencyHistogram()
        var second = LatencyHistogram()
        for (index, value) in values.enumerated() {
            whole.record(value)
            if index % 3 == 0 { first.record(value) } else { second.record(value) }
        }
        first.add(second)
        #expect(first.count == whole.count)
        #expect(first.min == whole.min && first.max == whole.max)
        #expect(abs(first.mean! - whole.mean!) <= whole.mean! * 1e-12)
        #expect(abs(first.standardDeviation! - whole.standardDeviation!) <= whole.standardDeviation! * 1e-9)
        for percentile in [50.0, 99, 99.9] { #expect(first.value(atPercentile: percentile) == whole.value(atPercentile: percentile)) }
    }

    @Test func thePercentileDistributionHalvesTheDistanceToOneHundredPercent() {
        var histogram = LatencyHistogram()
        for value in 1...10_000 as ClosedRange<UInt64> { histogram.record(value * 100) }
        let steps = histogram.percentileDistribution(ticksPerHalfDistance: 5)
        #expect(steps.prefix(6).map(\.percentile) == [0, 10, 20, 30, 40, 50])
        #expect(steps[6].percentile == 55)  // from 50%, five ticks per half of the remaining distance
        #expect(steps.last == .init(value: 1_000_000, percentile: 100, totalCount: 10_000))
        #expect(steps.map(\.totalCount) == steps.map(\.totalCount).sorted())
    }
}
