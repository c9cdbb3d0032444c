import BenchCore
import BenchScenarios

/// `reconnects.csv`, in runs that expect reconnects (`--reconnect`, `--drop-connections-at`) or whose link may cut
/// clients off (`--link` with `nat-idle` or `blackout`): one row per time a
/// client's connection closed during the run, in order, with how long until the server accepted its hello again (the
/// `reconnect` metric; empty: it never came back, counted as lost). Against a user's server the return is the
/// subscription ready again, and the phases of the connect that brought it back follow (`connect_tcp_ns`, …,
/// `subscribe_ns`, as in connections.csv); the rest of `reconnect_ns` is the backoff and the tries that failed.
public enum ReconnectsCSV {
    public static let fileName = "reconnects.csv"

    public static let header = ["client", "closed_ns", "reconnect_ns"]

    /// Writes `reconnects.csv`; `closed_ns` counts from the start of sending.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        let phases = recording.configuration.target.map { RunAnalysis.Metric.connectPhases(of: $0.url.scheme) } ?? []
        try writer.row(header + phases.map { $0.rawValue + "_ns" })
        for outage in recording.outages {
            writer.field(outage.client)
            writer.field(outage.closed &- min(outage.closed, recording.startNanoseconds))
            if let time = outage.reconnectTime { writer.field(time) } else { writer.field("") }
            for metric in phases {
                if let returned = outage.returnPhases, let phase = metric.phase(of: returned) {
                    writer.field(phase)
                } else {
                    writer.field("")
                }
            }
            try writer.endRow()
        }
    }
}
