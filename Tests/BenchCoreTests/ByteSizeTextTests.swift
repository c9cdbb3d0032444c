import Testing

@testable import BenchCore

// More cases for the `ByteSizeTextTests` suite declared in UnitTextTests.swift: limits, reasons and a seeded
// round trip.
extension ByteSizeTextTests {
    @Test(arguments: [
        ("0B", 0), ("0KiB", 0), ("0MiB", 0), ("00064B", 64), ("1B", 1), ("1023B", 1023), ("1536B", 1536),
        ("1024KiB", 1 << 20), ("3KiB", 3072), ("9223372036854775807", Int.max), ("9223372036854775807B", Int.max),
        ("8796093022207MiB", Int.max - (1 << 20) + 1), ("9007199254740991KiB", (Int.max >> 10) << 10),
    ] as [(String, Int)])
    func sizesAtTheLimitsAreRead(text: String, bytes: Int) throws {
        #expect(try ByteSizeText.parse(text) == bytes)
    }

    @Test(arguments: ["8796093022208MiB", "9007199254740992KiB", "9223372036854775808", "9223372036854775808B"])
    func sizesBeyondSixtyThreeBitsAreRefused(text: String) {
        let error = #expect(throws: UnitError.self) { try ByteSizeText.parse(text) }
        #expect(error?.text == text)
    }

    @Test func aSizeThatOverflowsOnlyInItsUnitIsTooLarge() {
        #expect(throws: UnitError(text: "8796093022208MiB", reason: "too large")) {
            try ByteSizeText.parse("8796093022208MiB")
        }
    }

    @Test(arguments: [
        "B", "MiB", "1b", "1kib", "1Kib", "1MB", "1GiB", "1 B", " 1B", "1B ", "+1", "1_024", "1,024", "0x40", "１",
        "1.0B", "1e3", "1KiBB", "1BKiB",
    ])
    func oddSpellingsOfSizesAreRefusedWithTheirText(text: String) {
        let error = #expect(throws: UnitError.self) { try ByteSizeText.parse(text) }
        #expect(error?.text == text)
        #expect(error?.description.hasPrefix("'\(text)': ") == true)
    }

    @Test func everySizeIsWrittenInTheLargestUnitThatDividesItAndReadsBackTheSame() throws {
        var random = SplitMix64(seed: 0xB17E5)
        var failures: [String] = []
        for _ in 0..<20_000 {
            // Whole MiB, whole KiB and odd byte counts, of every magnitude up to 2^40 units.
            let unit = [1, 1 << 10, 1 << 20][Int(random.nextBounded(3))]
            let bits = 1 + random.nextBounded(40)
            let size = Int(random.next() >> (64 - bits)) * unit
            let text = ByteSizeText.format(size)
            let expected =
                size != 0 && size % (1 << 20) == 0 ? "\(size >> 20)MiB"
                : size != 0 && size % (1 << 10) == 0 ? "\(size >> 10)KiB" : "\(size)B"
            if text != expected || (try? ByteSizeText.parse(text)) != size { failures.append("\(size) → \(text)") }
        }
        #expect(failures.count == 0, "e.g. \(failures.prefix(5))")
    }
}
