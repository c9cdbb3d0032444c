import Glibc
import Testing

@testable import BenchCore

@Suite struct SplitMix64Tests {
    @Test func theFirstOutputsForSeedZeroAreThePublishedReferenceValues() {
        var random = SplitMix64(seed: 0)
        #expect([random.next(), random.next(), random.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    @Test func aSeedAndStreamAlwaysGiveTheSameNumbersAndStreamsDiffer() {
        var first = SplitMix64(seed: 42, stream: 1)
        var again = SplitMix64(seed: 42, stream: 1)
        var other = SplitMix64(seed: 42, stream: 2)
        let a = (0..<100).map { _ in first.next() }
        #expect(a == (0..<100).map { _ in again.next() })
        #expect(a != (0..<100).map { _ in other.next() })
    }

    @Test(arguments: [1, 2, 3, 7, 1000, UInt64.max] as [UInt64])
    func boundedNumbersStayBelowTheirBound(bound: UInt64) {
        var random = SplitMix64(seed: bound)
        for _ in 0..<10_000 { #expect(random.nextBounded(bound) < bound) }
    }

    @Test func boundedNumbersAreRoughlyUniform() {
        var random = SplitMix64(seed: 5)
        var counts = [Int](repeating: 0, count: 6)
        for _ in 0..<600_000 { counts[Int(random.nextBounded(6))] += 1 }
        #expect(counts.allSatisfy { abs($0 - 100_000) < 5_000 }, "\(counts)")
    }

    @Test func unitIntervalDrawsAreNeverZero() {
        var random = SplitMix64(seed: 6)
        for _ in 0..<100_000 {
            let value = random.nextUnitInterval()
            #expect(value > 0 && value <= 1)
        }
    }

    @Test func aShuffleIsADeterministicPermutation() {
        func shuffled(seed: UInt64) -> [UInt32] {
            var values = Array(0..<UInt32(100))
            var random = SplitMix64(seed: seed)
            values.withUnsafeMutableBufferPointer { random.shuffle($0) }
            return values
        }
        #expect(shuffled(seed: 1).sorted() == Array(0..<100))
        #expect(shuffled(seed: 1) == shuffled(seed: 1))
        #expect(shuffled(seed: 1) != shuffled(seed: 2))
        #expect(shuffled(seed: 1) != Array(0..<100))
    }
}

@Suite struct PortableNaturalLogTests {
    @Test(arguments: [1.0, 2, 10, 2.718281828459045, 0.5, 1e-300, 1e300, Double.leastNonzeroMagnitude, 1.4142135623730951, 123_456.789])
    func itAgreesWithLibmToFourteenDigits(x: Double) {
        let expected = Glibc.log(x)
        #expect(abs(portableNaturalLog(x) - expected) <= max(abs(expected) * 1e-14, 1e-15), "ln \(x)")
    }

    @Test func itAgreesWithLibmOnRandomInputs() {
        var random = SplitMix64(seed: 8)
        for _ in 0..<100_000 {
            let x = Double(bitPattern: random.nextBounded(0x7FEF_FFFF_FFFF_FFFF) + 1)
            let expected = Glibc.log(x)
            #expect(abs(portableNaturalLog(x) - expected) <= max(abs(expected) * 1e-14, 1e-15))
        }
    }
}

@Suite struct SendScheduleTests {
    @Test func fixedArrivalsAreExactMultiplesOfTheInterval() {
        var random = SplitMix64(seed: 1)
        #expect(SendSchedule.offsets(count: 5, meanInterval: 7, arrival: .fixed, rng: &random) == [0, 7, 14, 21, 28])
    }

    @Test func poissonArrivalsAreReproducibleAscendingAndExponential() {
        var random = SplitMix64(seed: 9)
        let offsets = SendSchedule.offsets(count: 100_001, meanInterval: 1_000_000, arrival: .poisson, rng: &random)
        var again = SplitMix64(seed: 9)
        #expect(offsets == SendSchedule.offsets(count: 100_001, meanInterval: 1_000_000, arrival: .poisson, rng: &again))
        #expect(offsets.first == 0)
        #expect(offsets == offsets.sorted())
        let gaps = zip(offsets.dropFirst(), offsets).map { Double($0 - $1) }
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(mean - 1_000_000) < 20_000, "mean gap within 2% of the interval")
        let longer = Double(gaps.filter { $0 > 1_000_000 }.count) / Double(gaps.count)
        #expect(abs(longer - 0.367_879) < 0.02, "P(gap > mean) = 1/e for exponential gaps")
        var other = SplitMix64(seed: 10)
        #expect(offsets != SendSchedule.offsets(count: 100_001, meanInterval: 1_000_000, arrival: .poisson, rng: &other))
    }
}
