import BenchCore
import BenchScenarios

/// Writes every file of a run folder (SPEC §3) and publishes the folder.
public enum RunReport {
    /// Writes `run.csv`, `connections.csv`, `summary.csv`, `histogram.csv`, `events.csv` when connections closed early
    /// and `thresholds.csv` when thresholds were given, and the ``DerivedReports`` into `folder`; then gives the folder
    /// its real name (`name`, in a sweep; otherwise the scenario and the start time). `samples.csv`, `broadcasts.csv` and
    /// `timeline.csv` were written during the run (``RunStream``) when `streamed`; otherwise they are written now,
    /// from the recording, which still holds every message.
    ///
    /// - Returns: The published folder's path.
    public static func write(
        _ analysis: RunAnalysis,
        metadata: RunMetadata,
        thresholds: [ThresholdResult] = [],
        into folder: RunFolder,
        name: String? = nil,
        streamed: Bool = false
    ) throws -> String {
        let recording = analysis.recording
        if !streamed {
            var writer = try RunStream.Writer(configuration: recording.configuration, folder: folder.temporaryPath)
            for entry in recording.remainingStream() { try writer.consume(entry) }
        }
        try AtomicFile.writeCSV(folder.path(of: RunSettingsCSV.fileName)) {
            try RunSettingsCSV.write(analysis, metadata: metadata, to: &$0)
        }
        try AtomicFile.writeCSV(folder.path(of: ConnectionsCSV.fileName)) {
            try ConnectionsCSV.write(recording, to: &$0)
        }
        try AtomicFile.writeCSV(folder.path(of: SummaryCSV.fileName)) {
            let clockError = recording.agents.compactMap(\.clock.error).max()
            try SummaryCSV.write(
                analysis.summaries, clockError: clockError,
                linkRows: SummaryCSV.rows(of: analysis.linkGroups, clockError: clockError), to: &$0)
        }
        try AtomicFile.writeCSV(folder.path(of: HistogramCSV.fileName)) {
            try HistogramCSV.write(analysis.summaries, analysis.histograms, to: &$0)
        }
        if recording.reportsOutages {
            try AtomicFile.writeCSV(folder.path(of: ReconnectsCSV.fileName)) { try ReconnectsCSV.write(recording, to: &$0) }
        }
        if !recording.agents.isEmpty {
            try AtomicFile.writeCSV(folder.path(of: AgentsCSV.fileName)) { try AgentsCSV.write(recording, to: &$0) }
        }
        if !recording.connectionEvents.isEmpty {
            try AtomicFile.writeCSV(folder.path(of: ConnectionEventsCSV.fileName)) {
                try ConnectionEventsCSV.write(recording, to: &$0)
            }
        }
        if !analysis.roomSizes.isEmpty {
            try AtomicFile.writeCSV(folder.path(of: RoomSizesCSV.fileName)) {
                try RoomSizesCSV.write(RoomSizesCSV.rows(analysis.roomSizes), to: &$0)
            }
        }
        if !thresholds.isEmpty {
            try AtomicFile.writeCSV(folder.path(of: ThresholdsCSV.fileName)) {
                try ThresholdsCSV.write(thresholds, to: &$0)
            }
        }
        try DerivedReports.write(
            RunResults(analysis, metadata: metadata, thresholds: thresholds), into: folder.temporaryPath)
        if let name { return try folder.publish(name: name) }
        return try folder.publish(
            scenario: recording.configuration.scenario.rawValue,
            startUnixNanoseconds: recording.startUnixNanoseconds
        )
    }
}
