import Testing

@testable import BenchCore

// More cases for the `CSVReaderTests` suite declared in CSVTests.swift: line ends, empty and quoted fields, and
// the line that an error names, also after multi-line fields.
extension CSVReaderTests {
    @Test(arguments: [
        ("a", [["a"]]), ("a\n", [["a"]]), ("a\r\n", [["a"]]), ("a\r\nb\nc", [["a"], ["b"], ["c"]]),
        ("a,b\r\nc,d", [["a", "b"], ["c", "d"]]), ("\n", [[""]]), ("\r\n\r\n", [[""], [""]]),
        ("a,b\n\nc", [["a", "b"], [""], ["c"]]), (",\n", [["", ""]]), (",,", [["", "", ""]]), ("\"\"", [[""]]),
        ("\"\",\"\"\n", [["", ""]]), ("\"a\r\nb\"\r\n", [["a\r\nb"]]), ("\"a\rb\"", [["a\rb"]]),
        ("\"\"\"\"", [["\""]]), ("\"a,b\",c", [["a,b", "c"]]), ("a b , c", [["a b ", " c"]]),
        ("é,😀\r\n中", [["é", "😀"], ["中"]]), ("a\rb", [["a\rb"]]), ("a\nb,c,d\n", [["a"], ["b", "c", "d"]]),
        ("\"x\"\n\"y\"", [["x"], ["y"]]), ("\"say \"\"hi\"\"\",\"\"\"\"\"\"", [["say \"hi\"", "\"\""]]),
        ("\"\n\n\"\n", [["\n\n"]]), ("a,\"\"\r\n", [["a", ""]]),
    ] as [(String, [[String]])])
    func lineEndsEmptyFieldsAndQuotedFieldsAreReadAsRFC4180Says(text: String, rows: [[String]]) throws {
        #expect(try CSVReader.rows(text) == rows)
    }

    @Test(arguments: [
        ("\"open", 1, "a quoted field is not closed"), ("a\nb\n\"open,\nmore", 4, "a quoted field is not closed"),
        ("\"a\"\"", 1, "a quoted field is not closed"), ("a,\"b\r\n", 2, "a quoted field is not closed"),
        ("a\r\nb\r\n\"x\ny\"z", 4, "text after a closing quote"), ("\"a\" ,b", 1, "text after a closing quote"),
        ("a,b\r\nc,\"d\"e\r\n", 2, "text after a closing quote"), ("\"a\nb\nc\"x", 3, "text after a closing quote"),
        ("\"a\"\"\"b\"", 1, "text after a closing quote"), ("ok\r\nx\"y", 2, "quote inside an unquoted field"),
        ("ab\"", 1, "quote inside an unquoted field"), ("\"m\nl\",x\"", 2, "quote inside an unquoted field"),
    ] as [(String, Int, String)])
    func malformedTextIsRefusedWithTheLineWhereReadingFailed(text: String, line: Int, reason: String) {
        #expect(throws: CSVError(line: line, reason: reason)) { try CSVReader.rows(text) }
    }

    @Test func anErrorAfterThousandsOfMultiLineRowsNamesTheRightLine() throws {
        var random = SplitMix64(seed: 0x11E)
        var text = ""
        var rows: [[String]] = []
        for row in 0..<3_000 {
            let lines = Int(random.nextBounded(3))
            let separator = random.nextBounded(2) == 0 ? "\n" : "\r\n"
            let field = (0...lines).map { "r\(row)l\($0)" }.joined(separator: separator)
            rows.append([String(row), field])
            text += "\(row),\"\(field)\"" + (random.nextBounded(2) == 0 ? "\n" : "\r\n")
        }
        #expect(try CSVReader.rows(text) == rows)
        let line = 1 + text.utf8.filter { $0 == 10 }.count
        #expect(throws: CSVError(line: line, reason: "text after a closing quote")) {
            try CSVReader.rows(text + "x,\"closed\"then more\r\n")
        }
        #expect(throws: CSVError(line: line + 1, reason: "a quoted field is not closed")) {
            try CSVReader.rows(text + "x,\"never closed\n")
        }
    }

    @Test func anErrorDescribesItsLineAndReason() {
        let error = CSVError(line: 3, reason: "text after a closing quote")
        #expect(error.description == "line 3: text after a closing quote")
    }

    @Test func textAfterAClosingQuoteIsRefusedEvenWhenACarriageReturnComesFirst() {
        // A CR counts as a line end only when LF follows it, so `"a"<CR>b` is text after a closing quote.
        #expect(throws: CSVError(line: 1, reason: "text after a closing quote")) {
            try CSVReader.rows("\"a\"\rb,c\n")
        }
    }

    @Test func theSameTextSplitIntoChunksAtEveryByteGivesTheSameRows() throws {
        let text = "a,\"b,\"\"q\"\"\r\nz\",c\r\n1,2\r3,\"\"\n\n,\r\nlast"
        let whole = try CSVReader.rows(text)
        #expect(whole == [["a", "b,\"q\"\r\nz", "c"], ["1", "2\r3", ""], [""], ["", ""], ["last"]])
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var parser = CSVParser()
            var rows: [[String]] = []
            try bytes[..<split].withUnsafeBytes { try parser.parse($0) { rows.append($0) } }
            try bytes[split...].withUnsafeBytes { try parser.parse($0) { rows.append($0) } }
            try parser.finish { rows.append($0) }
            #expect(rows == whole, "split at \(split)")
        }
    }

    @Test func anEndlessFieldOrRowIsRefusedBeforeItTakesTheMemory() {
        #expect(throws: CSVError(line: 1, reason: "a field longer than 1 MiB")) {
            try CSVReader.rows(String(repeating: "0", count: CSVParser.maximumFieldBytes + 1))
        }
        #expect(throws: CSVError(line: 1, reason: "a row of more than 4096 fields")) {
            try CSVReader.rows(String(repeating: ",", count: CSVParser.maximumFields + 1))
        }
    }
}
