import BenchNet
import Synchronization

/// The hand-off from a run's measuring thread (the one producer) to its writer thread (the one consumer): a ring of
/// ``SettledMessage`` slots allocated once, indices published with acquire/release atomics. No lock, no allocation per
/// entry (what the run announces once, before its first entry, is behind a lock).
///
/// Neither side polls. The consumer, finding the ring empty, says it sleeps and waits on an eventfd, which the
/// producer rings after a batch of entries (``publish()``) only when the consumer said so. When the writer falls
/// behind and the ring is full, the producer waits the same way for the consumer's pop to ring it: no entry is ever
/// dropped, and each wait is counted in ``producerWaits`` for the run's report. Each wait is also bounded (a missed
/// ring costs that bound, never a hang).
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
    /// Rung by the producer for a consumer that sleeps, and by the consumer for a producer that waits for room.
    private let published: EventNotifier
    private let roomMade: EventNotifier
    private let consumerSleeps = Atomic<Bool>(false)
    /// What the producer announced about the run before its first entry (once a run: a lock is no cost there).
    private let grouping = Mutex<LinkGrouping?>(nil)
    private let producerWaitsNow = Atomic<Bool>(false)
    /// The longest a full ring's producer waits before it looks again.
    private static var roomWaitBound: UInt64 { 1_000_000 }

    /// A ring of at least `capacity` entries (rounded up to a power of two).
    public init(capacity: Int = 1 << 16) throws(SystemError) {
        var size = 1
        while size < max(2, capacity) { size <<= 1 }
        self.capacity = size
        self.mask = size - 1
        self.published = try EventNotifier()
        self.roomMade = try EventNotifier()
        self.slots = .allocate(capacity: size)
        self.slots.initialize(repeating: SettledMessage(kind: .end), count: size)
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
    }

    /// Producer only: appends `entry`, waiting while the ring is full. The consumer hears of it at ``publish()``.
    public func push(_ entry: SettledMessage) {
        let position = tail.load(ordering: .relaxed)
        if position - head.load(ordering: .acquiring) >= capacity {
            waits.add(1, ordering: .relaxed)
            while position - head.load(ordering: .acquiring) >= capacity {
                producerWaitsNow.store(true, ordering: .sequentiallyConsistent)
                if position - head.load(ordering: .sequentiallyConsistent) >= capacity {
                    _ = roomMade.wait(nanoseconds: Self.roomWaitBound)
                }
                producerWaitsNow.store(false, ordering: .relaxed)
            }
        }
        slots[position & mask] = entry
        tail.store(position + 1, ordering: .releasing)
    }

    /// Producer only: the entries pushed so far are there to take; wakes the consumer if it sleeps (one system call
    /// per batch at most, none while it is busy).
    public func publish() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if consumerSleeps.load(ordering: .relaxed) { published.notify() }
    }

    /// Consumer only: the oldest entry, or nil when the ring is empty.
    public func pop() -> SettledMessage? {
        let position = head.load(ordering: .relaxed)
        guard position < tail.load(ordering: .acquiring) else { return nil }
        let entry = slots[position & mask]
        head.store(position + 1, ordering: .releasing)
        if producerWaitsNow.load(ordering: .relaxed) { roomMade.notify() }
        return entry
    }

    /// Consumer only: with the ring empty, sleeps until the producer publishes or `nanoseconds` pass; false when the
    /// bound passed with no word from the producer.
    @discardableResult
    public func waitForEntries(upTo nanoseconds: UInt64) -> Bool {
        consumerSleeps.store(true, ordering: .sequentiallyConsistent)
        defer { consumerSleeps.store(false, ordering: .relaxed) }
        guard head.load(ordering: .relaxed) == tail.load(ordering: .sequentiallyConsistent) else { return true }
        return published.wait(nanoseconds: nanoseconds)
    }

    /// Producer only, before the stream's first entry: the run's clients are in these link groups (agents' own links).
    public func announce(_ grouping: LinkGrouping) {
        self.grouping.withLock { $0 = grouping }
    }

    /// The link groups the producer announced, if it did.
    public var announcedGrouping: LinkGrouping? { grouping.withLock { $0 } }

    /// Times the producer found the ring full and waited for the writer.
    public var producerWaits: Int { waits.load(ordering: .relaxed) }
}
