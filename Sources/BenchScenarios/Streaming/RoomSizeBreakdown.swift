import BenchClients
import BenchCore

/// Chat with rooms of different sizes (`--room-sizes zipf:S`): delivery and spread by the size of the sender's room,
/// so that a p99 the few big rooms hold is not hidden by the many small ones. Sizes are grouped by powers of two
/// (2, 3–4, 5–8, …), each group named by the sizes its rooms really have.
public struct RoomSizeBreakdown: Sendable {
    /// One group of room sizes as a report shows it.
    public struct Group: Sendable, Equatable {
        /// The smallest and largest room in the group (members), and how many rooms it has.
        public let smallest: Int
        public let largest: Int
        public let rooms: Int
        /// Delivery of its members' messages, and their spread.
        public let delivery: DistributionSummary
        public let spread: DistributionSummary

        /// "2", "3–4": its rooms' sizes.
        public var label: String { smallest == largest ? "\(smallest)" : "\(smallest)–\(largest)" }
    }

    private let groupOfClient: [UInt8]
    private let sizes: [(smallest: Int, largest: Int, rooms: Int)]
    private var delivery: [DistributionBuilder]
    private var spread: [DistributionBuilder]

    /// The breakdown of a chat run of `configuration` whose room sizes differ by design; nil otherwise.
    public init?(configuration: RunConfiguration) {
        guard configuration.scenario == .chat, let plan = configuration.chatRooms, plan.sizes != .uniform,
            plan.refusal(clients: configuration.clients) == nil
        else { return nil }
        let rooms = ChatRooms(clients: configuration.clients, plan: plan, seed: configuration.seed)
        func group(ofSize size: Int) -> Int { Int.bitWidth - (size - 1).leadingZeroBitCount - 1 }  // 2 → 0, 3–4 → 1 …
        var bounds: [Int: (smallest: Int, largest: Int, rooms: Int)] = [:]
        for room in 0..<rooms.rooms {
            let size = rooms.size(ofRoom: room)
            let old = bounds[group(ofSize: size)] ?? (size, size, 0)
            bounds[group(ofSize: size)] = (min(old.smallest, size), max(old.largest, size), old.rooms + 1)
        }
        let groups = bounds.keys.sorted()
        sizes = groups.map { bounds[$0]! }
        let place = Dictionary(uniqueKeysWithValues: groups.enumerated().map { ($1, $0) })
        groupOfClient = (0..<configuration.clients).map { UInt8(place[group(ofSize: rooms.roomSize(of: $0))]!) }
        delivery = groups.map { _ in DistributionBuilder(metric: "delivery", under: configuration.under, keepsValues: false) }
        spread = groups.map { _ in DistributionBuilder(metric: "spread", under: configuration.under, keepsValues: false) }
    }

    /// A delivery of `sender`'s message (nil: lost).
    mutating func delivery(_ value: UInt64?, sender: Int) {
        let group = Int(groupOfClient[sender])
        if let value { delivery[group].record(value) } else { delivery[group].recordLost() }
    }

    /// The spread of `sender`'s message (nil: incomplete).
    mutating func spread(_ value: UInt64?, sender: Int) {
        let group = Int(groupOfClient[sender])
        if let value { spread[group].record(value) } else { spread[group].recordLost() }
    }

    /// Every group, smallest rooms first.
    public var groups: [Group] {
        sizes.indices.map {
            Group(
                smallest: sizes[$0].smallest, largest: sizes[$0].largest, rooms: sizes[$0].rooms,
                delivery: delivery[$0].summary(), spread: spread[$0].summary())
        }
    }
}
