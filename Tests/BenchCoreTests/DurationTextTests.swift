import Testing

@testable import BenchCore

// More cases for the `DurationTextTests` suite declared in UnitTextTests.swift: limits, reasons, exact forms
// across the whole UInt64 range.
extension DurationTextTests {
    /// The shortest exact form, built independently: the largest unit not above the value, then the remainder
    /// as a zero-padded fraction with its trailing zeros removed.
    private static func expectedText(_ nanoseconds: UInt64) -> String {
        if nanoseconds == 0 { return "0" }
        let units: [(UInt64, Int, String)] = [(1_000_000_000, 9, "s"), (1_000_000, 6, "ms"), (1_000, 3, "us")]
        for (size, digits, suffix) in units where nanoseconds >= size {
            let remainder = String(nanoseconds % size)
            var fraction = String(repeating: "0", count: digits - remainder.count) + remainder
            while fraction.last == "0" { fraction.removeLast() }
            return "\(nanoseconds / size)" + (fraction.isEmpty ? "" : ".\(fraction)") + suffix
        }
        return "\(nanoseconds)ns"
    }

    @Test(arguments: [
        ("1ns", 1), ("0ns", 0), ("0s", 0), ("0.0s", 0), ("007ms", 7_000_000), ("1.10ms", 1_100_000),
        ("0.5us", 500), ("0.000000001s", 1), ("0.001us", 1), ("999.999999ms", 999_999_999),
        ("1844674407370955161ns", 1_844_674_407_370_955_161), ("18446744073709551us", 18_446_744_073_709_551_000),
        ("18446744073709ms", 18_446_744_073_709_000_000), ("18446744073s", 18_446_744_073_000_000_000),
        ("1844674407.370955161s", 1_844_674_407_370_955_161), ("0000000000000000001ns", 1),
    ] as [(String, UInt64)])
    func durationsAtTheLimitsOfPrecisionAndRangeAreRead(text: String, nanoseconds: UInt64) throws {
        #expect(try DurationText.parse(text) == nanoseconds)
    }

    @Test(arguments: [
        "18446744073709551616ns", "18446744073709552us", "18446744073710ms", "18446744074s", "0.0000000001s",
        "0.0005us", "1.5ns", "1844674407.37095516151s", ".5ms", "5.ms", "1..5ms", "+1ms", "1_000ns", "1,5ms",
        " 1ms", "1ms ", "1mss", "1sms", "1h", "1min", "١ms", "0x10ns", "nan s", "inf", "1 s ", " 1 s",
    ])
    func overflowsFractionsOfANanosecondAndOddSpellingsAreRefused(text: String) {
        #expect(throws: UnitError.self) { try DurationText.parse(text) }
    }

    @Test(arguments: ["10", "1.5", "0.0", "1844674407370955161", "007"])
    func aBareNumberIsRefusedForItsMissingUnitAndTheErrorKeepsTheText(text: String) {
        let error = #expect(throws: UnitError.self) { try DurationText.parse(text) }
        #expect(error?.text == text)
        #expect(error?.reason.contains("missing unit") == true, "\(String(describing: error))")
    }

    @Test(arguments: ["", "ms", "10m", "-1ms", "10 mS", "10MS", "1e3ms", "abc", "1.ms"])
    func textThatIsNotANumberIsNotBlamedOnAMissingUnit(text: String) {
        let error = #expect(throws: UnitError.self) { try DurationText.parse(text) }
        #expect(error?.text == text)
        #expect(error?.reason.contains("missing unit") == false, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("'\(text)': ") == true)
    }

    @Test(arguments: [
        (1, "1ns"), (1_001, "1.001us"), (10_100, "10.1us"), (999_999, "999.999us"), (999_999_999, "999.999999ms"),
        (1_000_000_000_000, "1000s"), (60_000_000_000, "60s"), (1_234_567_890, "1.23456789s"),
        (UInt64.max, "18446744073.709551615s"), (10_000_000_000_000_000_000, "10000000000s"),
    ] as [(UInt64, String)])
    func largeAndOddDurationsAreWrittenInTheirShortestExactForm(nanoseconds: UInt64, text: String) {
        #expect(DurationText.format(nanoseconds) == text)
        #expect(Self.expectedText(nanoseconds) == text, "the test's own reference agrees")
    }

    @Test func formattingMatchesAnIndependentReferenceAndReadsBackBelowTenToTheNineteen() throws {
        var random = SplitMix64(seed: 0xD0_2A71_0A)
        var failures: [String] = []
        for _ in 0..<20_000 {
            // Every magnitude from 1 bit to 64 bits, then kept below 10^19 ns (the limit of the next test).
            let bits = 1 + random.nextBounded(64)
            let value = (random.next() >> (64 - bits)) % 10_000_000_000_000_000_000
            let text = DurationText.format(value)
            if text != Self.expectedText(value) || (try? DurationText.parse(text)) != value {
                failures.append("\(value) → \(text)")
            }
        }
        #expect(failures.count == 0, "e.g. \(failures.prefix(5))")
    }

    @Test func theLargestDurationReadsInEveryUnitThatHoldsIt() throws {
        // 18446744073709551615ns is UInt64.max: 20 digits, or 11 whole and 9 decimal ones.
        let texts: [(String, UInt64)] = [
            ("18446744073709551615ns", .max), ("18446744073.709551615s", .max),
            ("10000000000000000000ns", 10_000_000_000_000_000_000), ("000000000000000000000001ns", 1),
            ("0.000000001000000000000000s", 1),
        ]
        for (text, nanoseconds) in texts {
            #expect(try DurationText.parse(text) == nanoseconds, "\(text)")
        }
    }

    @Test(arguments: ["18446744073709551616ns", "18446744073.709551616s", "99999999999999999999999s",
                      "0.0000000000000000000001s", "1.0000000001ms"])
    func durationsPastSixtyFourBitsOrFinerThanANanosecondAreRefusedNotTrapped(text: String) {
        #expect(throws: UnitError(text: text, reason: "not a whole number of nanoseconds, or too large")) {
            try DurationText.parse(text)
        }
    }

    @Test(arguments: [UInt64.max, 10_000_000_000_000_000_001, 12_345_678_901_234_567_891])
    func everyDurationFromTenToTheNineteenNanosecondsUpReadsBackTheSame(nanoseconds: UInt64) throws {
        // format gives 11 whole digits and 9 decimals (e.g. "18446744073.709551615s").
        let text = DurationText.format(nanoseconds)
        #expect(try DurationText.parse(text) == nanoseconds)
    }
}
