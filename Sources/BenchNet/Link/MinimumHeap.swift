/// Exit times to wake for, least first, each with a token; an entry may be stale (its connection closed, or a later
/// exit set for its direction since): its owner checks it against the direction's own before it acts.
public struct MinimumHeap {
    private var entries: [(time: UInt64, token: UInt64)] = []

    public init() {}

    public var minimum: UInt64? { entries.first?.time }

    public mutating func insert(_ time: UInt64, token: UInt64) {
        entries.append((time, token))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].time < entries[parent].time else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the least entry and returns it (the heap must not be empty).
    public mutating func removeMinimum() -> (time: UInt64, token: UInt64) {
        let removed = entries[0]
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var least = parent
            if left < entries.count && entries[left].time < entries[least].time { least = left }
            if right < entries.count && entries[right].time < entries[least].time { least = right }
            guard least != parent else { return removed }
            entries.swapAt(parent, least)
            parent = least
        }
    }
}
