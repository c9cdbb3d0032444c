import BenchClients
import BenchCore
import BenchScenarios

/// `broadcasts.csv` (fanout): one row per measured broadcast; `messages.csv` (chat): one per measured message, its
/// sender and sequence first, `t0_ns` its write, `delivered` and `lost` among the other members of its room, and
/// `rtt_ns` where the server sends the sender its own copy (NATS, MQTT).
public enum BroadcastsCSV {
    public static let fileName = "broadcasts.csv"
    public static let chatFileName = "messages.csv"

    public static let header = [
        "broadcast", "scheduled_ns", "t0_ns", "lag_ns", "delivered", "lost", "first_ns", "last_ns", "spread_ns",
        "completion_ns", "complete", "interval",
    ]

    /// The file of a run of `scenario`, and its columns; nil for roundtrip, which has no broadcasts.
    public static func file(for scenario: Scenario) -> (name: String, header: [String])? {
        switch scenario {
        case .fanout: (fileName, header)
        case .chat: (chatFileName, ["sender", "seq"] + header.dropFirst().dropLast() + ["rtt_ns", "interval"])
        case .roundtrip: nil
        }
    }

    /// Writes the row of `broadcast`, due in report interval `interval`, of a run that started at `origin` (the
    /// header is the caller's, once). Times are nanoseconds after the run's start; spread and completion are empty for an
    /// incomplete broadcast.
    public static func writeRow<Sink: ByteSink>(
        _ broadcast: BroadcastResult, chat: Bool = false, origin: UInt64, warmup: Int, interval: Int,
        to writer: inout CSVWriter<Sink>
    ) throws {
        if chat { writer.field(broadcast.sender) }
        writer.field(broadcast.sequence - warmup)
        writer.time(broadcast.scheduled, since: origin)
        writer.time(broadcast.start, since: origin)
        writer.nanoseconds(broadcast.lag)
        writer.field(broadcast.delivered)
        writer.field(broadcast.lost)
        writer.time(broadcast.firstReceived ?? 0, since: origin)
        writer.time(broadcast.lastReceived ?? 0, since: origin)
        writer.nanoseconds(broadcast.spread)
        writer.nanoseconds(broadcast.completion)
        writer.flag(broadcast.isComplete)
        if chat { writer.nanoseconds(broadcast.roundTrip) }
        writer.field(interval)
        try writer.endRow()
    }
}
