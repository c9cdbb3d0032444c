import Testing

@testable import BenchCore

@Suite struct DecimalTextTests {
    /// `value` rounded half away from zero to `digits` decimals, from its exact binary value (`m · 2^e`) in
    /// 128-bit integers, for |value| below 2^70: an oracle that shares no arithmetic with DecimalText.
    static func exactFixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "" }
        precondition(value.magnitude < 0x1p70 && (0...15).contains(digits))
        var scale: UInt128 = 1
        for _ in 0..<digits { scale *= 10 }
        let magnitude = value.magnitude
        var scaled: UInt128 = 0
        if magnitude != 0 {
            let significand = UInt128(magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0))
            let exponent = magnitude.isNormal ? Int(magnitude.exponentBitPattern) - 1075 : -1074
            if exponent >= 0 {
                scaled = (significand << exponent) * scale
            } else if -exponent < 120 {
                let shift = -exponent
                let numerator = significand * scale
                scaled = numerator >> shift
                if numerator - (scaled << shift) >= (1 as UInt128) << (shift - 1) { scaled += 1 }
            }
        }
        let fraction = String(scaled % scale)
        return (value < 0 && scaled != 0 ? "-" : "") + String(scaled / scale)
            + (digits > 0 ? "." + String(repeating: "0", count: digits - fraction.count) + fraction : "")
    }

    private static func csvField(_ write: (inout CSVWriter<ByteArraySink>) -> Void) throws -> String {
        var writer = CSVWriter(sink: ByteArraySink())
        write(&writer)
        try writer.endRow()
        try writer.flush()
        let text = writer.sink.string
        #expect(text.hasSuffix("\r\n"))
        return String(text.dropLast())  // "\r\n" is one Character
    }

    @Test(arguments: [
        (99.95, 2, "99.95"), (1e-7, 3, "0.000"), (-1.25, 1, "-1.3"), (2.5, 0, "3"), (-0.0001, 2, "0.00"),
        (.nan, 2, ""), (.infinity, 1, ""), (-.infinity, 0, ""), (0.5, 0, "1"), (-0.5, 0, "-1"), (1.5, 0, "2"),
        (-0.0, 3, "0.000"), (0, 0, "0"), (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (0.375, 2, "0.38"),
        (1e15, 0, "1000000000000000"), (1, 15, "1.000000000000000"), (0.1, 15, "0.100000000000000"),
        (100, 3, "100.000"), (-0.004, 2, "0.00"), (-0.005, 2, "-0.01"), (0.0049999, 2, "0.00"),
        (0x1p-1063, 3, "0.000"), (-.leastNonzeroMagnitude, 0, "0"), (12_345.678_9, 0, "12346"), (99.999, 2, "100.00"),
    ] as [(Double, Int, String)])
    func fixedRoundsHalfAwayFromZeroWithoutExponents(value: Double, digits: Int, text: String) throws {
        #expect(DecimalText.fixed(value, fractionDigits: digits) == text)
        #expect(Self.exactFixed(value, digits) == text, "the test's own oracle agrees")
        let field = try Self.csvField { writer in writer.field(value, fractionDigits: digits) }
        #expect(field == text)
    }

    /// Seeded random doubles with `|value| · 10^digits` below 2^30 (where even rounding that product to a double
    /// first could not reach a tie by accident; see the tests below for where it could): random bits of every
    /// magnitude from 2^-30 up, and exact ties j / 2^(digits+1), j odd.
    private static func randomValues(count: Int, seed: UInt64) -> [(Double, Int)] {
        var random = SplitMix64(seed: seed)
        var values: [(Double, Int)] = []
        while values.count < count {
            let digits = Int(random.nextBounded(7))
            let sign: FloatingPointSign = random.nextBounded(2) == 0 ? .plus : .minus
            let value = random.nextBounded(4) == 0
                ? Double(sign: sign, exponent: -(digits + 1), significand: Double(2 * random.nextBounded(1 << 20) + 1))
                : Double(sign: sign, exponent: Int(random.nextBounded(61)) - 30,
                         significand: 1 + Double(random.next() >> 12) * 0x1p-52)
            var limit = 0x1p30
            for _ in 0..<digits { limit /= 10 }
            if value.magnitude < limit { values.append((value, digits)) }
        }
        return values
    }

    @Test func fixedMatchesTheExactRoundingOfRandomDoublesAndTheCSVWriter() throws {
        let values = Self.randomValues(count: 20_000, seed: 0xF1_8ED)
        var mismatches: [String] = []
        var writer = CSVWriter(sink: ByteArraySink())
        for (value, digits) in values {
            let text = DecimalText.fixed(value, fractionDigits: digits)
            if text != Self.exactFixed(value, digits) { mismatches.append("\(value) to \(digits): \(text)") }
            writer.field(value, fractionDigits: digits)
        }
        try writer.endRow()
        try writer.flush()
        #expect(mismatches.count == 0, "e.g. \(mismatches.prefix(5))")
        let fields = values.map { DecimalText.fixed($0.0, fractionDigits: $0.1) }
        #expect(writer.sink.string == fields.joined(separator: ",") + "\r\n")
    }

    @Test func microsecondsMatchTheCSVWriterAndIntegerArithmetic() throws {
        var random = SplitMix64(seed: 0x3_5EC)
        var values: [UInt64] = [0, 1, 5, 9, 10, 99, 100, 999, 1_000, 1_001, 1_234_567, 999_999_999, UInt64.max]
        for _ in 0..<5_000 { values.append(random.next() >> (64 - (1 + random.nextBounded(64)))) }
        var writer = CSVWriter(sink: ByteArraySink())
        var failures: [UInt64] = []
        for value in values {
            let text = DecimalText.microseconds(fromNanoseconds: value)
            let fraction = String(value % 1000)
            if text != "\(value / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction {
                failures.append(value)
            }
            writer.field(microsecondsFromNanoseconds: value)
        }
        #expect(failures.count == 0, "e.g. \(failures.prefix(5))")
        try writer.endRow()
        try writer.flush()
        let texts = values.map { DecimalText.microseconds(fromNanoseconds: $0) }
        #expect(writer.sink.string == texts.joined(separator: ",") + "\r\n")
        #expect(texts.prefix(3) == ["0.000", "0.001", "0.005"])
        #expect(DecimalText.microseconds(fromNanoseconds: .max) == "18446744073709551.615")
    }

    @Test func integersAreAppendedAsTheirDecimalDigits() {
        var random = SplitMix64(seed: 0x1_17)
        let values = [0, 9, 10, UInt64.max] + (0..<5_000).map { _ in random.next() >> random.nextBounded(64) }
        let failures = values.filter { value in
            var bytes: [UInt8] = [UInt8(ascii: "#")]
            DecimalText.appendInteger(value, to: &bytes)
            return String(decoding: bytes, as: UTF8.self) != "#\(value)"
        }
        #expect(failures.count == 0, "e.g. \(failures.prefix(5))")
    }

    @Test(arguments: [
        (1e20, 0, "100000000000000000000"), (-3e19, 0, "-30000000000000000000"),
        (1e18, 2, "1000000000000000000.00"), (20_000, 15, "20000.000000000000000"),
        (1.8e16, 3, "18000000000000000.000"),
    ] as [(Double, Int, String)])
    func valuesTooLargeForSixtyFourBitsOnceScaledAreStillFixedPoint(value: Double, digits: Int, text: String) {
        // |value| · 10^digits ≥ 1.8e19 overflows 64 bits: still all the digits and exactly `digits` decimals,
        // not `Double.description` ("1e+20", or "20000.0" with one decimal).
        #expect(Self.exactFixed(value, digits) == text, "the test's own oracle agrees")
        #expect(DecimalText.fixed(value, fractionDigits: digits) == text)
    }

    @Test func hugeValuesAreWrittenAsTheirExactIntegerDigits() throws {
        // Beyond the oracle's 2^70: the expected digits come from Python's exact `'%.2f' % 1e300` and
        // `'%.0f' % -sys.float_info.max` (the double's binary value, not the decimal literal 1e300).
        let e300 = "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864"
            + "043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953"
            + "234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"
        #expect(DecimalText.fixed(1e300, fractionDigits: 2) == e300 + ".00")
        let greatest = "-17976931348623157081452742373170435679807056752584499659891747680315726078002853876058955863276687"
            + "817154045895351438246423432132688946418276846754670353751698604991057655128207624549009038932894407586"
            + "850845513394230458323690322294816580855933212334827479782620414472316873817718091929988125040402618412"
            + "4858368"
        #expect(DecimalText.fixed(-.greatestFiniteMagnitude, fractionDigits: 0) == greatest)
        #expect(try Self.csvField { writer in writer.field(-.greatestFiniteMagnitude, fractionDigits: 0) } == greatest)
        #expect(DecimalText.fixed(0x1p53, fractionDigits: 1) == "9007199254740992.0")
        #expect(DecimalText.fixed(-0x1p64, fractionDigits: 3) == "-18446744073709551616.000")
    }

    @Test func sixteenSignificantDigitsAreRoundedFromTheExactValue() {
        // Near 2^50 after scaling, a double has a spacing of 1/8, so value · 10^digits rounded to a double would
        // often land on an exact .5 that the true value does not reach (or passes): the last digit would be one
        // unit off. Rounding the exact binary value matches the oracle every time.
        var random = SplitMix64(seed: 0x16D)
        var mismatches: [String] = []
        for _ in 0..<2_000 {
            let digits = Int(random.nextBounded(7))
            var value = Double(random.nextBounded(1 << 50)) + Double(random.next() >> 11) * 0x1p-53
            for _ in 0..<digits { value /= 10 }
            let text = DecimalText.fixed(value, fractionDigits: digits)
            if text != Self.exactFixed(value, digits) { mismatches.append("\(value) to \(digits): \(text)") }
        }
        #expect(mismatches.count == 0, "\(mismatches.count) of 2000 off in the last digit: \(mismatches.prefix(3))")
    }

    @Test(arguments: [
        (2.675, 2, "2.67"), (-2.675, 2, "-2.67"), (0.015, 2, "0.01"), (0.045, 2, "0.04"), (0.185, 2, "0.18"),
        (123.456, 15, "123.456000000000003"),
    ] as [(Double, Int, String)])
    func roundingUsesTheExactValueNotTheValueTimesAPowerOfTenRoundedToADouble(
        value: Double, digits: Int, text: String
    ) {
        // 2.675 is stored as 2.67499999999999982236431605997495353221893310546875, so rounded to 2 decimals it
        // is 2.67 (printf's %.2f agrees), even though 2.675 · 100 rounded to a double is exactly 267.5, which
        // would round up to 2.68. The stored value decides, as it does for 1.005 → "1.00".
        #expect(Self.exactFixed(value, digits) == text, "the test's own oracle agrees")
        #expect(DecimalText.fixed(value, fractionDigits: digits) == text)
    }

    /// The shortest of the fixed text: trailing zeros and a bare point go, the integer part stays whole.
    @Test(arguments: [(99.5, 3, "99.5"), (100, 3, "100"), (95, 2, "95"), (0.001, 3, "0.001"), (1e-7, 3, "0"), (10, 0, "10")])
    func trimmedTextDropsOnlyTheDecimalsItDoesNotNeed(value: Double, digits: Int, text: String) {
        #expect(DecimalText.trimmed(value, fractionDigits: digits) == text)
    }
}
