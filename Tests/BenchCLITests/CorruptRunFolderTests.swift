import Foundation
import Testing

/// Saved run folders damaged by hand or by a crash: every command that reads one says what is wrong (exit 2) and
/// never traps or takes damage for losses.
@Suite(.timeLimit(.minutes(10))) struct CorruptRunFolderTests {
    /// A small fanout run's folder, made once for every case.
    private static let original: String = {
        let out = temporaryFolderPath()
        let run = try! BenchProcess.run([
            "fanout", "--clients", "3", "--messages", "10", "--interval", "1ms", "--quiet", "--out", out,
        ])
        return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// A copy of the original folder with `file` changed by `change`.
    private func damaged(_ file: String, _ change: (String) -> String) throws -> String {
        let copy = temporaryFolderPath()
        try FileManager.default.copyItem(atPath: Self.original, toPath: copy)
        let path = copy + "/" + file
        try change(try String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: true, encoding: .utf8)
        return copy
    }

    /// Replaces the `column` cell of the first data row of a CSV text with `value`.
    private func cell(_ column: String, _ value: String) -> (String) -> String {
        { text in
            var lines = text.components(separatedBy: "\r\n")
            let header = lines[0].components(separatedBy: ",")
            var fields = lines[1].components(separatedBy: ",")
            fields[header.firstIndex(of: column)!] = value
            lines[1] = fields.joined(separator: ",")
            return lines.joined(separator: "\r\n")
        }
    }

    @Test(arguments: [
        ("samples.csv", "rtt_ns", "18446744073709551614", "rtt_ns '18446744073709551614' is not a time a run can measure"),
        ("samples.csv", "delivery_ns", "abc", "delivery_ns 'abc' is not a time a run can measure"),
        ("samples.csv", "rtt_ns", "-5", "rtt_ns '-5' is not a time a run can measure"),
        ("samples.csv", "rtt_ns", "", "lost is '0' and rtt_ns is empty"),
        ("samples.csv", "lost", "1", "lost is '1' and delivery_ns is not"),
        ("broadcasts.csv", "spread_ns", "18446744073709551614", "spread_ns '18446744073709551614' is not a time"),
        ("broadcasts.csv", "lag_ns", "18446744073709551615", "lag_ns '18446744073709551615' is not a time"),
        ("run.csv", "value", "x", "is not a run folder"),
    ])
    func aDamagedCellIsAUsageErrorNamingFileLineAndColumn(file: String, column: String, value: String, message: String) throws {
        let folder: String
        if file == "run.csv" {
            folder = try damaged(file) { $0.replacingOccurrences(of: "under_ns,", with: "under_ns,18446744073709551614") }
        } else {
            folder = try damaged(file, cell(column, value))
        }
        for arguments in [["check", folder, "--threshold", "p99<1s"], ["report", folder], ["compare", Self.original, folder]] {
            let result = try BenchProcess.run(arguments)
            #expect(result.exitCode == 2, "\(arguments[0]): \(result.standardError)")
            #expect(result.standardError.contains(file == "run.csv" ? "under_ns is not a duration a run takes" : message),
                    "\(arguments[0]): \(result.standardError)")
        }
    }

    @Test func aTruncatedOrRenamedSamplesFileIsRefused() throws {
        let truncated = try damaged("samples.csv") { String($0.dropLast(12)) }
        let renamed = try damaged("samples.csv") { $0.replacingOccurrences(of: "rtt_ns", with: "rtt") }
        for (folder, message) in [(truncated, "fields, the header "), (renamed, "has no column rtt_ns")] {
            let result = try BenchProcess.run(["check", folder, "--threshold", "lost==0"])
            #expect(result.exitCode == 2)
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }
    }
}
