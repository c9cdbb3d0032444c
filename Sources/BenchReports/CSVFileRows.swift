import BenchCore
import BenchNet

/// A CSV file of a run folder read row by row, its columns found by name in the header: memory holds one row,
/// whatever the file's size.
enum CSVFileRows {
    /// One row's values of the asked-for columns, in that order, and where it is, for messages.
    struct Row {
        let values: [String]
        let line: Int
        let path: String

        subscript(_ column: Int) -> String { values[column] }

        /// A time or duration cell: nil when empty (never happened, or lost); an error when it is not a whole
        /// number of nanoseconds no run can exceed: the file was not written by a run.
        func nanoseconds(_ column: Int, named name: String) throws -> UInt64? {
            let cell = values[column]
            if cell.isEmpty { return nil }
            guard let value = UInt64(cell), value <= SavedRun.largestTime else {
                throw SavedRun.LoadError(
                    description: "\(path) line \(line): \(name) '\(cell.prefix(40))' is not a time a run can measure")
            }
            return value
        }
    }

    /// Calls `body` with each row's values of `columns`.
    ///
    /// - Throws: ``SavedRun/LoadError`` naming the file and line when it cannot be read, is not CSV, lacks one of
    ///   `columns`, or has a row whose field count differs from the header's (a truncated or damaged file).
    ///
    /// A column named `interval` may be missing (runs written before it existed): its value is then empty. With
    /// `tolerant`, a last row without its line end (a file cut off by a kill) is not read, and a file without a whole
    /// header (or no file at all) has no rows.
    static func read(_ path: String, columns: [String], tolerant: Bool = false, _ body: (Row) throws -> Void) throws {
        if tolerant && !Posix.fileExists(path) { return }  // killed before it was created: no rows
        var parser = CSVParser()
        var positions: [Int]?
        var headerCount = 0
        var line = 1
        var finishing = false
        func handle(_ fields: [String]) throws {
            defer { line += 1 }
            if finishing && tolerant { return }
            guard let positions else {
                headerCount = fields.count
                positions = try columns.map { column in
                    guard let position = fields.firstIndex(of: column) else {
                        if column == "interval" { return -1 }
                        throw SavedRun.LoadError(description: "\(path) has no column \(column)")
                    }
                    return position
                }
                return
            }
            guard fields.count == headerCount else {
                throw SavedRun.LoadError(
                    description: "\(path) line \(line) has \(fields.count) fields, the header \(headerCount)")
            }
            try body(Row(values: positions.map { $0 < 0 ? "" : fields[$0] }, line: line, path: path))
        }
        do {
            try Posix.forEachChunk(ofFile: path) { chunk in try parser.parse(chunk, handle) }
            finishing = true
            try parser.finish(handle)
        } catch let error as CSVError {
            throw SavedRun.LoadError(description: "\(path): \(error)")
        } catch let error as SystemError {
            throw SavedRun.LoadError(description: "cannot read \(path) (\(error))")
        }
        // A file cut off by a kill before its header was whole holds nothing whole: no rows.
        guard positions != nil || tolerant else { throw SavedRun.LoadError(description: "\(path) is empty") }
    }

    /// The header's fields: the file is read only as far as its first row.
    static func header(of path: String) throws -> [String] {
        struct Read: Error {}
        var parser = CSVParser()
        var header: [String] = []
        do {
            try Posix.forEachChunk(ofFile: path) { chunk in
                try parser.parse(chunk) { fields in
                    header = fields
                    throw Read()
                }
            }
        } catch is Read {}
        return header
    }
}
