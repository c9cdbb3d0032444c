import BenchNet
import CBenchLinux
import Glibc

/// The folder of one run, `<out>/<scenario>-<UTC yyyyMMdd-HHmmss>[-n]`, published atomically.
///
/// It is made as a hidden temporary folder in `<out>` before the run starts (so an unwritable `--out` fails
/// before any load), filled after the run, then renamed to its real name in one step: a reader never sees
/// a half-written run folder under a real name, and a crash leaves only the hidden folder behind.
public struct RunFolder: Sendable {
    /// The folder the run folders go in.
    public let parent: String
    /// The hidden folder being filled.
    public let temporaryPath: String

    /// Creates `parent` if needed and a hidden temporary folder in it.
    public static func prepare(in parent: String) throws(SystemError) -> RunFolder {
        try makeDirectories(parent)
        let template = "\(parent)/.bench-run-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard let made = bytes.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemError("mkdtemp \(parent)", errno: Glibc.errno)
        }
        return RunFolder(parent: parent, temporaryPath: String(cString: made))
    }

    /// The path of `file` inside the folder being filled.
    public func path(of file: String) -> String {
        "\(temporaryPath)/\(file)"
    }

    /// Renames the folder to `<scenario>-<UTC yyyyMMdd-HHmmss>` for the given start time, adding `-2`, `-3`…
    /// if that name is taken. Returns the final path.
    public func publish(scenario: String, startUnixNanoseconds: UInt64) throws(SystemError) -> String {
        let base = "\(parent)/\(scenario)-\(UTCTime(unixNanoseconds: startUnixNanoseconds).compact)"
        var attempt = 1
        while true {
            let candidate = attempt == 1 ? base : "\(base)-\(attempt)"
            let status = CBench_renameNoReplace(temporaryPath, candidate)
            if status == 0 { return candidate }
            guard status == EEXIST || status == ENOTEMPTY else {
                throw SystemError("rename \(temporaryPath) to \(candidate)", errno: status)
            }
            attempt += 1
        }
    }

    /// Removes the temporary folder and what is in it (nothing is published).
    public func discard() {
        if let directory = opendir(temporaryPath) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(path(of: name)) }
            }
            closedir(directory)
        }
        rmdir(temporaryPath)
    }

    /// `mkdir -p`.
    private static func makeDirectories(_ path: String) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 && Glibc.errno != EEXIST {
                throw SystemError("mkdir \(prefix)", errno: Glibc.errno)
            }
            prefix += "/"
        }
    }
}
