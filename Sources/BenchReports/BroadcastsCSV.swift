import BenchCore
import BenchScenarios

/// `broadcasts.csv` (fanout): one row per measured broadcast.
public enum BroadcastsCSV {
    public static let fileName = "broadcasts.csv"

    public static let header = [
        "broadcast", "scheduled_ns", "t0_ns", "lag_ns", "delivered", "lost", "first_ns", "last_ns", "spread_ns",
        "completion_ns", "complete",
    ]

    /// Writes `broadcasts.csv`. Times are nanoseconds after the run's start; spread and completion are empty
    /// for an incomplete broadcast.
    public static func write<Sink: ByteSink>(_ analysis: RunAnalysis, to writer: inout CSVWriter<Sink>) throws {
        let recording = analysis.recording
        let origin = recording.startNanoseconds
        try writer.row(header)
        for broadcast in analysis.broadcasts {
            writer.field(broadcast.sequence - recording.configuration.warmup)
            writer.time(broadcast.scheduled, since: origin)
            writer.time(broadcast.start, since: origin)
            writer.nanoseconds(recording.sendLag(ofScheduledSend: broadcast.sequence))
            writer.field(broadcast.delivered)
            writer.field(broadcast.lost)
            writer.time(broadcast.firstReceived ?? 0, since: origin)
            writer.time(broadcast.lastReceived ?? 0, since: origin)
            writer.nanoseconds(broadcast.spread)
            writer.nanoseconds(broadcast.completion)
            writer.flag(broadcast.isComplete)
            try writer.endRow()
        }
    }
}
