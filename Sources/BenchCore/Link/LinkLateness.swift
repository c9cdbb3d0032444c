/// How late the client threads let their links' bytes out, behind the times the model gave them: the harness's own
/// delay. With kernel stamps, bytes reach the client stamped with their exit however late, but it acts on them (an echo, an
/// answer) that late, and bytes toward the server reach it that late. Each hand-out or write on a wake-up of the link
/// counts once, by its first segment's lateness. One process's links, or the worst of several (a child's, an
/// agent's, this process's): each figure the larger.
public struct LinkLateness: Sendable, Equatable {
    /// Writes out of the link.
    public var writes: UInt64
    public var p50: UInt64
    public var p99: UInt64
    public var maximum: UInt64
    /// The writes of links that were late at their median by ``saturatedMedian`` or more (all or none of one link's).
    public var writesOfLateLinks: UInt64

    /// A link whose writes were this late at the median (1 ms) or more was behind its model for most of what it
    /// carried: the numbers of the messages through it are partly the harness's.
    public static let saturatedMedian: UInt64 = 1_000_000

    public init(writes: UInt64, p50: UInt64, p99: UInt64, maximum: UInt64) {
        (self.writes, self.p50, self.p99, self.maximum) = (writes, p50, p99, maximum)
        writesOfLateLinks = p50 >= Self.saturatedMedian ? writes : 0
    }

    /// The lateness `histogram` holds (ns per write); nil when it holds none.
    public init?(_ histogram: LatencyHistogram) {
        guard let p50 = histogram.value(atPercentile: 50), let p99 = histogram.value(atPercentile: 99),
            let maximum = histogram.max
        else { return nil }
        self.init(writes: histogram.count, p50: p50, p99: p99, maximum: maximum)
    }

    /// The worse of the two, figure by figure; their writes added.
    public func worse(_ other: LinkLateness) -> LinkLateness {
        var worse = LinkLateness(
            writes: writes &+ other.writes, p50: Swift.max(p50, other.p50), p99: Swift.max(p99, other.p99),
            maximum: Swift.max(maximum, other.maximum))
        worse.writesOfLateLinks = writesOfLateLinks &+ other.writesOfLateLinks
        return worse
    }

    /// True when links late at their median (``saturatedMedian``) carried a tenth of the writes or more: a share of
    /// the run's messages that large is partly the harness's (one child's link late for a handful is not).
    public var isSaturated: Bool { writesOfLateLinks > 0 && writesOfLateLinks >= (writes + 9) / 10 }

    /// The line a person reads: `link: bytes let out after the model's time by p50 84µs, p99 1.20ms, max 3.10ms …`.
    public var note: String {
        "link: bytes let out after the model's time by p50 \(DurationText.display(p50)), p99 \(DurationText.display(p99)), "
            + "max \(DurationText.display(maximum)) (the client threads' own delay: in what the clients sent and answered, "
            + "not in what they were stamped receiving)"
    }

    /// As a report carries it from a child or an agent: its four numbers in decimal.
    public var text: String { "\(writes) \(p50) \(p99) \(maximum)" }

    /// Reads ``text`` as a peer sent it: four decimal numbers, in order (p50 ≤ p99 ≤ maximum); nil otherwise.
    public init?(text: String) {
        let fields = text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 4, fields.allSatisfy({ $0.count <= 20 }) else { return nil }
        let numbers = fields.compactMap { UInt64($0) }
        guard numbers.count == 4, numbers[1] <= numbers[2], numbers[2] <= numbers[3] else { return nil }
        self.init(writes: numbers[0], p50: numbers[1], p99: numbers[2], maximum: numbers[3])
    }
}
