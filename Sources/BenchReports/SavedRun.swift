import BenchCore

/// A run folder read back from its CSV files alone: the settings, every metric's distribution rebuilt from
/// `samples.csv` and `broadcasts.csv` exactly as the run computed it, and the thresholds checked last
/// (`thresholds.csv`, if any).
public struct SavedRun: Sendable {
    /// The folder it was read from.
    public let folder: String
    /// `run.csv`, in file order.
    public let settings: [(key: String, value: String)]
    /// The distributions, in report order, with their histograms and (fanout) broadcasts.
    public let results: RunResults

    /// Why a folder could not be read as a run.
    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads the run in `folder`.
    public init(folder: String) throws {
        self.folder = folder
        func table(_ name: String) throws -> [[String: String]] {
            let text: String
            do {
                text = try FileText.read(folder + "/" + name)
            } catch {
                throw LoadError(description: "\(folder) is not a run folder: cannot read \(name) (\(error))")
            }
            let rows = try CSVReader.rows(text)
            guard let header = rows.first else { throw LoadError(description: "\(folder)/\(name) is empty") }
            return rows.dropFirst().map { Dictionary(zip(header, $0), uniquingKeysWith: { first, _ in first }) }
        }
        let settings = try table(RunSettingsCSV.fileName).map { (key: $0["key"] ?? "", value: $0["value"] ?? "") }
        self.settings = settings
        func setting(_ key: String) throws -> String {
            guard let value = settings.first(where: { $0.key == key })?.value else {
                throw LoadError(description: "\(folder)/\(RunSettingsCSV.fileName) has no \(key)")
            }
            return value
        }
        guard let under = UInt64(try setting("under_ns")) else {
            throw LoadError(description: "\(folder)/\(RunSettingsCSV.fileName): under_ns is not a number")
        }
        func builder(_ metric: String) -> DistributionBuilder { DistributionBuilder(metric: metric, under: under) }
        func record(_ cell: String?, into builder: inout DistributionBuilder, lostWhenEmpty: Bool) {
            if let cell, let value = UInt64(cell) {
                builder.record(value)
            } else if lostWhenEmpty {
                builder.recordLost()
            }
        }

        let samples = try table(SamplesCSV.fileName)
        var builders: [DistributionBuilder]
        var broadcasts: [RunResults.Broadcast] = []
        switch try setting("scenario") {
        case "fanout":
            var (delivery, spread, completion, rtt, lag) = (
                builder("delivery"), builder("spread"), builder("completion"), builder("rtt"), builder("lag")
            )
            for row in samples {
                record(row["delivery_ns"], into: &delivery, lostWhenEmpty: true)
                record(row["rtt_ns"], into: &rtt, lostWhenEmpty: true)
            }
            for row in try table(BroadcastsCSV.fileName) {
                let complete = row["complete"] == "1"
                record(complete ? row["spread_ns"] : nil, into: &spread, lostWhenEmpty: true)
                record(complete ? row["completion_ns"] : nil, into: &completion, lostWhenEmpty: true)
                record(row["lag_ns"], into: &lag, lostWhenEmpty: false)
                broadcasts.append(RunResults.Broadcast(
                    index: Int(row["broadcast"] ?? "") ?? broadcasts.count,
                    start: UInt64(row["t0_ns"] ?? "") ?? 0,
                    spread: complete ? UInt64(row["spread_ns"] ?? "") : nil
                ))
            }
            builders = [delivery, spread, completion, rtt, lag]
        case "roundtrip":
            var (rtt, lag) = (builder("rtt"), builder("lag"))
            for row in samples {
                record(row["rtt_ns"], into: &rtt, lostWhenEmpty: true)
                record(row["lag_ns"], into: &lag, lostWhenEmpty: false)
            }
            builders = [rtt, lag]
        case let other:
            throw LoadError(description: "\(folder): unknown scenario '\(other)'")
        }
        var thresholds: [ThresholdResult] = []
        if let text = try? FileText.read(folder + "/" + ThresholdsCSV.fileName) {
            thresholds = try ThresholdsCSV.read(text)
        }
        results = RunResults(
            settings: settings, summaries: builders.map { $0.summary() }, histograms: builders.map(\.histogram),
            broadcasts: broadcasts, thresholds: thresholds
        )
    }

    /// `fanout` or `roundtrip`.
    public var scenario: String { results.setting("scenario") ?? "" }
}
