/// Why a CSV text could not be read.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line (from 1) where reading failed.
    public let line: Int
    public let reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}

/// Reads RFC 4180 CSV a chunk at a time: quoted fields with commas, doubled quotes and line breaks; rows ending in
/// CRLF or LF; a CR anywhere else is text, except after a closing quote, where only a line end may follow.
///
/// Memory holds one row at a time, whatever the file's size, so a run folder of millions of samples streams
/// through. A final line break does not make an empty last row.
public struct CSVParser {
    private enum State {
        case fieldStart, unquoted, carriageReturn, quoted, quoteInQuoted, carriageReturnAfterQuote
    }

    /// The longest field and the most fields a row may have: a run's files have short rows, and a file that is
    /// not CSV (or is endless) must not take the machine's memory.
    public static let maximumFieldBytes = 1 << 20
    public static let maximumFields = 1 << 12

    private var state = State.fieldStart
    private var field: [UInt8] = []
    private var row: [String] = []
    /// The line being read, from 1, for error messages.
    public private(set) var line = 1

    public init() {}

    /// Parses the next chunk of the text, calling `onRow` for each row it completes.
    public mutating func parse(
        _ chunk: UnsafeRawBufferPointer, _ onRow: ([String]) throws -> Void
    ) throws {
        for byte in chunk { try consume(byte, onRow) }
    }

    /// Ends the text: completes a last row without a line break.
    ///
    /// - Throws: ``CSVError`` when a quoted field is still open.
    public mutating func finish(_ onRow: ([String]) throws -> Void) throws {
        switch state {
        case .quoted:
            throw CSVError(line: line, reason: "a quoted field is not closed")
        case .fieldStart where row.isEmpty:
            return
        case .carriageReturn:
            field.append(13)
        case .fieldStart, .unquoted, .quoteInQuoted, .carriageReturnAfterQuote:
            break
        }
        try endRow(onRow)
    }

    private mutating func consume(_ byte: UInt8, _ onRow: ([String]) throws -> Void) throws {
        guard field.count < Self.maximumFieldBytes else {
            throw CSVError(line: line, reason: "a field longer than \(Self.maximumFieldBytes >> 20) MiB")
        }
        let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), lineFeed: UInt8 = 10, carriageReturn: UInt8 = 13
        switch state {
        case .fieldStart, .unquoted:
            switch byte {
            case quote where state == .fieldStart: state = .quoted
            case quote: throw CSVError(line: line, reason: "quote inside an unquoted field")
            case comma: try endField()
            case lineFeed: try endRow(onRow)
            case carriageReturn: state = .carriageReturn
            default:
                field.append(byte)
                state = .unquoted
            }
        case .carriageReturn:
            if byte == lineFeed {
                try endRow(onRow)
            } else {
                field.append(carriageReturn)
                state = .unquoted
                try consume(byte, onRow)
            }
        case .quoted:
            if byte == quote {
                state = .quoteInQuoted
            } else {
                if byte == lineFeed { line += 1 }
                field.append(byte)
            }
        case .quoteInQuoted:
            switch byte {
            case quote:
                field.append(quote)
                state = .quoted
            case comma: try endField()
            case lineFeed: try endRow(onRow)
            case carriageReturn: state = .carriageReturnAfterQuote
            default: throw CSVError(line: line, reason: "text after a closing quote")
            }
        case .carriageReturnAfterQuote:
            guard byte == lineFeed else { throw CSVError(line: line, reason: "text after a closing quote") }
            try endRow(onRow)
        }
    }

    private mutating func endField() throws {
        guard row.count < Self.maximumFields else {
            throw CSVError(line: line, reason: "a row of more than \(Self.maximumFields) fields")
        }
        row.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        state = .fieldStart
    }

    private mutating func endRow(_ onRow: ([String]) throws -> Void) throws {
        try endField()
        try onRow(row)
        row.removeAll(keepingCapacity: true)
        line += 1
    }
}

/// Reads a whole CSV text at once; see ``CSVParser`` for the rules.
public enum CSVReader {
    /// Every row's fields, in order.
    public static func rows(_ text: String) throws(CSVError) -> [[String]] {
        var parser = CSVParser()
        var rows: [[String]] = []
        do {
            var text = text
            try text.withUTF8 { try parser.parse(UnsafeRawBufferPointer($0)) { rows.append($0) } }
            try parser.finish { rows.append($0) }
        } catch let error as CSVError {
            throw error
        } catch {
            preconditionFailure("only CSVError is thrown: \(error)")
        }
        return rows
    }
}
