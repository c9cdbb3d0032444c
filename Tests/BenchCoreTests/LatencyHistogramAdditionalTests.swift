import Testing

@testable import BenchCore

/// Values of one seeded distribution, for the tests below.
private struct Sample: Sendable, CustomTestStringConvertible {
    let name: String
    let values: [UInt64]
    var testDescription: String { name }
}

/// Nearest-rank percentile in exact integers: rank = max(1, ⌈thousandths · n / 100 000⌉).
private func nearestRank(_ sorted: [UInt64], thousandths: Int) -> UInt64 {
    let rank = max(1, (thousandths * sorted.count + 99_999) / 100_000)
    return sorted[rank - 1]
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
    let (scaledSquares, overflow) = n.multipliedReportingOverflow(by: squares)
    precondition(!overflow, "the sample is too large for exact 128-bit moments")
    let variance = Double(scaledSquares - sum * sum) / (Double(n) * Double(n))
    return (Double(low) + Double(sum) / Double(n), variance.squareRoot())
}

private func relativeError(_ value: Double, _ truth: Double) -> Double {
    truth == 0 ? abs(value) : abs(value - truth) / abs(truth)
}

private let samples: [Sample] = {
    var random = SplitMix64(seed: 0x415_70)
    func draws(_ count: Int, _ draw: () -> UInt64) -> [UInt64] { (0..<count).map { _ in draw() } }
    return [
        Sample(name: "uniform 1...1e6", values: draws(20_000) { 1 + random.nextBounded(1_000_000) }),
        Sample(name: "exponential, mean 50 µs", values: draws(20_000) {
            UInt64(-portableNaturalLog(random.nextUnitInterval()) * 50_000)
        }),
        Sample(name: "heavy tail up to 1e10", values: draws(20_000) {
            let u = random.nextUnitInterval()
            return UInt64(min(1e10, 2_000 / (u * u * u)))  // capped as a Double: 1/u³ can exceed 2^64
        }),
        Sample(name: "all equal", values: Array(repeating: 987_654_321, count: 3_000)),
        Sample(name: "all below 2048", values: draws(10_000) { random.nextBounded(2048) }),
        Sample(name: "bimodal", values: draws(10_000) {
            random.nextBounded(10) == 0 ? 5_000_000 + random.nextBounded(1_000) : 20_000 + random.nextBounded(500)
        }),
        Sample(name: "one value", values: [1_234_567]),
        Sample(name: "two values", values: [3, 4_000_000_000]),
        Sample(name: "seven values", values: [7, 7, 2_047, 2_048, 2_049, 4_095, 1 << 44]),
        Sample(name: "tiny spread around 1e12", values: draws(50_000) {
            1_000_000_000_000 - 5 + random.nextBounded(11)
        }),
    ]
}()

// More cases for the `LatencyHistogramTests` suite declared in LatencyHistogramTests.swift: percentiles to a
// thousandth of a percent within the documented 1/2048, exact moments, layouts, bins at several widths, merges.
extension LatencyHistogramTests {
    @Test(arguments: samples)
    fileprivate func percentilesAreWithinHalfABucketOfTheExactNearestRank(sample: Sample) {
        var histogram = LatencyHistogram()
        let refused = sample.values.filter { !histogram.record($0) }
        #expect(refused.isEmpty)
        let sorted = sample.values.sorted()
        for thousandths in [0, 1, 1_000, 12_345, 50_000, 90_000, 95_000, 99_000, 99_900, 99_990, 99_999, 100_000] {
            let truth = nearestRank(sorted, thousandths: thousandths)
            let reported = histogram.value(atPercentile: Double(thousandths) / 1000)!
            let error = reported > truth ? reported - truth : truth - reported
            // A bucket is at most 1/1024 of its low bound wide and the midpoint is reported: within 1/2048.
            #expect(2048 * error <= truth, "\(sample.name) p\(Double(thousandths) / 1000): \(reported) vs \(truth)")
            if truth < 2048 { #expect(reported == truth) }
        }
        #expect(histogram.min == sorted.first && histogram.max == sorted.last)
        #expect(histogram.value(atPercentile: 100) == sorted.last)
    }

    @Test(arguments: samples)
    fileprivate func meanAndStandardDeviationMatchExactIntegerSums(sample: Sample) throws {
        var histogram = LatencyHistogram()
        for value in sample.values { histogram.record(value) }
        let truth = exactMoments(sample.values)
        let mean = try #require(histogram.mean)
        let standardDeviation = try #require(histogram.standardDeviation)
        #expect(relativeError(mean, truth.mean) <= 1e-9, "\(sample.name): mean \(mean) vs \(truth.mean)")
        #expect(
            relativeError(standardDeviation, truth.standardDeviation) <= 1e-9 || standardDeviation <= 1e-9 * truth.mean,
            "\(sample.name): standard deviation \(standardDeviation) vs \(truth.standardDeviation)")
    }

    @Test func theStandardDeviationStaysExactWhenTheFirstValueIsFarFromTheRest() throws {
        // A warm-up outlier first, then 200,000 values within ±5 of 1e9: sums of (x − first) and (x − first)² would
        // cancel almost all digits in (Σd² − (Σd)²/n)/n (1e-8 off). Welford's M2 adds only non-negative terms, so the
        // mean and the standard deviation must match the exact 128-bit integer moments to 1e-9 relative.
        var random = SplitMix64(seed: 0xFA7)
        let values = [0] + (0..<200_000).map { _ in 1_000_000_000 - 5 + random.nextBounded(11) }
        var histogram = LatencyHistogram()
        for value in values { histogram.record(value) }
        let truth = exactMoments(values)
        let standardDeviation = try #require(histogram.standardDeviation)
        #expect(relativeError(try #require(histogram.mean), truth.mean) <= 1e-9)
        #expect(relativeError(standardDeviation, truth.standardDeviation) <= 1e-9,
                "\(standardDeviation) vs \(truth.standardDeviation)")
    }

    @Test func mergingHistogramsWhoseFirstValuesAreFarApartKeepsTheExactStandardDeviation() throws {
        // Each part opens with an outlier on its own side (0, and 2^44) and then holds 100,000 values within ±5 of
        // 1e9: the first values are 2^44 apart while the means are close. Merged either way round (Chan et al.'s
        // combination), the moments must match the exact integer ones of all the values, and each other.
        var random = SplitMix64(seed: 0xC4A)
        let low: [UInt64] = [0] + (0..<100_000).map { _ in 1_000_000_000 - 5 + random.nextBounded(11) }
        let high: [UInt64] = [1 << 44] + (0..<100_000).map { _ in 1_000_000_000 - 5 + random.nextBounded(11) }
        var first = LatencyHistogram()
        for value in low { first.record(value) }
        var second = LatencyHistogram()
        for value in high { second.record(value) }
        var lowThenHigh = first
        lowThenHigh.add(second)
        var highThenLow = second
        highThenLow.add(first)
        let truth = exactMoments(low + high)
        for merged in [lowThenHigh, highThenLow] {
            let mean = try #require(merged.mean)
            let standardDeviation = try #require(merged.standardDeviation)
            #expect(merged.count == UInt64(low.count + high.count) && merged.min == 0 && merged.max == 1 << 44)
            #expect(relativeError(mean, truth.mean) <= 1e-9, "mean \(mean) vs \(truth.mean)")
            #expect(relativeError(standardDeviation, truth.standardDeviation) <= 1e-9,
                    "standard deviation \(standardDeviation) vs \(truth.standardDeviation)")
        }
    }

    @Test func valuesMoreThanTwoToTheSixtyThreeApartStillHaveTheirTrueMean() throws {
        // record() keeps value − first as a Double; as Int64(bitPattern:) it wrapped when they were 2^63 or more apart.
        var histogram = LatencyHistogram(highestTrackableValue: .max)
        histogram.record(0)
        histogram.record(.max)
        #expect(histogram.min == 0 && histogram.max == .max && histogram.value(atPercentile: 100) == .max)
        let truth = 9_223_372_036_854_775_807.5
        let mean = try #require(histogram.mean)
        let standardDeviation = try #require(histogram.standardDeviation)
        #expect(relativeError(mean, truth) <= 1e-9, "mean \(mean)")
        #expect(relativeError(standardDeviation, truth) <= 1e-9, "standard deviation \(standardDeviation)")
    }

    @Test func aSingleValueIsEveryPercentileWhereverItFalls() {
        var random = SplitMix64(seed: 0x51)
        var values: [UInt64] = [0, 1, 2_047, 2_048, 2_049, 4_095, 4_096, 4_097, (1 << 44) - 1, 1 << 44]
        for _ in 0..<200 { values.append(random.nextBounded((1 << 44) + 1)) }
        for value in values {
            var histogram = LatencyHistogram()
            histogram.record(value)
            for percentile in [0.0, 0.001, 50, 99.999, 100] {
                #expect(histogram.value(atPercentile: percentile) == value, "\(value) at p\(percentile)")
            }
            #expect(histogram.mean == Double(value) && histogram.standardDeviation == 0)
        }
    }

    @Test(arguments: [2, 3, 5, 8, 14])
    func otherLayoutsKeepTheirOwnErrorBound(subBucketBits: Int) {
        let values = samples[0].values + samples[2].values
        var histogram = LatencyHistogram(highestTrackableValue: 1 << 40, subBucketBits: subBucketBits)
        for value in values { histogram.record(value) }
        let sorted = values.sorted()
        for thousandths in [0, 10_000, 50_000, 75_000, 99_000, 99_900, 100_000] {
            let truth = nearestRank(sorted, thousandths: thousandths)
            let reported = histogram.value(atPercentile: Double(thousandths) / 1000)!
            let error = reported > truth ? reported - truth : truth - reported
            let label = "bits \(subBucketBits), p\(Double(thousandths) / 1000)"
            #expect(error << UInt64(subBucketBits) <= truth, "\(label): \(reported) vs \(truth)")
            if truth < 1 << subBucketBits { #expect(reported == truth) }
        }
        #expect(histogram.subBucketCount == 1 << subBucketBits)
    }

    @Test func refusedValuesAreOnlyCountedAsOverflows() {
        var histogram = LatencyHistogram(highestTrackableValue: 5_000)
        let aboveTheLimit = [histogram.record(5_001), histogram.record(.max)]
        #expect(aboveTheLimit == [false, false])
        #expect(histogram.count == 0 && histogram.overflowCount == 2)
        #expect(histogram.min == nil && histogram.max == nil)
        #expect(histogram.mean == nil && histogram.standardDeviation == nil)
        #expect(histogram.value(atPercentile: 50) == nil && histogram.bins(coarseSubBucketBits: 4) == [])
        let atAndBelowTheLimit = [histogram.record(5_000), histogram.record(0)]
        let farAbove = histogram.record(1 << 40)
        #expect(atAndBelowTheLimit == [true, true] && !farAbove)
        #expect(histogram.count == 2 && histogram.overflowCount == 3)
        #expect(histogram.min == 0 && histogram.max == 5_000 && histogram.mean == 2_500)
        #expect(histogram.value(atPercentile: 100) == 5_000)
    }

    @Test func anEmptyHistogramReportsNothingForAnyPercentile() {
        let histogram = LatencyHistogram()
        #expect(histogram.count == 0 && histogram.overflowCount == 0)
        #expect(histogram.standardDeviation == nil)
        for percentile in [0.0, 0.001, 50, 99.9, 100] { #expect(histogram.value(atPercentile: percentile) == nil) }
        for bits in 2...11 { #expect(histogram.bins(coarseSubBucketBits: bits).isEmpty) }
    }

    @Test(arguments: [2, 4, 8, 11])
    func binsAtEveryWidthHoldEachValueInExactlyOneBin(bits: Int) throws {
        for sample in samples {
            var histogram = LatencyHistogram()
            for value in sample.values { histogram.record(value) }
            let bins = histogram.bins(coarseSubBucketBits: bits)
            #expect(bins.reduce(0) { $0 + $1.count } == histogram.count, "\(sample.name)")
            #expect(zip(bins, bins.dropFirst()).allSatisfy { $0.high == $1.low }, "\(sample.name): contiguous")
            let first = try #require(bins.first)
            let last = try #require(bins.last)
            #expect(first.count > 0 && last.count > 0)
            #expect((first.low..<first.high).contains(histogram.min!))
            #expect((last.low..<last.high).contains(histogram.max!))
            for bin in bins {
                let width = bin.high - bin.low
                let allowed: UInt64 = bin.low < 1 << UInt64(bits) ? 1 : bin.low >> UInt64(bits - 1)
                #expect(width.nonzeroBitCount == 1 && width <= allowed && bin.low % width == 0, "\(bin)")
            }
            // Count each value into the bin that holds it (binary search), and compare with the bins' counts.
            var counts = [UInt64](repeating: 0, count: bins.count)
            for value in sample.values {
                var lower = 0
                var upper = bins.count
                while upper - lower > 1 {
                    let middle = (lower + upper) / 2
                    if bins[middle].low <= value { lower = middle } else { upper = middle }
                }
                #expect((bins[lower].low..<bins[lower].high).contains(value))
                counts[lower] += 1
            }
            #expect(counts == bins.map(\.count), "\(sample.name)")
        }
    }

    @Test func binsAtTheFullWidthBelow2048AreTheValuesThemselves() {
        var histogram = LatencyHistogram()
        let values = samples[4].values
        for value in values { histogram.record(value) }
        var occurrences: [UInt64: UInt64] = [:]
        for value in values { occurrences[value, default: 0] += 1 }
        let bins = histogram.bins(coarseSubBucketBits: 11)
        #expect(bins.allSatisfy { $0.high == $0.low + 1 })
        #expect(bins.allSatisfy { occurrences[$0.low, default: 0] == $0.count })
        #expect(bins.count == Int(values.max()! - values.min()! + 1), "empty bins between are listed too")
    }

    @Test func mergingPartsWithFarApartFirstValuesGivesTheWholesStatistics() throws {
        // Like per-client histograms merged at the end: each part starts from its own first value.
        var random = SplitMix64(seed: 0x3E6)
        let parts: [[UInt64]] = [
            (0..<5_000).map { _ in 10_000 + random.nextBounded(1_000) },
            (0..<5_000).map { _ in 1_000_000_000_000 - 5 + random.nextBounded(11) },
            [],
            (0..<5_000).map { _ in 1 + random.nextBounded(1 << 40) },
        ]
        var whole = LatencyHistogram()
        var merged = LatencyHistogram()
        for part in parts {
            var histogram = LatencyHistogram()
            for value in part {
                histogram.record(value)
                whole.record(value)
            }
            histogram.record(1 << 45)  // refused: the overflow counts must merge too
            merged.add(histogram)
        }
        let values = parts.flatMap { $0 }
        let truth = exactMoments(values)
        #expect(merged.count == UInt64(values.count) && merged.overflowCount == UInt64(parts.count))
        #expect(merged.min == values.min() && merged.max == values.max())
        #expect(relativeError(try #require(merged.mean), truth.mean) <= 1e-9)
        #expect(relativeError(try #require(merged.standardDeviation), truth.standardDeviation) <= 1e-9)
        #expect(merged.bins(coarseSubBucketBits: 11) == whole.bins(coarseSubBucketBits: 11))
        for percentile in [0.0, 25, 50, 90, 99.9, 100] {
            #expect(merged.value(atPercentile: percentile) == whole.value(atPercentile: percentile))
        }
    }

    @Test func addingAnEmptyHistogramOrAddingToAnEmptyOneChangesNothingElse() throws {
        var values = LatencyHistogram()
        for value: UInt64 in [5, 70_000, 3_000_000] { values.record(value) }
        var intoEmpty = LatencyHistogram()
        intoEmpty.add(values)
        var fromEmpty = values
        fromEmpty.add(LatencyHistogram())
        for histogram in [intoEmpty, fromEmpty] {
            #expect(histogram.count == 3 && histogram.overflowCount == 0)
            #expect(histogram.min == 5 && histogram.max == 3_000_000)
            #expect(histogram.mean == values.mean && histogram.standardDeviation == values.standardDeviation)
            #expect(histogram.bins(coarseSubBucketBits: 4) == values.bins(coarseSubBucketBits: 4))
        }
        var empty = LatencyHistogram()
        empty.add(LatencyHistogram())
        #expect(empty.count == 0 && empty.min == nil && empty.mean == nil)
    }
}
