/// Why a CSV text could not be read.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line (from 1) where reading failed.
    public let line: Int
    public let reason: String

    public var description: String { "line \(line): \(reason)" }
}

/// Reads RFC 4180 CSV: quoted fields with commas, doubled quotes and line breaks; rows ending in CRLF or LF.
///
/// For the harness's own run folders (tests, and commands that read a saved run). A final line break does
/// not make an empty last row.
public enum CSVReader {
    /// Every row's fields, in order.
    public static func rows(_ text: String) throws(CSVError) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field: [UInt8] = []
        var quoted = false
        var fieldBegun = false  // a quote or a byte of the current field was seen
        var line = 1
        var bytes = Array(text.utf8)[...]
        func endField() {
            row.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldBegun = false
        }
        while let byte = bytes.popFirst() {
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if bytes.first == UInt8(ascii: "\"") {
                        field.append(byte)
                        bytes.removeFirst()
                    } else {
                        quoted = false
                        if let next = bytes.first, next != UInt8(ascii: ","), next != 10, next != 13 {
                            throw CSVError(line: line, reason: "text after a closing quote")
                        }
                    }
                } else {
                    if byte == 10 { line += 1 }
                    field.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard !fieldBegun else { throw CSVError(line: line, reason: "quote inside an unquoted field") }
                quoted = true
                fieldBegun = true
            case UInt8(ascii: ","):
                endField()
            case 13 where bytes.first == 10:
                continue
            case 10:
                endField()
                rows.append(row)
                row = []
                line += 1
            default:
                field.append(byte)
                fieldBegun = true
            }
        }
        guard !quoted else { throw CSVError(line: line, reason: "a quoted field is not closed") }
        if fieldBegun || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows
    }
}
