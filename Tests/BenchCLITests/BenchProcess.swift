import Foundation
import Glibc
import Synchronization
import Testing

/// The built `bench` executable, run as a user would, with its output and exit code captured.
struct BenchProcess {
    let exitCode: Int32
    let standardOutput: String
    let standardError: String

    /// The `bench` binary next to this test bundle (SwiftPM builds both into the same folder).
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent("bench")
    }()

    /// Runs `bench` with `arguments` to the end (at most `timeout` seconds), with `environment` added to ours.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 60
    ) throws -> BenchProcess {
        let process = try start(arguments, environment: environment)
        return try finish(process, timeout: timeout)
    }

    /// A `bench` started and not yet waited for; its output goes to two temporary files.
    struct Running {
        let process: Process
        let outputBase: String

        var processIdentifier: Int32 { process.processIdentifier }
    }

    /// Starts `bench` with `arguments` and returns at once; with `descriptorLimit`, under that RLIMIT_NOFILE (soft
    /// and hard, as `ulimit -n` sets them).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], descriptorLimit: Int? = nil
    ) throws -> Running {
        let process = Process()
        if let descriptorLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let base = temporaryFolderPath()
        for suffix in ["out", "err"] {
            _ = FileManager.default.createFile(atPath: "\(base).\(suffix)", contents: nil)
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(base).out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "\(base).err"))
        try process.run()
        return Running(process: process, outputBase: base)
    }

    /// Waits for a started `bench` (killing it after `timeout` seconds) and collects its output.
    static func finish(_ running: Running, timeout: TimeInterval = 60) throws -> BenchProcess {
        let process = running.process
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        func read(_ suffix: String) throws -> String {
            let path = "\(running.outputBase).\(suffix)"
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try String(contentsOfFile: path, encoding: .utf8)
        }
        return BenchProcess(
            exitCode: process.terminationStatus, standardOutput: try read("out"), standardError: try read("err"))
    }
}

/// Waits until the run folder that `bench` is writing under `out` (its only entry) holds a `file` of at least `lines`
/// lines, up to 60 s (a bound only a hang reaches), and tells whether it did. A run syncs its files at the end of each
/// `--report-every` interval, so this is the event "the run has measured this much", not a guess of how long it takes.
func waitForLines(_ lines: Int, in file: String, under out: String) -> Bool {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        if let run = contents(of: out)?.first,
            let text = try? String(contentsOfFile: "\(out)/\(run)/\(file)", encoding: .utf8),
            text.split(whereSeparator: \.isNewline).count >= lines
        {
            return true
        }
        usleep(20_000)
    }
    return false
}

/// A fresh folder name under the temporary directory, not created. What a test makes there under it (the folder, or
/// a file named by it and a suffix: `.suite`, `.csv`) is removed when the test process exits: a suite run left about
/// 115 run folders behind.
func temporaryFolderPath() -> String {
    let name = "bench-cli-\(UUID().uuidString)"
    TemporaryNames.shared.add(name)
    return NSTemporaryDirectory() + name
}

/// The temporary names handed out in this process, removed at its exit.
final class TemporaryNames: Sendable {
    static let shared = TemporaryNames()
    private let names = Mutex<[String]>([])

    func add(_ name: String) {
        names.withLock { names in
            if names.isEmpty { atexit { TemporaryNames.shared.removeAll() } }
            names.append(name)
        }
    }

    /// Removes every entry of the temporary directory whose name begins with a name handed out.
    func removeAll() {
        let given = names.withLock { $0 }
        let folder = NSTemporaryDirectory()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for entry in entries where entry.hasPrefix("bench-cli-") && given.contains(where: { entry.hasPrefix($0) }) {
            try? FileManager.default.removeItem(atPath: folder + entry)
        }
    }
}

/// The entries of a folder, or nil when it does not exist.
func contents(of folder: String) -> [String]? {
    try? FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

/// A CSV file of a run folder as rows keyed by column name: CRLF lines, and fields quoted as RFC 4180 quotes them
/// (commas, quotes doubled and line breaks inside quotes: events.csv's reasons hold commas).
func csvRows(_ path: String) throws -> [[String: String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var afterQuote = false  // a quote inside quotes: the field's end, or the first of a doubled one
    for character in try String(contentsOfFile: path, encoding: .utf8) {
        if quoted {
            if afterQuote {
                afterQuote = false
                if character == "\"" {
                    field.append("\"")
                    continue
                }
                quoted = false  // the closing quote: what follows is read as outside quotes
            } else if character == "\"" {
                afterQuote = true
                continue
            } else {
                field.append(character)
                continue
            }
        }
        switch character {
        case "\"" where field.isEmpty: quoted = true
        case ",":
            record.append(field)
            field = ""
        case "\r\n", "\n":
            records.append(record + [field])
            (record, field) = ([], "")
        default: field.append(character)
        }
    }
    if !field.isEmpty || !record.isEmpty { records.append(record + [field]) }
    guard let header = records.first else { return [] }
    return records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
}

/// A port nothing listens on just now on 127.0.0.1: bound to port 0, read back, closed.
func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    try #require(bound)
    return UInt16(bigEndian: address.sin_port)
}

/// A blocking connection to 127.0.0.1:`port`; nil when it is refused.
func connectToLoopback(_ port: UInt16) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    if status == 0 { return fd }
    close(fd)
    return nil
}

/// A Python fixture of Tests/Fixtures (`script`, run by `python` with a free loopback port first, then
/// `arguments`), once it accepts connections (waited for up to 30 s); the caller kills it.
func startFixture(_ script: String, _ arguments: String..., python: String = "/usr/bin/python3") throws -> (Process, Int) {
    let port = try freeLoopbackPort()
    let server = Process()
    server.executableURL = URL(fileURLWithPath: python)
    server.arguments = [CapacityCommandTests.fixtures + "/" + script, "\(port)"] + arguments
    server.standardOutput = FileHandle.nullDevice
    server.standardError = FileHandle.nullDevice
    try server.run()
    for _ in 0..<1_500 where server.isRunning {
        if let client = connectToLoopback(port) {
            close(client)
            return (server, Int(port))
        }
        usleep(20_000)
    }
    kill(server.processIdentifier, SIGKILL)
    server.waitUntilExit()
    throw CocoaError(.fileReadNoSuchFile)
}
