import BenchCore
import BenchScenarios

/// `connections.csv`: one row per client of this process, with its connect time (from the start of its connect to the
/// end of its transport's handshakes), the samples of the `connect` metric.
public enum ConnectionsCSV {
    public static let fileName = "connections.csv"

    public static let header = ["client", "connect_ns"]

    /// Writes `connections.csv`, by client; clients of other processes (no connect time seen here) are left out.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        try writer.row(header)
        for (client, time) in recording.connectTimes.enumerated() where time > 0 {
            writer.field(client)
            writer.field(time)
            try writer.endRow()
        }
    }
}
