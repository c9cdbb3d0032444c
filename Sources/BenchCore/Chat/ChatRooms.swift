/// How a chat run's clients are dealt into rooms (`--rooms`, `--room-size`, `--room-sizes`): how many rooms and how
/// their sizes are drawn.
public struct ChatRoomPlan: Sendable, Equatable {
    /// How room sizes are drawn.
    public enum Sizes: Sendable, Equatable {
        /// As equal as the clients allow: sizes differ by at most one.
        case uniform
        /// Room `r` (from 0) takes a share of the clients proportional to `1 / (r + 1)^s`: a few huge rooms and a long
        /// tail of small ones, as real chat services have. Every room keeps at least two members.
        case zipf(Double)
    }

    /// Rooms the clients are dealt into.
    public var rooms: Int
    public var sizes: Sizes

    public init(rooms: Int, sizes: Sizes = .uniform) {
        self.rooms = rooms
        self.sizes = sizes
    }

    /// `--room-sizes`'s text: `uniform` or `zipf:S` (S > 0).
    public static func sizes(parsing text: String) -> Sizes? {
        if text == "uniform" { return .uniform }
        guard text.hasPrefix("zipf:"), let exponent = Double(text.dropFirst(5)), exponent > 0, exponent <= 10 else {
            return nil
        }
        return .zipf(exponent)
    }

    /// The text ``sizes(parsing:)`` reads back.
    public var sizesText: String {
        switch sizes {
        case .uniform: "uniform"
        case .zipf(let exponent): "zipf:\(exponent)"
        }
    }

    /// Deliveries of one round (each client's message to every other member of its room): the ledger's row width.
    public func deliveriesPerRound(clients: Int) -> Int {
        ChatRooms.sizes(clients: clients, plan: self).reduce(0) { $0 + $1 * ($1 - 1) }
    }

    /// Why `clients` cannot be dealt into these rooms, or nil: every room needs two members (a room of one has nobody
    /// to deliver to).
    public func refusal(clients: Int) -> String? {
        guard rooms >= 1 else { return "a chat run needs at least one room" }
        guard clients >= 2 * rooms else {
            return "\(clients) clients cannot fill \(rooms) rooms: every room needs at least 2 members"
        }
        return nil
    }
}

/// Which room each client of a chat run is in, and who else is there: dealt from the run's seed, so that the same seed
/// makes the same rooms in every process of a run (and in a test that checks them).
///
/// Clients are shuffled with the seed, then dealt in order: the first room's members first. Members of a room are kept
/// in ascending id order; a client's `place` is its position among them.
public struct ChatRooms: Sendable, Equatable {
    /// The random stream the deal is drawn from (apart from the timetables' streams, which are per client).
    public static let dealStream: UInt64 = 0xC4A7_0000_0000_0000

    /// Per client: its room, and its place among the room's members.
    public let roomOfClient: [Int32]
    public let placeInRoom: [Int32]
    /// The rooms' members, room after room (ascending ids within one), and where each room's begin (`rooms + 1`).
    public let members: [Int32]
    public let memberStart: [Int]

    /// Deals `clients` into `plan`'s rooms with `seed` (``ChatRoomPlan/refusal(clients:)`` must be nil).
    public init(clients: Int, plan: ChatRoomPlan, seed: UInt64) {
        let sizes = Self.sizes(clients: clients, plan: plan)
        var order = (0..<clients).map { UInt32($0) }
        var random = SplitMix64(seed: seed, stream: Self.dealStream)
        order.withUnsafeMutableBufferPointer { random.shuffle($0) }
        var roomOfClient = [Int32](repeating: 0, count: clients)
        var placeInRoom = [Int32](repeating: 0, count: clients)
        var members: [Int32] = []
        members.reserveCapacity(clients)
        var memberStart = [0]
        var next = 0
        for (room, size) in sizes.enumerated() {
            let dealt = order[next..<next + size].sorted()
            next += size
            for (place, client) in dealt.enumerated() {
                roomOfClient[Int(client)] = Int32(room)
                placeInRoom[Int(client)] = Int32(place)
                members.append(Int32(client))
            }
            memberStart.append(members.count)
        }
        self.roomOfClient = roomOfClient
        self.placeInRoom = placeInRoom
        self.members = members
        self.memberStart = memberStart
    }

    /// Rooms.
    public var rooms: Int { memberStart.count - 1 }

    /// Members of room `room`.
    public func size(ofRoom room: Int) -> Int { memberStart[room + 1] - memberStart[room] }

    /// The members of `client`'s room, itself included.
    public func roomSize(of client: Int) -> Int { size(ofRoom: Int(roomOfClient[client])) }

    /// The ids of room `room`'s members, ascending.
    public func members(ofRoom room: Int) -> ArraySlice<Int32> { members[memberStart[room]..<memberStart[room + 1]] }

    /// The rooms' sizes for `clients` under `plan`: uniform, or zipf by largest remainders with at least 2 each.
    public static func sizes(clients: Int, plan: ChatRoomPlan) -> [Int] {
        let rooms = plan.rooms
        switch plan.sizes {
        case .uniform:
            return (0..<rooms).map { clients / rooms + ($0 < clients % rooms ? 1 : 0) }
        case .zipf(let exponent):
            // Two members each first; the rest shared by weight, by largest remainders (ties to the bigger room).
            let spare = clients - 2 * rooms
            let weights = (0..<rooms).map { 1 / portablePower(Double($0 + 1), exponent) }
            let total = weights.reduce(0, +)
            let shares = weights.map { Double(spare) * $0 / total }
            var sizes = shares.map { 2 + Int($0) }
            let left = clients - sizes.reduce(0, +)
            let byRemainder = (0..<rooms).sorted {
                let (a, b) = (shares[$0] - shares[$0].rounded(.down), shares[$1] - shares[$1].rounded(.down))
                return a != b ? a > b : $0 < $1
            }
            for room in byRemainder.prefix(left) { sizes[room] += 1 }
            return sizes
        }
    }

    /// `base` to the power `exponent` (base ≥ 1), from the portable logarithm: the same rooms on every machine.
    private static func portablePower(_ base: Double, _ exponent: Double) -> Double {
        portableExponential(exponent * portableNaturalLog(base))
    }
}
