import Glibc
import Testing

@testable import BenchCore

// More cases for the `SendScheduleTests` suite declared in ScheduleTests.swift: empty and one-send schedules,
// how many draws a schedule takes, gaps against libm, and the shape of the exponential.
extension SendScheduleTests {
    private static func gaps(_ offsets: [UInt64]) -> [UInt64] {
        zip(offsets.dropFirst(), offsets).map { $0 - $1 }
    }

    @Test(arguments: [(0, 1), (1, 5), (2, 1), (1_000, 7), (10_000, 1_000_000), (3, 1 << 40)] as [(Int, UInt64)])
    func fixedArrivalsAreExactlyKTimesTheIntervalAndDrawNothing(count: Int, interval: UInt64) {
        var random = SplitMix64(seed: 11)
        let offsets = SendSchedule.offsets(count: count, meanInterval: interval, arrival: .fixed, rng: &random)
        #expect(offsets.count == count)
        #expect(offsets.enumerated().allSatisfy { $0.element == UInt64($0.offset) * interval })
        var untouched = SplitMix64(seed: 11)
        #expect(random.next() == untouched.next())
    }

    @Test(arguments: [0, 1, 2, 1_000])
    func aPoissonScheduleTakesExactlyCountMinusOneDraws(count: Int) {
        var random = SplitMix64(seed: 12)
        let offsets = SendSchedule.offsets(count: count, meanInterval: 1_000, arrival: .poisson, rng: &random)
        #expect(offsets.count == count)
        #expect(offsets.first == (count == 0 ? nil : 0))
        var twin = SplitMix64(seed: 12)
        for _ in 0..<max(0, count - 1) { _ = twin.next() }
        #expect(random.next() == twin.next())
    }

    @Test func poissonGapsAreRoundedExponentialDrawsFromTheGivenStream() {
        var random = SplitMix64(seed: 13)
        let interval: UInt64 = 250_000
        let offsets = SendSchedule.offsets(count: 20_001, meanInterval: interval, arrival: .poisson, rng: &random)
        var twin = SplitMix64(seed: 13)
        var mismatches: [(UInt64, Double)] = []
        for gap in Self.gaps(offsets) {
            // Computed with libm rather than portableNaturalLog: they may differ in the last bit, which changes the
            // rounded gap only if the product is within ~1e-11 of a half: never, for this seed.
            let expected = (-Glibc.log(twin.nextUnitInterval()) * Double(interval)).rounded()
            if Double(gap) != expected { mismatches.append((gap, expected)) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func theMeanOfOneHundredThousandPoissonGapsIsWithinTwoPercentOfTheInterval() {
        for seed: UInt64 in [1, 2, 3] {
            var random = SplitMix64(seed: seed)
            let gaps = Self.gaps(
                SendSchedule.offsets(count: 100_001, meanInterval: 100_000, arrival: .poisson, rng: &random))
            let mean = Double(gaps.reduce(0, +)) / Double(gaps.count)
            #expect(abs(mean - 100_000) < 2_000, "seed \(seed): mean gap \(mean)")
        }
    }

    @Test func poissonGapsHaveTheTailOfAnExponential() {
        var random = SplitMix64(seed: 14)
        let interval: UInt64 = 100_000
        let gaps = Self.gaps(
            SendSchedule.offsets(count: 100_001, meanInterval: interval, arrival: .poisson, rng: &random))
        for multiple in [0.1, 0.5, 1, 2, 3, 5] {
            let share = Double(gaps.filter { Double($0) > multiple * Double(interval) }.count) / Double(gaps.count)
            #expect(abs(share - Glibc.exp(-multiple)) < 0.02, "P(gap > \(multiple)·mean) = \(share)")
        }
        // The coefficient of variation of an exponential is 1.
        let mean = Double(gaps.reduce(0, +)) / Double(gaps.count)
        let variance = gaps.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(gaps.count)
        #expect(abs(variance.squareRoot() / mean - 1) < 0.03)
    }

    @Test func doublingTheIntervalDoublesEveryGapUpToRounding() {
        var first = SplitMix64(seed: 15)
        var second = SplitMix64(seed: 15)
        let single = Self.gaps(SendSchedule.offsets(count: 5_001, meanInterval: 3_333, arrival: .poisson, rng: &first))
        let double = Self.gaps(SendSchedule.offsets(count: 5_001, meanInterval: 6_666, arrival: .poisson, rng: &second))
        #expect(zip(single, double).allSatisfy { (2 * $0).distance(to: $1).magnitude <= 1 })
    }

    @Test func offsetsAreTheRunningSumOfTheGapsAndNeverDecrease() {
        var random = SplitMix64(seed: 16)
        let offsets = SendSchedule.offsets(count: 10_000, meanInterval: 1, arrival: .poisson, rng: &random)
        #expect(offsets.first == 0)
        #expect(zip(offsets.dropFirst(), offsets).allSatisfy { $0 >= $1 })
        #expect(offsets.last == Self.gaps(offsets).reduce(0, +))
        // With a 1 ns mean, a gap rounds to 0 when it is under 0.5 ns: 1 − e^-0.5 ≈ 39% of them.
        let zeros = Double(Self.gaps(offsets).filter { $0 == 0 }.count) / 9_999
        #expect(abs(zeros - (1 - Glibc.exp(-0.5))) < 0.02)
    }
}
