import BenchClients
import BenchCore

/// When every send of an open-loop run is due, from `--interval`, `--arrival` and `--seed`, so that the same seed
/// repeats the same run. Drawn one send at a time, so that an hour-long timetable takes no more memory than a short one.
///
/// Fanout has one timetable of broadcasts. Roundtrip and chat give each client its own timetable, shifted by a random
/// phase in `[0, interval)` so that clients do not all send at the same instant, and merges them in time order
/// (ties by sequence, then client) with a heap of the clients' next sends. Closed-loop runs (`interval` 0) have no
/// timetable: each send follows the previous echo. A `--duration` timetable ends with the last send due before it.
struct SendPlan {
    /// The random stream of client `client`'s timetable in roundtrip and chat, and of the broadcasts in fanout (0).
    static func scheduleStream(client: Int) -> UInt64 { UInt64(client) }

    /// The random stream that orders the clients of each broadcast in fanout.
    static let broadcastOrderStream = UInt64.max

    private let interval: UInt64
    private let arrival: Arrival
    private let sequences: Int
    private let end: UInt64
    private let clients: Int
    /// Per timetable (one in fanout, one per client in roundtrip and chat): the next send's offset, sequence and random stream.
    private var offsets: [UInt64]
    private var nextSequences: [Int]
    private var randoms: [SplitMix64]
    /// Roundtrip and chat: the timetables by their next send, a binary min-heap.
    private var heap: [Int]

    /// The timetable of an open-loop run.
    init(configuration: RunConfiguration) {
        precondition(!configuration.isClosedLoop, "closed-loop runs have no timetable")
        interval = configuration.interval
        arrival = configuration.arrival
        sequences = configuration.sequencesPerClient
        end = configuration.duration ?? .max
        let timetables = configuration.scenario == .fanout ? 1 : configuration.clients
        clients = timetables
        randoms = (0..<timetables).map { SplitMix64(seed: configuration.seed, stream: Self.scheduleStream(client: $0)) }
        offsets = Array(repeating: 0, count: timetables)
        nextSequences = Array(repeating: 0, count: timetables)
        if timetables > 1 {
            for client in 0..<timetables { offsets[client] = randoms[client].nextBounded(interval) }
        }
        heap = Array(0..<timetables)
        let sorted = heap.sorted { isEarlier($0, $1) }
        heap = sorted  // a sorted array is a heap
    }

    /// The next send: when it is due (ns after the start), its sequence number and client (0 in fanout); nil when
    /// the timetable is over.
    var next: (offset: UInt64, sequence: Int, client: Int)? {
        let client = heap[0]
        let sequence = nextSequences[client]
        guard sequence < sequences, offsets[client] < end else { return nil }
        return (offsets[client], sequence, client)
    }

    /// Moves past ``next``.
    /// Moves past ``next``; when that was its timetable's last send, returns its client (0 in fanout) and the sequence
    /// number it stops before.
    @discardableResult
    mutating func advance() -> (client: Int, end: Int)? {
        let client = heap[0]
        nextSequences[client] += 1
        offsets[client] = SendSchedule.next(after: offsets[client], meanInterval: interval, arrival: arrival, rng: &randoms[client])
        siftDown()
        let spent = nextSequences[client] >= sequences || offsets[client] >= end
        return spent ? (client, nextSequences[client]) : nil
    }

    /// When the run's last send falls due (ns after the start): its duration, or its timetables replayed from the seed
    /// (each send waits at most a timeout in closed loop); nil for more than `largest` sends.
    static func lastDue(of configuration: RunConfiguration, largest: Int = 1 << 22) -> UInt64? {
        if let duration = configuration.duration { return duration }
        if configuration.isClosedLoop {
            return UInt64(configuration.sequencesPerClient).multipliedClamped(by: configuration.timeout)
        }
        var plan = SendPlan(configuration: configuration)
        var (last, replayed): (UInt64, Int) = (0, 0)
        while let next = plan.next {
            replayed += 1
            guard replayed <= largest else { return nil }
            last = max(last, next.offset)
            plan.advance()
        }
        return last
    }

    /// True when timetable `a`'s next send comes before `b`'s: by time, then sequence, then client (the order of
    /// the message index `sequence × clients + client`).
    private func isEarlier(_ a: Int, _ b: Int) -> Bool {
        let (sa, sb) = (nextSequences[a] >= sequences || offsets[a] >= end, nextSequences[b] >= sequences || offsets[b] >= end)
        if sa != sb { return sb }  // finished timetables sink
        return (offsets[a], nextSequences[a], a) < (offsets[b], nextSequences[b], b)
    }

    private mutating func siftDown() {
        var parent = 0
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var child = left
            if left + 1 < count && isEarlier(heap[left + 1], heap[left]) { child = left + 1 }
            guard isEarlier(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }
}
