import Testing

@testable import BenchCore

@Suite struct SamplingUncertaintyTests {
    @Test func aPercentilesIntervalComesFromTheBinomialOfItsRank() throws {
        // p99 of 200: rank 198 ± 1.96·√(200·0.99·0.01) = 198 ± 2.758: from 97.621% to past the largest value.
        let p99 = try #require(SamplingUncertainty.percentileBounds(99, count: 200))
        #expect(p99.lower == 97.621 && p99.upper == 100)
        // p50 of 100: 50 ± 1.96·5 = 50 ± 9.8.
        let p50 = try #require(SamplingUncertainty.percentileBounds(50, count: 100))
        #expect(p50.lower == 40.2 && p50.upper == 59.8)
        // More values, a narrower interval.
        let many = try #require(SamplingUncertainty.percentileBounds(99, count: 1_000_000))
        #expect(many.lower > 98.97 && many.upper < 99.03)
        #expect(SamplingUncertainty.percentileBounds(99, count: 0) == nil)
    }

    @Test func intervalsReadTheSummarysPercentilesMinAndMax() throws {
        var builder = DistributionBuilder(metric: "rtt", under: 1_000_000)
        for value in 1...200 { builder.record(UInt64(value) * 1_000) }
        let summary = builder.summary(percentiles: [99])
        let interval = try #require(SamplingUncertainty.interval(of: "p99", in: summary))
        #expect(interval == 196_000...200_000, "the 196th value (nearest rank of 97.621%) to the largest")
        #expect(SamplingUncertainty.interval(of: "max", in: summary) == nil)
        let mean = try #require(SamplingUncertainty.interval(of: "mean", in: summary))
        #expect(mean.lowerBound < 100_500 && mean.upperBound > 100_500)
        let bare = builder.summary()
        #expect(SamplingUncertainty.interval(of: "p99", in: bare) == interval, "a summary holds its percentiles' intervals")
        let read = DistributionSummary(
            metric: "rtt", count: 200, lost: 0, min: 1_000, max: 200_000, mean: nil, standardDeviation: nil, p50: nil,
            p90: nil, p95: nil, p99: 198_000, p999: nil, under: 1, percentUnder: nil)
        #expect(SamplingUncertainty.interval(of: "p99", in: read) == nil, "its lower bound was not asked for")
    }
}
