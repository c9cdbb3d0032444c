import Glibc
import Testing

@testable import BenchCore

// More cases for the `PortableNaturalLogTests` suite declared in ScheduleTests.swift: published constants (not
// libm), values next to 1, powers of two, and portableLog2.
extension PortableNaturalLogTests {
    /// Within `relative` of `expected`, or within `relative` absolutely when `expected` is 0.
    private static func close(_ value: Double, _ expected: Double, relative: Double = 1e-14) -> Bool {
        expected == 0 ? abs(value) <= relative : abs(value - expected) <= abs(expected) * relative
    }

    /// The inputs among `xs` where portableNaturalLog is not within 1e-14 of `reference`.
    private static func misses(_ xs: [Double], reference: (Double) -> Double) -> [Double] {
        xs.filter { !close(portableNaturalLog($0), reference($0)) }
    }

    @Test(arguments: [
        (1, 0), (2, 0.693_147_180_559_945_309_417), (10, 2.302_585_092_994_045_684_018),
        (2.718_281_828_459_045_235_360, 1), (0.5, -0.693_147_180_559_945_309_417),
        (1e-300, -690.775_527_898_213_705_205_397), (1e300, 690.775_527_898_213_705_205_397),
        (.leastNonzeroMagnitude, -744.440_071_921_381_262_314_107),
        (2.225_073_858_507_201_4e-308, -708.396_418_532_264_106_224_1),
        (1.797_693_134_862_315_7e308, 709.782_712_893_383_996_732_2), (3, 1.098_612_288_668_109_691_396),
        (0.1, -2.302_585_092_994_045_684_018), (1_000_000, 13.815_510_557_964_274_104_107),
    ] as [(Double, Double)])
    func itMatchesPublishedValuesOfTheNaturalLogarithm(x: Double, expected: Double) {
        #expect(Self.close(portableNaturalLog(x), expected), "ln \(x) = \(portableNaturalLog(x)), not \(expected)")
    }

    @Test func valuesNextToOneKeepTheirRelativeAccuracy() {
        // ln(1 + ε) ≈ ε − ε²/2: the series must not lose the small result to cancellation.
        var neighbours: [Double] = []
        var above = 1.0
        var below = 1.0
        for _ in 0..<2_000 {
            above = above.nextUp
            below = below.nextDown
            neighbours += [above, below]
        }
        let misses = Self.misses(neighbours) { Glibc.log($0) }
        #expect(misses.count == 0, "e.g. \(misses.prefix(5))")
        for exponent in 1...52 {
            let epsilon = Double(sign: .plus, exponent: -exponent, significand: 1)
            #expect(Self.close(portableNaturalLog(1 + epsilon), Glibc.log1p(epsilon)), "ln(1 + 2^-\(exponent))")
            let below = 1 - epsilon / 2
            #expect(Self.close(portableNaturalLog(below), Glibc.log1p(-epsilon / 2)), "ln(1 − 2^-\(exponent + 1))")
        }
    }

    @Test func theRangeAroundTheSquareRootOfTwoSwitchPointIsContinuous() {
        // The significand is halved above √2; both sides of the switch must agree with libm.
        let root2 = 1.414_213_562_373_095_048_8
        var up = root2
        var down = root2
        var xs: [Double] = []
        for _ in 0..<1_000 {
            up = up.nextUp
            down = down.nextDown
            xs += [up, down, up / 2, down / 2, up * 1024, down * 0x1p-1030]
        }
        let misses = Self.misses(xs) { Glibc.log($0) }
        #expect(misses.count == 0, "e.g. \(misses.prefix(5))")
    }

    @Test func powersOfTwoAreExponentTimesLnTwoAndTheirLog2IsTheExponent() {
        var misses: [Int] = []
        for exponent in -1074...1023 {
            let x = exponent >= -1022
                ? Double(sign: .plus, exponent: exponent, significand: 1)
                : Double(bitPattern: 1 << UInt64(exponent + 1074))  // subnormal
            let ln = Double(exponent) * 0.693_147_180_559_945_309_417_232
            if !Self.close(portableNaturalLog(x), ln) || !Self.close(portableLog2(x), Double(exponent)) {
                misses.append(exponent)
            }
        }
        #expect(misses.count == 0, "exponents \(misses.prefix(5))")
    }

    @Test func itAgreesWithLibmOnRandomSubnormalsAndUnitIntervalDraws() {
        var random = SplitMix64(seed: 0x106)
        let subnormals = (0..<20_000).map { _ in Double(bitPattern: 1 + random.nextBounded(0x000F_FFFF_FFFF_FFFF)) }
        let units = (0..<20_000).map { _ in random.nextUnitInterval() }  // what SendSchedule feeds it
        let misses = Self.misses(subnormals + units) { Glibc.log($0) }
        #expect(misses.count == 0, "e.g. \(misses.prefix(5))")
        let log2Misses = units.filter { !Self.close(portableLog2($0), Glibc.log2($0), relative: 1e-13) }
        #expect(log2Misses.count == 0, "e.g. \(log2Misses.prefix(5))")
    }
}
