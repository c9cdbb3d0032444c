import BenchClients
import BenchCore

/// A run behind a mix of links (`--link lte:70%,3g:20%,verybad:10%`): every metric again for each link group, so that
/// the 70% and the 10% are seen apart. A message counts in its receiver's group (delivery, rtt, stack, a round trip's
/// lag); a broadcast counts in each group that had members in it, with the spread and completion among those members
/// alone (complete when each of them got it); a chat message's own rtt and lag in its sender's group, a fan-out
/// broadcast's lag (the harness's) in each of its groups; a client's connect, its phases and its reconnects in its own.
public struct LinkGroupBreakdown: Sendable {
    /// One link group as the reports show it.
    public struct Group: Sendable {
        /// The preset's name (or `none`).
        public let name: String
        /// Clients dealt into it.
        public let clients: Int
        /// One summary per metric, in the run's report order.
        public let summaries: [DistributionSummary]
    }

    private let names: [String]
    private let groupOfClient: [UInt8]
    /// Clients in each group.
    private let clientsOfGroup: [Int]
    private var builders: [[DistributionBuilder]]
    /// With a live view: each group's metrics in the live view's buckets (``LiveStatistics/bounds(under:)``).
    private var live: [[LiveStatistics.Histogram]]?
    /// The broadcast being collected, in each group: deliveries, losses, the first and last read.
    private var delivered: [Int]
    private var lost: [Int]
    private var first: [UInt64]
    private var last: [UInt64]

    /// The breakdown of a run of `configuration` behind a mix of links, over `metrics`, exact while `keepsValues` (as
    /// the run's own are), and with `live` in the live view's buckets too; nil without a mix.
    init?(configuration: RunConfiguration, metrics: [RunAnalysis.Metric], keepsValues: Bool, live: Bool) {
        guard let mix = configuration.link, mix.isMix else { return nil }
        self.init(
            LinkGrouping(names: mix.groups.map(\.name), groupOfClient: mix.deal(clients: configuration.clients, seed: configuration.seed)),
            configuration: configuration, metrics: metrics, keepsValues: keepsValues, live: live)
    }

    /// The breakdown of a run of `configuration` whose clients are in `grouping`'s groups (agents' own links).
    init(
        _ grouping: LinkGrouping, configuration: RunConfiguration, metrics: [RunAnalysis.Metric], keepsValues: Bool,
        live: Bool
    ) {
        names = grouping.names
        groupOfClient = grouping.groupOfClient
        var clients = [Int](repeating: 0, count: grouping.names.count)
        for group in grouping.groupOfClient where Int(group) < clients.count { clients[Int(group)] += 1 }
        clientsOfGroup = clients
        builders = names.map { _ in
            metrics.map { DistributionBuilder(metric: $0.rawValue, under: configuration.under, keepsValues: keepsValues) }
        }
        if live {
            let bounds = LiveStatistics.bounds(under: configuration.under)
            self.live = names.map { _ in metrics.map { LiveStatistics.Histogram(metric: $0.rawValue, bounds: bounds) } }
        }
        (delivered, lost) = ([Int](repeating: 0, count: names.count), [Int](repeating: 0, count: names.count))
        (first, last) = ([UInt64](repeating: .max, count: names.count), [UInt64](repeating: 0, count: names.count))
    }

    /// The group of `client`; nil for a number outside the run (the publisher's side).
    @inline(__always) func group(of client: Int) -> Int? {
        client >= 0 && client < groupOfClient.count ? Int(groupOfClient[client]) : nil
    }

    /// Counts `value` (nil: a loss) of the metric at `index` for `client`'s group.
    mutating func record(_ value: UInt64?, metric index: Int, client: Int) {
        guard let group = group(of: client) else { return }
        record(value, metric: index, group: group)
    }

    private mutating func record(_ value: UInt64?, metric index: Int, group: Int) {
        guard let value else { return builders[group][index].recordLost() }
        builders[group][index].record(value)
        if live != nil { live![group][index].record(value) }
    }

    /// Percentiles from the histograms from now on, as the run's own once its values passed its budget.
    mutating func dropValues() {
        for group in builders.indices {
            for index in builders[group].indices { builders[group][index].dropValues() }
        }
    }

    /// One of a broadcast's deliveries to `client` (its read time; nil: lost).
    mutating func delivery(to client: Int, received: UInt64?) {
        guard let group = group(of: client) else { return }
        guard let received else {
            lost[group] += 1
            return
        }
        delivered[group] += 1
        first[group] = min(first[group], received)
        last[group] = max(last[group], received)
    }

    /// The broadcast `result` ended: each group that had members in it counts its spread and completion among them
    /// (at `spread` and `completion`), and the lag at `lag` (each group's in fan-out; the sender's in chat). Returns
    /// how many values it counted.
    mutating func broadcastEnded(_ result: BroadcastResult, spread: Int, completion: Int, lag: Int?, isChat: Bool) -> Int {
        var counted = 0
        for group in names.indices where delivered[group] + lost[group] > 0 {
            let own = BroadcastResult(
                sequence: result.sequence, sender: result.sender, scheduled: result.scheduled, start: result.start,
                delivered: delivered[group], lost: lost[group], firstReceived: delivered[group] > 0 ? first[group] : nil,
                lastReceived: delivered[group] > 0 ? last[group] : nil, lag: result.lag)
            record(own.spread, metric: spread, group: group)
            record(own.completion, metric: completion, group: group)
            counted += 2
            if let lag, !isChat, let value = result.lag {
                record(value, metric: lag, group: group)
                counted += 1
            }
            (delivered[group], lost[group], first[group], last[group]) = (0, 0, .max, 0)
        }
        if let lag, isChat, let value = result.lag {
            record(value, metric: lag, client: result.sender)
            counted += 1
        }
        return counted
    }

    /// Every group, in the mix's order, each metric's summary with the other `percentiles` and counts over `limits`.
    func groups(percentiles: [Double], limits: [UInt64]) -> [Group] {
        names.indices.map { group in
            Group(
                name: names[group], clients: clientsOfGroup[group],
                summaries: builders[group].map { $0.summary(percentiles: percentiles, limits: limits) })
        }
    }

    /// Every group so far, in the mix's order, for the live view: the metrics at `metrics` (indices into the run's
    /// metrics) that have a value or a loss, as rows from the run's start to `elapsed` ns.
    func liveGroups(metrics: [Int], elapsed: UInt64) -> [LiveLinkGroup] {
        names.indices.map { group in
            let counted = metrics.filter { builders[group][$0].histogram.count > 0 || builders[group][$0].lost > 0 }
            return LiveLinkGroup(
                name: names[group], clients: clientsOfGroup[group],
                totals: counted.map { index in
                    TimelineRow(
                        builders[group][index].histogram, lost: builders[group][index].lost, interval: -1, start: 0,
                        end: elapsed, metric: builders[group][index].metric)
                },
                histograms: counted.map { live?[group][$0] }.compactMap { $0 })
        }
    }
}

/// One link group of a run behind a mix of links, as the live view shows it while the run goes.
public struct LiveLinkGroup: Sendable {
    /// The preset's name (or `none`).
    public let name: String
    /// Clients dealt into it.
    public let clients: Int
    /// Each metric so far that has a value or a loss, as the run's own totals.
    public let totals: [TimelineRow]
    /// The same metrics' values in the live view's buckets (Prometheus's histograms).
    public let histograms: [LiveStatistics.Histogram]
}
