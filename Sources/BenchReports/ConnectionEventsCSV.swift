import BenchCore
import BenchScenarios

/// `events.csv`: connections that closed early or were refused, with the reason. Written only when there are any.
public enum ConnectionEventsCSV {
    public static let fileName = "events.csv"

    public static let header = ["time_ns", "side", "client", "reason"]

    /// Writes `events.csv`; times are nanoseconds after the run's start.
    public static func write<Sink: ByteSink>(_ recording: RunRecording, to writer: inout CSVWriter<Sink>) throws {
        try writer.row(header)
        for event in recording.connectionEvents.sorted(by: { $0.time < $1.time }) {
            writer.time(event.time, since: recording.startNanoseconds)
            writer.field(event.side.rawValue)
            if let client = event.client { writer.field(client) } else { writer.emptyField() }
            writer.field(event.reason)
            try writer.endRow()
        }
    }
}
