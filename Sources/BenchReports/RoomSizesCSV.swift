import BenchCore
import BenchScenarios

/// `rooms.csv` (chat with `--room-sizes zipf:S`): delivery and spread by room size, one row per group of sizes
/// (2, 3–4, 5–8, …), smallest rooms first; a p99 held by the few big rooms shows here, not in the run's own.
public enum RoomSizesCSV {
    public static let fileName = "rooms.csv"

    public static let header = [
        "room_size", "rooms", "delivery_count", "delivery_lost", "delivery_p50_ns", "delivery_p99_ns", "delivery_max_ns",
        "spread_count", "spread_incomplete", "spread_p50_ns", "spread_p99_ns", "spread_max_ns",
    ]

    /// The rows of `groups`, as the file holds them (and a saved run's report reads them back).
    public static func rows(_ groups: [RoomSizeBreakdown.Group]) -> [[String]] {
        func time(_ value: UInt64?) -> String { value.map { "\($0)" } ?? "" }
        return groups.map { group in
            [
                group.label, "\(group.rooms)", "\(group.delivery.count)", "\(group.delivery.lost)", time(group.delivery.p50),
                time(group.delivery.p99), time(group.delivery.max), "\(group.spread.count)", "\(group.spread.lost)",
                time(group.spread.p50), time(group.spread.p99), time(group.spread.max),
            ]
        }
    }

    /// Writes the file's header and `rows`.
    public static func write<Sink: ByteSink>(_ rows: [[String]], to writer: inout CSVWriter<Sink>) throws {
        try writer.row(header)
        for row in rows { try writer.row(row) }
    }
}
