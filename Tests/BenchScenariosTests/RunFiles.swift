import BenchClients
import BenchCore
import BenchReports
import BenchScenarios
import Foundation

/// A run's report files read back from disk, as CSV rows keyed by column name.
struct RunFiles {
    let folder: String
    let settings: [String: String]
    let samples: [[String: String]]
    let broadcasts: [[String: String]]
    let summary: [String: [String: String]]
    let histogram: [[String: String]]
    let events: [[String: String]]

    /// Runs `configuration` in this process, writes its report into a fresh temporary folder, reads it back.
    static func run(_ configuration: RunConfiguration) throws -> RunFiles {
        try write(try ScenarioRunner.run(configuration, control: RunControl()))
    }

    /// Writes the report of `recording` into a fresh temporary folder and reads it back.
    static func write(_ recording: RunRecording) throws -> RunFiles {
        let analysis = RunAnalysis(recording: recording)
        let parent = NSTemporaryDirectory() + "bench-tests-\(UUID().uuidString)"
        let folder = try RunFolder.prepare(in: parent)
        let metadata = RunMetadata(commandLine: "test", version: "test", cpus: 2)
        return try RunFiles(folder: RunReport.write(analysis, metadata: metadata, into: folder))
    }

    init(folder: String) throws {
        self.folder = folder
        func table(_ name: String) throws -> [[String: String]] { try Self.table(name, in: folder) }
        settings = Dictionary(uniqueKeysWithValues: try table("run.csv").map { ($0["key"]!, $0["value"]!) })
        samples = try table("samples.csv")
        broadcasts = try table("broadcasts.csv")
        summary = Dictionary(uniqueKeysWithValues: try table("summary.csv").map { ($0["metric"]!, $0) })
        histogram = try table("histogram.csv")
        events = try table("events.csv")
    }
}

extension RunFiles {
    /// Another file of the run folder, as rows keyed by column name; empty when it does not exist.
    func table(_ name: String) throws -> [[String: String]] { try Self.table(name, in: folder) }

    static func table(_ name: String, in folder: String) throws -> [[String: String]] {
        let path = folder + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let rows = try CSVReader.rows(String(contentsOfFile: path, encoding: .utf8))
        let header = rows[0]
        return rows.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }
}

extension Dictionary where Key == String, Value == String {
    /// The column as an integer; nil when empty.
    func int(_ column: String) -> Int? { self[column].flatMap { Int($0) } }
    /// The column as a number; nil when empty.
    func double(_ column: String) -> Double? { self[column].flatMap { Double($0) } }
}

/// The nearest-rank percentile of sorted values, computed independently of the harness.
func exactPercentile(_ sorted: [Int], _ percentile: Double) -> Int {
    let thousandths = Int((percentile * 1000).rounded())
    let rank = max(1, (thousandths * sorted.count + 99_999) / 100_000)
    return sorted[rank - 1]
}
