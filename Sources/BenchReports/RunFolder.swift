import BenchNet

/// The folder of one run, `<out>/<scenario>-<UTC yyyyMMdd-HHmmss>[-n]`, published atomically.
///
/// It is made as a hidden temporary folder in `<out>` before the run starts (so an unwritable `--out` fails
/// before any load), filled after the run, then renamed to its real name in one step: a reader never sees
/// a half-written run folder under a real name, and a crash leaves only the hidden folder behind. Folders are
/// created with the process's umask, like any other file it writes, so CI's artifact uploaders can read them.
public struct RunFolder: Sendable {
    /// The folder the run folders go in.
    public let parent: String
    /// The hidden folder being filled.
    public let temporaryPath: String

    /// Creates `parent` if needed and a hidden temporary folder in it.
    public static func prepare(in parent: String) throws(SystemError) -> RunFolder {
        try makeDirectories(parent)
        var random = SystemRandomNumberGenerator()
        while true {
            let path = "\(parent)/.bench-run-\(String(random.next() as UInt64, radix: 36))"
            if try Posix.makeDirectory(path) { return RunFolder(parent: parent, temporaryPath: path) }
        }
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
            if try Posix.renameUnlessTaken(temporaryPath, to: candidate) { return candidate }
            attempt += 1
        }
    }

    /// Renames the folder to `name` (a sweep step's, `clients-1000`), adding `-2`, `-3`… if that name is taken.
    /// Returns the final path.
    public func publish(name: String) throws(SystemError) -> String {
        var attempt = 1
        while true {
            let candidate = "\(parent)/\(name)" + (attempt == 1 ? "" : "-\(attempt)")
            if try Posix.renameUnlessTaken(temporaryPath, to: candidate) { return candidate }
            attempt += 1
        }
    }

    /// Makes a new folder `<parent>/<prefix>-<UTC yyyyMMdd-HHmmss>[-n]` (a sweep's, a suite's) and returns its path.
    public static func makeNamed(_ prefix: String, in parent: String, unixNanoseconds: UInt64) throws(SystemError) -> String {
        try makeDirectories(parent)
        let base = "\(parent)/\(prefix)-\(UTCTime(unixNanoseconds: unixNanoseconds).compact)"
        var attempt = 1
        while true {
            let candidate = attempt == 1 ? base : "\(base)-\(attempt)"
            if try Posix.makeDirectory(candidate) { return candidate }
            attempt += 1
        }
    }

    /// Makes the folder `<parent>/<name>`, or `<name>-2`, `-3`… if it is taken, and returns its path.
    public static func makeExact(_ name: String, in parent: String) throws(SystemError) -> String {
        try makeDirectories(parent)
        var attempt = 1
        while true {
            let candidate = "\(parent)/\(name)" + (attempt == 1 ? "" : "-\(attempt)")
            if try Posix.makeDirectory(candidate) { return candidate }
            attempt += 1
        }
    }

    /// The temporary folders in `parent` of runs that were cut off (killed outright): their `run.csv` still says
    /// `running`, and the process that wrote it is gone.
    public static func cutOffRuns(in parent: String) -> [String] {
        ((try? Posix.directoryEntries(parent)) ?? []).sorted().compactMap { name in
            guard name.hasPrefix(".bench-run-") else { return nil }
            let path = "\(parent)/\(name)"
            guard let text = try? FileText.read("\(path)/\(RunSettingsCSV.fileName)"),
                text.contains("\r\nstatus,\(RunSettingsCSV.runningStatus)\r\n")
            else { return nil }
            let pid = text.split(separator: "\r\n").first { $0.hasPrefix("pid,") }.map { String($0.dropFirst(4)) } ?? ""
            return isAlive(pid: pid) ? nil : path
        }
    }

    /// True when the process `pid` (run.csv's, as text) is still there: its run folder is being written, not cut off.
    public static func isAlive(pid: String) -> Bool {
        !pid.isEmpty && Posix.fileExists("/proc/\(pid)")
    }

    /// A cut-off run's hidden temporary folder `<parent>/.bench-run-<id>` renamed to `<parent>/<scenario>-incomplete-<id>`
    /// once its reports were rebuilt; any other folder keeps its name. Returns the path.
    public static func publishCutOff(_ path: String, scenario: String) throws(SystemError) -> String {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard name.hasPrefix(".bench-run-") else { return path }
        let target = "\(parent)/\(scenario)-incomplete-\(name.dropFirst(".bench-run-".count))"
        return try Posix.renameUnlessTaken(path, to: target) ? target : path
    }

    /// Removes the temporary folder and what is in it (nothing is published). Best effort: what cannot be
    /// removed stays, hidden.
    public func discard() {
        for name in (try? Posix.directoryEntries(temporaryPath)) ?? [] { try? Posix.unlink(path(of: name)) }
        try? Posix.removeDirectory(temporaryPath)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            try Posix.makeDirectory(prefix)
            prefix += "/"
        }
    }
}
