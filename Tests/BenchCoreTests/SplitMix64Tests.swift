import Testing

@testable import BenchCore

// More cases for the `SplitMix64Tests` suite declared in ScheduleTests.swift: a reference implementation over
// long streams, streams 0 and 1, exact power-of-two bounds, uniformity and shuffles.
extension SplitMix64Tests {
    /// SplitMix64 as published (Steele, Lea and Flood 2014; Vigna's splitmix64.c), written out here.
    private struct ReferenceSplitMix64 {
        var x: UInt64

        mutating func next() -> UInt64 {
            x = x &+ 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: [0, 1, 42, 0x9E37_79B9_7F4A_7C15, UInt64.max, 0x0123_4567_89AB_CDEF] as [UInt64])
    func everySeedGivesThePublishedAlgorithmsStream(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var reference = ReferenceSplitMix64(x: seed)
        var mismatches = 0
        for _ in 0..<10_000 where generator.next() != reference.next() { mismatches += 1 }
        #expect(mismatches == 0)
    }

    @Test func streamsZeroAndOneOfOneSeedAreDifferentAndEachRepeats() {
        func draws(seed: UInt64, stream: UInt64) -> [UInt64] {
            var generator = SplitMix64(seed: seed, stream: stream)
            return (0..<64).map { _ in generator.next() }
        }
        for seed: UInt64 in [0, 1, 7, UInt64.max] {
            let zero = draws(seed: seed, stream: 0)
            let one = draws(seed: seed, stream: 1)
            #expect(zero == draws(seed: seed, stream: 0))
            #expect(one == draws(seed: seed, stream: 1))
            #expect(Set(zero).isDisjoint(with: one), "seed \(seed): streams 0 and 1 share no draw")
            var plain = SplitMix64(seed: seed)
            #expect(zero != (0..<64).map { _ in plain.next() }, "stream 0 is not the plain seed's stream")
        }
        #expect(draws(seed: 1, stream: 0) != draws(seed: 2, stream: 0))
    }

    @Test(arguments: 1...63)
    func aPowerOfTwoBoundTakesTheTopBitsOfOneDraw(bits: Int) {
        // With bound 2^k nothing is ever rejected, and the multiply-shift result is the top k bits.
        var generator = SplitMix64(seed: UInt64(bits))
        var reference = ReferenceSplitMix64(x: UInt64(bits))
        for _ in 0..<200 {
            #expect(generator.nextBounded(1 << UInt64(bits)) == reference.next() >> UInt64(64 - bits))
        }
    }

    @Test(arguments: [3, 1_000, 1 << 62 + 1, 1 << 63 + 1, 3 << 62, UInt64.max - 1] as [UInt64])
    func boundedNumbersFollowLemiresMethodDrawingAgainWhenADrawIsRejected(bound: UInt64) {
        // Lemire (2019), "Fast Random Integer Generation in an Interval", algorithm 5, on the reference stream.
        // With bounds just above a power of two about half of the draws are rejected, so skipping the rejection
        // (a biased result) would show up here as a different sequence.
        var generator = SplitMix64(seed: bound)
        var reference = ReferenceSplitMix64(x: bound)
        var draws = 0
        var mismatches = 0
        for _ in 0..<5_000 {
            var product = reference.next().multipliedFullWidth(by: bound)
            draws += 1
            if product.low < bound {
                let threshold = (0 &- bound) % bound
                while product.low < threshold {
                    product = reference.next().multipliedFullWidth(by: bound)
                    draws += 1
                }
            }
            if generator.nextBounded(bound) != product.high { mismatches += 1 }
        }
        #expect(mismatches == 0, "of 5000 numbers")
        #expect(generator.next() == reference.next(), "both streams advanced by \(draws) draws")
        if bound == 1 << 63 + 1 { #expect(draws > 9_000, "about two draws per number for 2^63 + 1, not \(draws)") }
    }

    @Test(arguments: [1, 5, 1 << 32 + 1, 1 << 63 - 1, 1 << 63 + 1, UInt64.max - 1] as [UInt64])
    func boundsWhereRejectionIsLikelyStillStayBelowTheBound(bound: UInt64) {
        var generator = SplitMix64(seed: ~bound)
        let values = (0..<5_000).map { _ in generator.nextBounded(bound) }
        let largest = values.max()!
        #expect(largest < bound)
        #expect(bound == 1 || largest >= bound / 2, "draws reach the upper half of 0..<\(bound)")
    }

    @Test(arguments: [(3, 300_000), (7, 700_000), (1000, 1_000_000)] as [(UInt64, Int)])
    func boundedNumbersPassAChiSquareTestOfUniformity(bound: UInt64, draws: Int) {
        var generator = SplitMix64(seed: 0xC41 &+ bound)
        var counts = [Int](repeating: 0, count: Int(bound))
        for _ in 0..<draws { counts[Int(generator.nextBounded(bound))] += 1 }
        let expected = Double(draws) / Double(bound)
        let chiSquare = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        // Mean bound − 1, standard deviation √(2(bound − 1)): allow five standard deviations (and a floor of 25).
        let degrees = Double(bound - 1)
        let limit = degrees + max(25, 5 * (2 * degrees).squareRoot())
        #expect(chiSquare < limit, "χ² = \(chiSquare), counts \(counts.prefix(7))")
        // And no single count more than six standard deviations from its expectation.
        let deviation = (expected * (1 - 1 / Double(bound))).squareRoot()
        #expect(counts.allSatisfy { abs(Double($0) - expected) < 6 * deviation })
    }

    @Test func unitIntervalDrawsAreTheTopFiftyThreeBitsPlusOneAndAverageOneHalf() {
        var generator = SplitMix64(seed: 0x0E1)
        var reference = ReferenceSplitMix64(x: 0x0E1)
        var sum = 0.0
        var mismatches = 0
        let draws = 200_000
        for _ in 0..<draws {
            let value = generator.nextUnitInterval()
            if value != Double((reference.next() >> 11) + 1) / 9_007_199_254_740_992 { mismatches += 1 }  // 2^53
            sum += value
        }
        #expect(mismatches == 0)
        // The standard error of the mean is 0.2887/√200000 ≈ 0.00065.
        #expect(abs(sum / Double(draws) - 0.5) < 0.003)
    }

    @Test func shufflingZeroOrOneElementsDrawsNothingAndChangesNothing() {
        var generator = SplitMix64(seed: 3)
        var twin = SplitMix64(seed: 3)
        var empty: [UInt32] = []
        var single: [UInt32] = [7]
        empty.withUnsafeMutableBufferPointer { generator.shuffle($0) }
        single.withUnsafeMutableBufferPointer { generator.shuffle($0) }
        #expect(empty.isEmpty && single == [7])
        #expect(generator.next() == twin.next())
    }

    @Test func everyOrderOfThreeElementsIsEquallyLikely() {
        var generator = SplitMix64(seed: 0x5_4FF1E)
        var counts: [[UInt32]: Int] = [:]
        for _ in 0..<60_000 {
            var values: [UInt32] = [0, 1, 2]
            values.withUnsafeMutableBufferPointer { generator.shuffle($0) }
            counts[values, default: 0] += 1
        }
        #expect(counts.count == 6)
        #expect(counts.values.allSatisfy { abs($0 - 10_000) < 500 }, "\(counts)")
    }

    @Test func aShuffleOfALargeBufferIsAPermutationThatMovesMostElements() {
        var generator = SplitMix64(seed: 0xFEED)
        var values = Array(0..<UInt32(10_000))
        values.withUnsafeMutableBufferPointer { generator.shuffle($0) }
        #expect(values.sorted() == Array(0..<10_000))
        let fixedPoints = values.enumerated().filter { UInt32($0.offset) == $0.element }.count
        #expect(fixedPoints < 10, "a random permutation has about one fixed point, not \(fixedPoints)")
        // Each element lands in the first half about half of the time.
        #expect(abs(values.prefix(5_000).filter { $0 < 5_000 }.count - 2_500) < 200)
    }
}
