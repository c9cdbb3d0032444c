import BenchClients
import BenchCore
import BenchNet
import BenchScenarios

/// A cut-off run's folder made whole again from what was read back (`bench report` on an `incomplete` run).
extension SavedRun {
    /// Writes what a cut-off run never wrote, from what was read back: `run.csv` (status `incomplete`), `summary.csv`,
    /// `histogram.csv` and `timeline.csv`, each atomically.
    /// `samples.csv` and `broadcasts.csv` keep the rows up to the last synced interval, so that the folder reads back
    /// the same from now on.
    public func writeRebuiltFiles() throws {
        func path(_ name: String) -> String { folder + "/" + name }
        // A file the kill cut off before its header was whole (or before it was created) gets the header the run
        // would have written.
        let scenario = Scenario(rawValue: self.scenario) ?? .fanout
        let timestamps = settings.first { $0.key == "timestamps" }.flatMap { TimestampSource(rawValue: $0.value) } ?? .user
        for (file, header) in [(SamplesCSV.fileName, SamplesCSV.header(scenario, timestamps: timestamps))]
            + (BroadcastsCSV.file(for: scenario).map { [$0] } ?? [])
        {
            try Self.keepRows(of: path(file), throughInterval: lastSyncedInterval ?? .max, header: header)
        }
        try AtomicFile.writeCSV(path(RunSettingsCSV.fileName)) { writer in
            try writer.row(["key", "value"])
            for (key, value) in settings { try writer.row([key, value]) }
        }
        let clockError = results.setting("clock_error_ns").flatMap { UInt64($0) }
        try AtomicFile.writeCSV(path(SummaryCSV.fileName)) {
            try SummaryCSV.write(results.summaries, clockError: clockError, linkRows: results.linkGroups, to: &$0)
        }
        try AtomicFile.writeCSV(path(HistogramCSV.fileName)) {
            try HistogramCSV.write(results.summaries, results.histograms, to: &$0)
        }
        try AtomicFile.writeCSV(path(TimelineCSV.fileName)) { writer in
            try writer.row(TimelineCSV.header)
            for row in results.timeline { try TimelineCSV.writeRow(row, to: &writer) }
        }
    }

    /// Rewrites the CSV file at `path` (atomically, a row at a time) with only its whole rows whose `interval` is at most
    /// `last`; a file without a whole header gets `header`, and no rows.
    fileprivate static func keepRows(of path: String, throughInterval last: Int, header whole: [String]) throws {
        let written = Posix.fileExists(path) ? try CSVFileRows.header(of: path) : []
        let header = written.isEmpty ? whole : written
        guard let intervalColumn = header.firstIndex(of: "interval") else { return }
        try AtomicFile.writeCSV(path + ".kept") { writer in
            try writer.row(header)
            try CSVFileRows.read(path, columns: header, tolerant: true) { row in
                guard let interval = Int(row[intervalColumn]), interval <= last else { return }
                try writer.row(header.indices.map { row[$0] })
            }
        }
        try Posix.rename(path + ".kept", to: path)
    }
}
