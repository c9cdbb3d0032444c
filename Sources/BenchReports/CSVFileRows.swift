import BenchCore
import BenchNet

/// A CSV file of a run folder read row by row, its columns found by name in the header: memory holds one row,
/// whatever the file's size.
enum CSVFileRows {
    /// Calls `body` with each row's values of `columns`, in that order (nil for a column the file does not have).
    ///
    /// - Throws: ``SavedRun/LoadError`` naming the file when it cannot be read or is not CSV.
    static func read(_ path: String, columns: [String], _ body: ([String?]) throws -> Void) throws {
        var parser = CSVParser()
        var positions: [Int?]?
        var values = [String?](repeating: nil, count: columns.count)
        func handle(_ row: [String]) throws {
            guard let positions else {
                positions = columns.map { row.firstIndex(of: $0) }
                return
            }
            for (slot, position) in positions.enumerated() {
                values[slot] = position.flatMap { $0 < row.count ? row[$0] : nil }
            }
            try body(values)
        }
        do {
            try Posix.forEachChunk(ofFile: path) { chunk in try parser.parse(chunk, handle) }
            try parser.finish(handle)
        } catch let error as CSVError {
            throw SavedRun.LoadError(description: "\(path): \(error)")
        } catch let error as SystemError {
            throw SavedRun.LoadError(description: "cannot read \(path) (\(error))")
        }
        guard positions != nil else { throw SavedRun.LoadError(description: "\(path) is empty") }
    }
}
