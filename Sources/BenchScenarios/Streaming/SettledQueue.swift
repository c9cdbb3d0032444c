import BenchNet
import Synchronization

/// The hand-off from a run's measuring thread (the one producer) to its writer thread (the one consumer): a ring of
/// ``SettledMessage`` slots allocated once, indices published with acquire/release atomics. No lock, no allocation.
///
/// When the writer falls behind and the ring is full, the producer waits for room (a short sleep, then again): no
/// entry is ever dropped, and each wait is counted in ``producerWaits`` for the run's report.
public final class SettledQueue: Sendable {
    /// Entries the ring holds.
    public let capacity: Int
    private let mask: Int
    nonisolated(unsafe) private let slots: UnsafeMutablePointer<SettledMessage>
    /// Entries taken by the consumer (it alone stores it).
    private let head = Atomic<Int>(0)
    /// Entries published by the producer (it alone stores it).
    private let tail = Atomic<Int>(0)
    private let waits = Atomic<Int>(0)

    /// A ring of at least `capacity` entries (rounded up to a power of two).
    public init(capacity: Int = 1 << 16) {
        var size = 1
        while size < max(2, capacity) { size <<= 1 }
        self.capacity = size
        self.mask = size - 1
        self.slots = .allocate(capacity: size)
        self.slots.initialize(repeating: SettledMessage(kind: .end), count: size)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Producer only: appends `entry`, waiting while the ring is full.
    public func push(_ entry: SettledMessage) {
        let position = tail.load(ordering: .relaxed)
        if position - head.load(ordering: .acquiring) >= capacity {
            waits.add(1, ordering: .relaxed)
            while position - head.load(ordering: .acquiring) >= capacity { Posix.sleep(nanoseconds: 200_000) }
        }
        slots[position & mask] = entry
        tail.store(position + 1, ordering: .releasing)
    }

    /// Consumer only: the oldest entry, or nil when the ring is empty.
    public func pop() -> SettledMessage? {
        let position = head.load(ordering: .relaxed)
        guard position < tail.load(ordering: .acquiring) else { return nil }
        let entry = slots[position & mask]
        head.store(position + 1, ordering: .releasing)
        return entry
    }

    /// Times the producer found the ring full and waited for the writer.
    public var producerWaits: Int { waits.load(ordering: .relaxed) }
}
