import Testing

@testable import BenchCore

@Suite struct CSVWriterTests {
    private func csv(_ body: (inout CSVWriter<ByteArraySink>) throws -> Void) throws -> String {
        var writer = CSVWriter(sink: ByteArraySink())
        try body(&writer)
        try writer.flush()
        return writer.sink.string
    }

    @Test func fieldsWithCommasQuotesOrLineBreaksAreQuotedAsRFC4180Says() throws {
        let text = try csv { writer in
            try writer.row(["plain", "a,b", "say \"hi\"", "two\nlines", "cr\r", ""])
        }
        #expect(text == "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\r\",\r\n")
    }

    @Test func numbersAreWrittenDigitByDigit() throws {
        let text = try csv { writer in
            writer.field(UInt64.max)
            writer.field(0 as UInt64)
            writer.field(Int.min)
            writer.field(-42)
            writer.field(microsecondsFromNanoseconds: 5)
            writer.field(microsecondsFromNanoseconds: 1_234_567)
            writer.field(microsecondsFromNanoseconds: 0)
            writer.emptyField()
            try writer.endRow()
        }
        #expect(text == "18446744073709551615,0,-9223372036854775808,-42,0.005,1234.567,0.000,\r\n")
    }

    @Test(arguments: [
        (99.95, 2, "99.95"), (1e-7, 3, "0.000"), (-1.25, 1, "-1.3"), (2.5, 0, "3"), (-0.0001, 2, "0.00"),
        (100, 3, "100.000"), (.nan, 2, ""), (.infinity, 1, ""), (0.1 + 0.2, 15, "0.300000000000000"),
    ] as [(Double, Int, String)])
    func decimalsAreFixedPointNeverExponents(value: Double, digits: Int, text: String) throws {
        #expect(try csv { writer in
            writer.field(value, fractionDigits: digits)
            try writer.endRow()
        } == text + "\r\n")
        #expect(DecimalText.fixed(value, fractionDigits: digits) == text)
    }

    @Test func outputLargerThanTheBufferArrivesWhole() throws {
        let text = try csv { writer in
            for row in 0..<100_000 {
                writer.field(UInt64(row))
                writer.field("row \(row), quoted")
                try writer.endRow()
            }
        }
        let rows = try CSVReader.rows(text)
        #expect(rows.count == 100_000)
        #expect(rows[99_999] == ["99999", "row 99999, quoted"])
        #expect(rows.enumerated().allSatisfy { $0.element[0] == String($0.offset) })
    }

    @Test func randomFieldsSurviveAWriteAndARead() throws {
        var random = SplitMix64(seed: 21)
        let alphabet = Array("ab,\"\r\n é€😀 x")
        let table = (0..<500).map { _ in
            (0..<(1 + random.nextBounded(6))).map { _ in
                String((0..<random.nextBounded(12)).map { _ in alphabet[Int(random.nextBounded(UInt64(alphabet.count)))] })
            }
        }
        let text = try csv { writer in
            for row in table { try writer.row(row) }
        }
        #expect(try CSVReader.rows(text) == table)
    }
}

@Suite struct CSVReaderTests {
    @Test(arguments: [
        ("a,b\r\nc,d\r\n", [["a", "b"], ["c", "d"]]), ("a,b\nc,d", [["a", "b"], ["c", "d"]]),
        ("a,,\n", [["a", "", ""]]), ("\"x\ny\",\"q\"\"q\"\n", [["x\ny", "q\"q"]]), (",\"a\"", [["", "a"]]),
        ("", []),
    ])
    func rowsAreReadAsRFC4180Describes(text: String, rows: [[String]]) throws {
        #expect(try CSVReader.rows(text) == rows)
    }

    @Test(arguments: [("a,\"open\n", 2, "a quoted field is not closed"), ("\"a\"b,c", 1, "text after a closing quote"),
                      ("ok\nx\"y", 2, "quote inside an unquoted field")])
    func malformedCSVNamesTheLine(text: String, line: Int, reason: String) {
        #expect(throws: CSVError(line: line, reason: reason)) { try CSVReader.rows(text) }
    }
}
