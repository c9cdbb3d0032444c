/// The built-in chat relay in several processes (`--server-procs`): each process hosts whole rooms, so that a message
/// is sent on by the one process its sender's room is in. Rooms are placed the same way in every process of a run (the
/// run's, its relays', its client processes'), from their sizes alone.
extension ChatRooms {
    /// The relay process of each room, `relays` of them: the largest room first, each to the process with the fewest
    /// members so far (the lowest-numbered one of a tie). No process's members exceed another's by more than the
    /// largest room.
    public func relayOfRoom(relays: Int) -> [Int32] {
        Self.relayOfRoom(sizes: (0..<rooms).map(size(ofRoom:)), relays: relays)
    }

    /// ``relayOfRoom(relays:)`` of rooms of `sizes`.
    public static func relayOfRoom(sizes: [Int], relays: Int) -> [Int32] {
        precondition(relays >= 1, "a chat relay runs in at least one process")
        var members = [Int](repeating: 0, count: relays)
        var relayOfRoom = [Int32](repeating: 0, count: sizes.count)
        let largestFirst = sizes.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
        for room in largestFirst {
            var fewest = 0
            for relay in 1..<relays where members[relay] < members[fewest] { fewest = relay }
            relayOfRoom[room] = Int32(fewest)
            members[fewest] += sizes[room]
        }
        return relayOfRoom
    }

    /// The members each of `relays` processes hosts, rooms placed by ``relayOfRoom(sizes:relays:)``.
    public static func members(sizes: [Int], relays: Int) -> [Int] {
        var members = [Int](repeating: 0, count: relays)
        for (room, relay) in relayOfRoom(sizes: sizes, relays: relays).enumerated() { members[Int(relay)] += sizes[room] }
        return members
    }

    /// The fewest relay processes (at most `most`) that ``relayOfRoom(sizes:relays:)`` fills with no more than
    /// `capacity` members each (a placement by hand may fit fewer); nil when no count does (a room alone is larger,
    /// or `most` processes are too few).
    public static func relaysNeeded(sizes: [Int], capacity: Int, most: Int) -> Int? {
        let total = sizes.reduce(0, +)
        guard capacity >= 1, sizes.allSatisfy({ $0 <= capacity }) else { return nil }
        var relays = max(1, (total + capacity - 1) / capacity)
        while relays <= min(most, sizes.count) {
            if members(sizes: sizes, relays: relays).allSatisfy({ $0 <= capacity }) { return relays }
            relays += 1
        }
        return nil
    }
}
