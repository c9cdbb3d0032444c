import Testing

@testable import BenchCore

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("0", 0), ("250ns", 250), ("10us", 10_000), ("1.5ms", 1_500_000), ("2s", 2_000_000_000),
        ("0.000001s", 1_000), ("1.000000001s", 1_000_000_001), ("0ms", 0),
    ] as [(String, UInt64)])
    func durationsAreReadToTheNanosecond(text: String, nanoseconds: UInt64) throws {
        #expect(try DurationText.parse(text) == nanoseconds)
    }

    @Test(arguments: ["", "10", "-1ms", "10m", "10 mss", "10MS", "0.5ns", "1e3ms", "ms", "1.ms", "99999999999999999999s"])
    func malformedDurationsAreRefused(text: String) {
        #expect(throws: UnitError.self) { try DurationText.parse(text) }
    }

    @Test func aBareNumberOtherThanZeroIsMissingItsUnit() {
        #expect(throws: UnitError(text: "10", reason: "missing unit (ns, us, ms, s)")) { try DurationText.parse("10") }
    }

    @Test(arguments: [
        (0, "0"), (250, "250ns"), (1_000, "1us"), (1_500_000, "1.5ms"), (10_000_000, "10ms"), (2_000_000_000, "2s"),
        (1_000_000_001, "1.000000001s"), (999, "999ns"),
    ] as [(UInt64, String)])
    func durationsAreWrittenInTheirShortestExactForm(nanoseconds: UInt64, text: String) {
        #expect(DurationText.format(nanoseconds) == text)
    }

    @Test func everyFormattedDurationReadsBackTheSame() throws {
        var random = SplitMix64(seed: 3)
        for _ in 0..<20_000 {
            let value = random.nextBounded(1 << UInt64(1 + random.nextBounded(50)))
            #expect(try DurationText.parse(DurationText.format(value)) == value)
        }
    }
}

@Suite struct ByteSizeTextTests {
    @Test(arguments: [("64", 64), ("64B", 64), ("1KiB", 1024), ("2MiB", 2 << 20), ("0", 0)] as [(String, Int)])
    func sizesAreRead(text: String, bytes: Int) throws {
        #expect(try ByteSizeText.parse(text) == bytes)
    }

    @Test(arguments: ["1KB", "1k", "-1", "1.5KiB", "", "KiB", "1 KiB", "99999999999999999999"])
    func malformedSizesAreRefused(text: String) {
        #expect(throws: UnitError.self) { try ByteSizeText.parse(text) }
    }

    @Test(arguments: [(64, "64B"), (1024, "1KiB"), (1536, "1536B"), (1 << 20, "1MiB"), (0, "0B")] as [(Int, String)])
    func sizesAreWrittenInTheLargestWholeUnit(bytes: Int, text: String) throws {
        #expect(ByteSizeText.format(bytes) == text)
        #expect(try ByteSizeText.parse(text) == bytes)
    }
}

@Suite struct RunLengthTextTests {
    @Test(arguments: [("5m", 300_000_000_000), ("90min", 5_400_000_000_000), ("1.5h", 5_400_000_000_000),
        ("250ms", 250_000_000), ("2s", 2_000_000_000)] as [(String, UInt64)])
    func aRunsLengthTakesMinutesAndHours(text: String, nanoseconds: UInt64) throws {
        #expect(try DurationText.parseRunLength(text) == nanoseconds)
    }

    @Test func onlyARunsLengthDoes() {
        #expect(throws: UnitError.self) { try DurationText.parse("5m") }
        #expect(throws: UnitError.self) { try DurationText.parseRunLength("5d") }
        #expect(throws: UnitError.self) { try DurationText.parseRunLength("m") }
    }
}
