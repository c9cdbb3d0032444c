import BenchNet

/// Reading a whole text file, for commands that read a saved run folder.
public enum FileText {
    /// The file's bytes as UTF-8 text.
    public static func read(_ path: String) throws(SystemError) -> String {
        String(decoding: try Posix.readFile(path), as: UTF8.self)
    }
}
