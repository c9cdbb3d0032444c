import BenchCore
import BenchNet

/// Writes a file under a temporary name in the same folder and renames it into place once complete, so
/// that a reader, or a crash, never sees a half-written file under its real name.
public enum AtomicFile {
    /// Writes the CSV that `body` produces to `path`, atomically.
    public static func writeCSV(_ path: String, _ body: (inout CSVWriter<FileSink>) throws -> Void) throws {
        try write(path) { sink in
            var writer = CSVWriter(sink: sink)
            try body(&writer)
            try writer.flush()
        }
    }

    /// Writes `text` to `path`, atomically.
    public static func writeText(_ path: String, _ text: String) throws {
        try write(path) { sink in
            var text = text
            try text.withUTF8 { try sink.write(UnsafeRawBufferPointer($0)) }
        }
    }

    private static func write(_ path: String, _ body: (FileSink) throws -> Void) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(folder)/.\(name).tmp-\(Posix.processID)"
        do {
            let sink = try FileSink(creating: temporary)
            try body(sink)
            try sink.sync()
            try Posix.rename(temporary, to: path)
        } catch {
            try? Posix.unlink(temporary)
            throw error
        }
    }
}
