import BenchCore
import BenchScenarios

/// `connections.csv`: one row per client of this process, with its connect time (from the start of its connect to the
/// end of its transport's handshakes), the samples of the `connect` metric, and in a target run its phases (a column
/// `<metric>_ns` for each of the run's ``RunAnalysis/Metric/connectPhases(of:)-(RunConfiguration)``).
public enum ConnectionsCSV {
    public static let fileName = "connections.csv"

    /// The header of a run whose connect has `phases`.
    public static func header(phases: [RunAnalysis.Metric]) -> [String] {
        ["client", "connect_ns"] + phases.map { $0.rawValue + "_ns" }
    }

    /// Writes `connections.csv`, by client; clients of other processes (no connect time seen here) are left out; a
    /// phase a client did not report is empty.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        let phases = RunAnalysis.Metric.connectPhases(of: recording.configuration)
        try writer.row(header(phases: phases))
        for (client, time) in recording.connectTimes.enumerated() where time > 0 {
            writer.field(client)
            writer.field(time)
            for metric in phases {
                if client < recording.connectPhases.count, let phases = recording.connectPhases[client],
                    let phase = metric.phase(of: phases)
                {
                    writer.field(phase)
                } else {
                    writer.field("")
                }
            }
            try writer.endRow()
        }
    }
}
