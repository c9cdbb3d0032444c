import BenchCore

/// The live view's points: the run's main metric (delivery, or rtt) second by second, each message in the second it
/// fell due in, as the report intervals count it but finer than `--report-every` (a 10 s interval gives a chart one
/// point in ten seconds). The latest seconds stay open while late messages may still come (``openSeconds``); the rest
/// are rows. Kept only while a live view watches; per second, never per message, it allocates.
struct LivePoints: Sendable {
    let metric: String
    /// The seconds still open, oldest first, from ``firstOpen``: each one the metric's statistics, as an interval's.
    private var open: [IntervalStatistics] = []
    private var firstOpen = 0
    /// The seconds closed, the latest ``LiveSnapshot/maximumRows``.
    private(set) var closed: [TimelineRow] = []

    /// How many seconds stay open behind the latest: most messages are handed on within their timeout (5 s by
    /// default) and the stamps' grace of falling due; one later still (a chat row waiting for a slower member) counts
    /// in the oldest open second.
    static let openSeconds = 8

    init(metric: String) {
        self.metric = metric
    }

    /// Counts `value` (nil: a loss) in second `second` of the run.
    mutating func add(_ value: UInt64?, second: Int) {
        if second >= firstOpen + 2 * Self.openSeconds {  // far on: every open second closes, and the gap is skipped
            while !open.isEmpty { closeOldest() }
            firstOpen = second - Self.openSeconds + 1
        }
        while second >= firstOpen + Self.openSeconds { closeOldest() }
        let place = max(0, second - firstOpen)
        while open.count <= place { open.append(IntervalStatistics(metrics: [metric])) }
        open[place].add(value, at: 0)
    }

    /// Every second with anything in it, the open ones as they stand.
    var rows: [TimelineRow] {
        closed + open.indices.compactMap { row(of: $0) }
    }

    private mutating func closeOldest() {
        if let row = open.isEmpty ? nil : row(of: 0) {
            closed.append(row)
            if closed.count > LiveSnapshot.maximumRows { closed.removeFirst(closed.count - LiveSnapshot.maximumRows) }
        }
        if !open.isEmpty { open.removeFirst() }
        firstOpen += 1
    }

    /// Open second `place`'s row; nil when nothing came in it.
    private func row(of place: Int) -> TimelineRow? {
        let second = UInt64(firstOpen + place)
        return open[place].peek(interval: firstOpen + place, start: second * 1_000_000_000, end: (second + 1) * 1_000_000_000)
            .first
    }
}
