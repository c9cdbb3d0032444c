import Testing

@testable import BenchCore

/// A sink that keeps each write separately, to see when the writer hands its buffer over.
private struct ChunkSink: ByteSink {
    var chunks: [[UInt8]] = []

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        chunks.append(Array(bytes))
    }
}

/// A sink whose disk is full.
private struct FullDiskSink: ByteSink {
    struct DiskFull: Error, Equatable {}

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        throw DiskFull()
    }
}

/// RFC 4180 quoting, written here independently of the writer.
private func quoted(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
        return field
    }
    var result = "\""
    for character in field {
        if character == "\"" { result += "\"\"" } else { result.append(character) }
    }
    return result + "\""
}

// More cases for the `CSVWriterTests` suite declared in CSVTests.swift: every quoting case, integers and
// microseconds against Swift's own digits, buffering, sink errors, and large and random round trips.
extension CSVWriterTests {
    private func written(_ body: (inout CSVWriter<ByteArraySink>) throws -> Void) throws -> String {
        var writer = CSVWriter(sink: ByteArraySink())
        try body(&writer)
        try writer.flush()
        return writer.sink.string
    }

    @Test(arguments: [
        ("", ""), ("plain", "plain"), (" spaced ", " spaced "), ("tab\there", "tab\there"), ("é€😀", "é€😀"),
        (",", "\",\""), ("\"", "\"\"\"\""), ("\r", "\"\r\""), ("\n", "\"\n\""), ("\r\n", "\"\r\n\""),
        ("a\"b", "\"a\"\"b\""), ("\"\"", "\"\"\"\"\"\""), ("x,\"y\"\r\nz", "\"x,\"\"y\"\"\r\nz\""),
        ("'single'", "'single'"), ("semi;colon", "semi;colon"), ("ends with,", "\"ends with,\""),
    ] as [(String, String)])
    func eachFieldIsQuotedExactlyWhenItHoldsACommaQuoteCROrLF(field: String, text: String) throws {
        #expect(quoted(field) == text, "the test's own encoder agrees")
        let alone = try written { writer in try writer.row([field]) }
        let between = try written { writer in try writer.row(["a", field, "b"]) }
        #expect(alone == text + "\r\n")
        #expect(between == "a,\(text),b\r\n")
    }

    @Test func integersAreWrittenAsSwiftWritesThem() throws {
        var random = SplitMix64(seed: 0x1A7)
        var unsigned: [UInt64] = [0, 1, 9, 10, 99, 100, 999, 1000, UInt64.max, UInt64.max - 1, 1 << 63]
        var signed: [Int] = [0, -1, 1, -9, -10, 10, Int.max, Int.min, Int.min + 1]
        for _ in 0..<2_000 {
            let bits = 1 + random.nextBounded(64)
            unsigned.append(random.next() >> (64 - bits))
            signed.append(Int(truncatingIfNeeded: random.next() >> (64 - bits)))
        }
        let text = try written { writer in
            for value in unsigned { writer.field(value) }
            try writer.endRow()
            for value in signed { writer.field(value) }
            try writer.endRow()
        }
        let expected = unsigned.map { String($0) }.joined(separator: ",") + "\r\n"
            + signed.map { String($0) }.joined(separator: ",") + "\r\n"
        #expect(text == expected)
    }

    @Test func microsecondsHaveThreeDecimalsTakenFromTheIntegerNanoseconds() throws {
        var random = SplitMix64(seed: 0x05EC)
        var values: [UInt64] = [0, 1, 5, 10, 99, 999, 1_000, 1_001, 1_010, 1_100, 1_234_567, UInt64.max]
        for _ in 0..<2_000 { values.append(random.next() >> (64 - (1 + random.nextBounded(64)))) }
        let text = try written { writer in
            for value in values { writer.field(microsecondsFromNanoseconds: value) }
            try writer.endRow()
        }
        let expected = values.map { value -> String in
            let fraction = String(value % 1000)
            return "\(value / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
        }
        #expect(text == expected.joined(separator: ",") + "\r\n")
        #expect(expected[values.firstIndex(of: .max)!] == "18446744073709551.615", "the test's own digits")
    }

    @Test func emptyFieldsKeepTheirPlaceAnywhereInARow() throws {
        let text = try written { writer in
            writer.emptyField()
            try writer.endRow()
            writer.emptyField()
            writer.field("a")
            writer.emptyField()
            try writer.endRow()
            writer.field(1 as UInt64)
            writer.emptyField()
            writer.emptyField()
            writer.field(2)
            try writer.endRow()
            try writer.row(["", ""])
        }
        #expect(text == "\r\n,a,\r\n1,,,2\r\n,\r\n")
        #expect(try CSVReader.rows(text) == [[""], ["", "a", ""], ["1", "", "", "2"], ["", ""]])
    }

    @Test func nothingReachesTheSinkBeforeTheBufferFillsOrAFlushAndAFlushSendsItOnce() throws {
        var writer = CSVWriter(sink: ChunkSink())
        for row in 0..<100 { try writer.row(["row", String(row)]) }
        #expect(writer.sink.chunks.isEmpty)
        try writer.flush()
        try writer.flush()
        #expect(writer.sink.chunks.count == 1)
        let expected = (0..<100).map { "row,\($0)\r\n" }.joined()
        #expect(String(decoding: writer.sink.chunks[0], as: UTF8.self) == expected)
    }

    @Test func aFullBufferIsSentAtTheEndOfARowInWholeRows() throws {
        var writer = CSVWriter(sink: ChunkSink())
        let longest = 1_000
        var random = SplitMix64(seed: 0xB0F)
        var expected = ""
        for row in 0..<2_000 {
            let field = String(repeating: "x", count: Int(random.nextBounded(UInt64(longest))))
            try writer.row([String(row), field])
            expected += "\(row),\(field)\r\n"
        }
        let sentBeforeFlush = writer.sink.chunks.count
        try writer.flush()
        let chunks = writer.sink.chunks
        #expect(sentBeforeFlush > 1, "a megabyte of rows goes out before the flush, in several writes")
        for chunk in chunks.prefix(sentBeforeFlush) {
            #expect(chunk.count >= 64 << 10 && chunk.count < (64 << 10) + longest + 10, "\(chunk.count)")
            #expect(chunk.suffix(2) == [13, 10])
        }
        #expect(String(decoding: chunks.joined(), as: UTF8.self) == expected)
    }

    @Test func aSinkErrorComesOutOfTheFlushOrTheRowThatFilledTheBuffer() throws {
        var writer = CSVWriter(sink: FullDiskSink())
        try writer.row(["small"])
        #expect(throws: FullDiskSink.DiskFull()) { try writer.flush() }

        var filling = CSVWriter(sink: FullDiskSink())
        let big = String(repeating: "y", count: 70_000)
        #expect(throws: FullDiskSink.DiskFull()) { try filling.row([big]) }
    }

    @Test func oneHundredThousandMixedRowsReadBackFieldForField() throws {
        var random = SplitMix64(seed: 0x100_000)
        var expected: [[String]] = []
        expected.reserveCapacity(100_000)
        var writer = CSVWriter(sink: ByteArraySink())
        for row in 0..<100_000 {
            let nanoseconds = random.next() >> 20
            let signed = Int(truncatingIfNeeded: random.next())
            let text = row % 7 == 0 ? "row \(row), \"seven\"\r\nnext" : "row\(row)"
            writer.field(UInt64(row))
            writer.field(signed)
            writer.field(microsecondsFromNanoseconds: nanoseconds)
            writer.field(text)
            writer.emptyField()
            writer.field(Double(row) / 8, fractionDigits: 3)
            try writer.endRow()
            let fraction = String(nanoseconds % 1000)
            let eighths = ["000", "125", "250", "375", "500", "625", "750", "875"][row % 8]
            expected.append([
                String(row), String(signed),
                "\(nanoseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction,
                text, "", "\(row / 8).\(eighths)",
            ])
        }
        try writer.flush()
        #expect(writer.sink.bytes.count > 64 << 10)
        let rows = try CSVReader.rows(writer.sink.string)
        #expect(rows.count == expected.count)
        var mismatches: [Int] = []
        for (index, (row, want)) in zip(rows, expected).enumerated() where row != want { mismatches.append(index) }
        #expect(mismatches.isEmpty, "first mismatching rows: \(mismatches.prefix(5))")
    }

    @Test func randomFieldsAreWrittenAsAnIndependentEncoderWritesThemAndReadBack() throws {
        var random = SplitMix64(seed: 0xC5F)
        let alphabet: [String] = [
            "a", "Z", "0", " ", ",", "\"", "\r", "\n", "\r\n", "\t", "é", "e\u{301}", "€", "😀", "👩‍👩‍👧", "中", ";", "'",
        ]
        var table: [[String]] = []
        for _ in 0..<2_000 {
            let fields = 1 + Int(random.nextBounded(10))
            table.append((0..<fields).map { _ in
                (0..<random.nextBounded(20)).map { _ in alphabet[Int(random.nextBounded(UInt64(alphabet.count)))] }
                    .joined()
            })
        }
        let text = try written { writer in
            for row in table { try writer.row(row) }
        }
        let expected = table.map { $0.map(quoted).joined(separator: ",") + "\r\n" }.joined()
        #expect(Array(text.utf8) == Array(expected.utf8))
        let rows = try CSVReader.rows(text)
        #expect(rows.count == table.count)
        // Compare bytes, not Strings: String equality would accept a canonically equivalent spelling.
        #expect(rows.map { $0.map { Array($0.utf8) } } == table.map { $0.map { Array($0.utf8) } })
    }
}
