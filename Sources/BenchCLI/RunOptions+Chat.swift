import BenchClients
import BenchCore
import BenchScenarios

/// `bench chat`: the rooms and the rate, and which of the other scenarios' options a chat run has no use for.
extension RunOptions {
    /// Options of fanout and roundtrip that say nothing to a chat run: the built-in broadcast server's own, the echo
    /// leg's, the built-in server's offline queue, and `--interval` (`--rate` says it per member). `--reconnect`,
    /// `--drop-connections-at` and `--dead-after` are taken against a `--target`
    /// (``readConnectionOptions(into:reader:parsed:command:)``).
    static let optionsChatDoesNotTake: Set<String> = [
        "interval", "transport", "tls-cert", "tls-key", "server-threads", "busy-poll", "offline-queue",
        "publish-url",
    ]

    /// The rooms and the rate of a chat run.
    static func chatOptions(defaults: RunConfiguration) -> [OptionSpec] {
        [
            OptionSpec(
                "rooms", value: "n", help: "Rooms the clients are dealt into (by --seed); every room needs 2 members.",
                default: "\(defaults.chatRooms?.rooms ?? 0)"),
            OptionSpec(
                "room-size", value: "n",
                help: "Members per room instead of --rooms (rooms = clients ÷ n; the remainder joins the first rooms)."),
            OptionSpec(
                "room-sizes", value: "kind",
                help: "uniform, or zipf:S for a few huge rooms and a long tail (room r's share ∝ 1/(r+1)^S, at least 2 "
                    + "members each); the summary then shows each room size.",
                default: "uniform"),
            OptionSpec(
                "rate", value: "r",
                help: "Messages each member sends, as N/s, N/min or N/h (mean rate; gaps by --arrival), each to every "
                    + "other member of its room.",
                default: "\(1_000_000_000 / defaults.interval)/s"),
        ]
    }

    /// `--rooms`, `--room-size`, `--room-sizes` and `--rate` into `configuration` (a chat run's); each step of a sweep
    /// takes its rooms from its own clients with ``chatRooms(for:)``.
    static func readChat(
        into configuration: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions
    ) throws(UsageError) -> (rooms: Int?, roomSize: Int?) {
        guard configuration.scenario == .chat else { return (nil, nil) }
        if parsed.value("rooms") != nil && parsed.value("room-size") != nil {
            throw UsageError(message: "--rooms and --room-size both say how big rooms are: give one", command: "chat")
        }
        let rooms = parsed.value("rooms") == nil
            ? nil : try reader.integer("rooms", placeholder: "n", in: 1...RunConfiguration.Limits.clients.upperBound / 2, default: 1)
        let roomSize = parsed.value("room-size") == nil
            ? nil : try reader.integer("room-size", placeholder: "n", in: 2...RunConfiguration.Limits.clients.upperBound, default: 2)
        var plan = configuration.chatRooms ?? ChatRoomPlan(rooms: 1)
        if let text = parsed.value("room-sizes") {
            guard let sizes = ChatRoomPlan.sizes(parsing: text) else {
                throw reader.invalid("room-sizes", "kind", text, "expected uniform or zipf:S with 0 < S ≤ 10 (e.g. zipf:1.2)")
            }
            plan.sizes = sizes
        }
        configuration.chatRooms = plan
        if let text = parsed.value("rate") {
            guard let interval = interval(ofRate: text) else {
                throw reader.invalid(
                    "rate", "r", text, "expected messages per member per second, minute or hour: 2/s, 30/min, 1/h (up to 1000/s)")
            }
            configuration.interval = interval
        }
        return (rooms, roomSize)
    }

    /// The mean gap between a member's messages at `text` (`N/s`, `N/min`, `N/h`, N a positive decimal up to 1000/s);
    /// nil when it is none of these.
    static func interval(ofRate text: String) -> UInt64? {
        interval(ofRate: text, units: ["s": 1e9, "min": 60e9, "h": 3_600e9], shortest: 1e6)
    }

    /// The gap between two events at `text`, a positive decimal count per one of `units` (nanoseconds each: `N/s`);
    /// nil when it is none of these, or the gap is shorter than `shortest` or longer than a day.
    static func interval(ofRate text: String, units: [Substring: Double], shortest: Double) -> UInt64? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Double(parts[0]), count.isFinite, count > 0, let unit = units[parts[1]] else {
            return nil
        }
        let interval = unit / count
        guard interval >= shortest, interval <= 86_400e9 else { return nil }
        return UInt64(interval.rounded())
    }

    /// The rooms of a chat step with `configuration`'s clients: `--rooms`, or as many rooms of `--room-size` as fit.
    static func chatRooms(for configuration: inout RunConfiguration, rooms: Int?, roomSize: Int?) {
        guard configuration.scenario == .chat, var plan = configuration.chatRooms else { return }
        if let rooms {
            plan.rooms = rooms
        } else if let roomSize {
            plan.rooms = max(1, configuration.clients / roomSize)
        }
        configuration.chatRooms = plan
    }
}
