import BenchCore

/// When every send of an open-loop run is due, fixed before the run from `--interval`, `--arrival` and
/// `--seed`, so that the same seed repeats the same run.
///
/// Fanout has one timetable of broadcasts. Roundtrip gives each client its own timetable, shifted by a random
/// phase in `[0, interval)` so that clients do not all send at the same instant, and merges them in time
/// order. Closed-loop runs (`interval` 0) have no timetable: each send follows the previous echo.
struct SendPlan {
    /// Due times in nanoseconds after the start of the run, ascending.
    let offsets: [UInt64]
    /// What is due: a broadcast's sequence number in fanout, a message index in roundtrip.
    let targets: [Int]

    /// The random stream of client `client`'s timetable in roundtrip, and of the broadcasts in fanout (0).
    static func scheduleStream(client: Int) -> UInt64 { UInt64(client) }

    /// The random stream that orders the clients of each broadcast in fanout.
    static let broadcastOrderStream = UInt64.max

    /// The timetable of an open-loop run.
    init(configuration: RunConfiguration) {
        precondition(!configuration.isClosedLoop, "closed-loop runs have no timetable")
        let sequences = configuration.sequencesPerClient
        switch configuration.scenario {
        case .fanout:
            var random = SplitMix64(seed: configuration.seed, stream: Self.scheduleStream(client: 0))
            offsets = SendSchedule.offsets(
                count: sequences,
                meanInterval: configuration.interval,
                arrival: configuration.arrival,
                rng: &random
            )
            targets = Array(0..<sequences)
        case .roundtrip:
            let clients = configuration.clients
            var events: [(offset: UInt64, index: Int)] = []
            events.reserveCapacity(configuration.totalMessages)
            for client in 0..<clients {
                var random = SplitMix64(seed: configuration.seed, stream: Self.scheduleStream(client: client))
                let phase = clients == 1 ? 0 : random.nextBounded(configuration.interval)
                let series = SendSchedule.offsets(
                    count: sequences,
                    meanInterval: configuration.interval,
                    arrival: configuration.arrival,
                    rng: &random
                )
                for (sequence, offset) in series.enumerated() {
                    events.append((phase + offset, sequence * clients + client))
                }
            }
            events.sort { ($0.offset, $0.index) < ($1.offset, $1.index) }
            offsets = events.map(\.offset)
            targets = events.map(\.index)
        }
    }
}
