import BenchClients
import BenchCore

/// Turns a run's stream of ``SettledMessage``s into what SPEC §2 defines, as they come: one distribution per metric,
/// one ``BroadcastResult`` per fanout broadcast, one set of ``TimelineRow``s per report interval.
///
/// Its memory is set by the run's settings, not its length: percentiles are exact while every value fits
/// `exactBudget` bytes (reckoned at 8 per value; most take 4), and come from each metric's histogram beyond it (decided
/// at the start when the run's own settings say it will not fit, else the moment it stops fitting). Used on the
/// writer's thread during a run, and at once for a recording made whole (``RunAnalysis/init(recording:percentiles:)``).
public struct RunCollector: Sendable {
    /// What each stream entry meant to the reports.
    public enum Output {
        case nothing
        /// A fanout broadcast is complete.
        case broadcast(BroadcastResult)
        /// A report interval ended: its rows (one per metric with anything in it).
        case interval([TimelineRow])
    }

    /// The most broadcasts kept for the spread-over-time plot; a longer run plots its timeline instead.
    public static let maximumPlottedBroadcasts = 10_000

    public let configuration: RunConfiguration
    public let reader: SettledMessageReader
    /// Monotonic time of the run's start (schedule offset 0), from the stream's ``SettledMessage/Kind/start``.
    public private(set) var origin: UInt64
    let metrics: [RunAnalysis.Metric]
    private(set) var builders: [DistributionBuilder]
    /// The report intervals still open, oldest first (``firstOpenInterval`` on): a value counts in the interval its
    /// message fell due in, and the stream ends an interval only once every message due in it came (a later one's may
    /// come first).
    private(set) var intervals: [IntervalStatistics]
    private(set) var firstOpenInterval = 0
    /// The metrics of a report interval, in report order: all but connect and reconnect.
    private let timedMetrics: [String]
    private(set) var intervalStart: UInt64 = 0
    /// The open interval (its place in ``intervals``) of the message or broadcast being added.
    private var currentInterval = 0
    private let budgetValues: Int
    private var keptValues = 0
    private let slots: (delivery: Int?, spread: Int?, completion: Int?, rtt: Int?, lag: Int?, stack: Int?)
    /// For each interval slot, its metric's builder.
    let builderOfSlot: [Int]
    /// The broadcasts being collected: one at a time from one ledger, a few at once from server shards' merged streams
    /// (a broadcast's messages go on as each shard settles them, its end once every shard did: ``ShardMerge``).
    private var openBroadcasts: [OpenBroadcast] = []

    /// Every report interval's rows, in order.
    public private(set) var timeline: [TimelineRow] = []
    /// Fanout: the first ``maximumPlottedBroadcasts`` broadcasts; none when there were more.
    public private(set) var broadcasts: [BroadcastResult] = []
    /// Fanout: broadcasts collected.
    public private(set) var broadcastCount = 0
    /// Messages that timed out or came after their timeout.
    public private(set) var timedOutMessages = 0
    /// Measured messages that had their turn.
    public private(set) var measuredMessages = 0
    /// Kernel stamps the metrics needed and did not get.
    public private(set) var missingKernelStamps = (send: 0, receive: 0)
    /// Roundtrip: the worst rtt per slice of the run.
    public private(set) var roundTripsOverTime: OverTime?
    /// Chat with rooms of different sizes: delivery and spread by room size; nil otherwise.
    private(set) var roomSizes: RoomSizeBreakdown?
    /// Behind a mix of links, or agents with links of their own (``adopt(_:)``): every metric per link group; nil
    /// otherwise.
    private(set) var linkGroups: LinkGroupBreakdown?
    /// What a live view reads (`--metrics-listen`); nil when nobody watches.
    private(set) var live: LiveStatistics?
    /// The live view's points, second by second, of the main metric (in its interval slot `mainSlot`).
    private(set) var points: LivePoints?
    private var mainSlot = -1
    /// The second of the run the message or broadcast being added fell due in.
    private var currentSecond = 0

    /// A collector for a run of `configuration` that started at `origin`, keeping exact values up to `exactBudget`
    /// bytes (default: the configuration's), and with `live`, what a live view reads (``liveSnapshot(at:)``).
    public init(configuration: RunConfiguration, origin: UInt64 = 0, exactBudget: Int? = nil, live: Bool = false) {
        self.configuration = configuration
        self.reader = SettledMessageReader(configuration)
        self.origin = origin
        let metrics = RunAnalysis.Metric.reported(by: configuration)
        self.metrics = metrics
        self.budgetValues = max(0, exactBudget ?? configuration.exactBudget) / 8
        // Each value twice (its metric's, and with a mix of links its group's copy).
        let copies = configuration.link?.isMix == true ? 4 : 2
        let expected = configuration.expectedMessages.multipliedReportingOverflow(by: copies)
        let fits = !expected.overflow && expected.partialValue <= budgetValues
        builders = metrics.map { DistributionBuilder(metric: $0.rawValue, under: configuration.under, keepsValues: fits) }
        let timed = metrics.filter(\.isStreamed)
        timedMetrics = timed.map(\.rawValue)
        intervals = [IntervalStatistics(metrics: timedMetrics)]
        func slot(_ metric: RunAnalysis.Metric) -> Int? { timed.firstIndex(of: metric) }
        slots = (slot(.delivery), slot(.spread), slot(.completion), slot(.rtt), slot(.lag), slot(.stack))
        builderOfSlot = timed.map { metric in metrics.firstIndex(of: metric)! }
        roundTripsOverTime = configuration.scenario == .roundtrip ? OverTime() : nil
        roomSizes = RoomSizeBreakdown(configuration: configuration)
        linkGroups = LinkGroupBreakdown(configuration: configuration, metrics: metrics, keepsValues: fits, live: live)
        if live {
            self.live = LiveStatistics(metrics: timedMetrics, under: configuration.under)
            let main = RunAnalysis.Metric.main(of: configuration.scenario)
            points = LivePoints(metric: main.rawValue)
            mainSlot = timed.firstIndex(of: main) ?? -1
        }
    }

    /// Agents brought links of their own (`bench clients --link`): from the stream's start on, every metric is kept
    /// again per link group as with a mix (a run with a mix of its own keeps its groups).
    public mutating func adopt(_ grouping: LinkGrouping) {
        guard linkGroups == nil, grouping.groupOfClient.count == configuration.clients else { return }
        linkGroups = LinkGroupBreakdown(
            grouping, configuration: configuration, metrics: metrics, keepsValues: builders.first?.keepsValues ?? false,
            live: live != nil)
    }

    /// Takes the next entry of the stream.
    public mutating func add(_ entry: SettledMessage) -> Output {
        switch entry.kind {
        case .message:
            addMessage(entry)
            return .nothing
        case .broadcast:
            return .broadcast(addBroadcast(entry))
        case .intervalEnd:
            let end = entry.scheduled
            var ended = intervals.removeFirst()
            let rows = ended.close(interval: entry.sequence, start: intervalStart, end: end)
            if intervals.isEmpty { intervals.append(IntervalStatistics(metrics: timedMetrics)) }
            intervalStart = end
            firstOpenInterval = entry.sequence + 1
            timeline += rows
            return .interval(rows)
        case .start:
            origin = entry.scheduled
            return .nothing
        case .end, .broadcastBegan:
            return .nothing
        }
    }

    private mutating func addMessage(_ m: SettledMessage) {
        measuredMessages += 1
        currentInterval = openInterval(due: m.scheduled)
        if points != nil { currentSecond = second(due: m.scheduled) }
        if live != nil && !m.outcome.isMeasurement { live!.lose(m.outcome) }
        if m.outcome == .timedOut || m.outcome == .late { timedOutMessages += 1 }
        if m.outcome.isMeasurement {
            let missing = reader.missingKernelStamps(m)
            missingKernelStamps = (missingKernelStamps.send + missing.send, missingKernelStamps.receive + missing.receive)
        }
        if let slot = slots.rtt, configuration.scenario != .chat {  // a chat message's rtt is its own (addBroadcast)
            let value = reader.roundTrip(m)
            record(value, slot, client: m.client)
            if configuration.scenario == .roundtrip, m.written != 0 {
                let sent = reader.sendTime(m)
                roundTripsOverTime?.add(time: sent - min(origin, sent), value: value)
            }
        }
        if let slot = slots.stack, let value = reader.stack(m) { record(value, slot, client: m.client) }
        switch configuration.scenario {
        case .fanout, .chat:
            let value = reader.delivery(m)
            record(value, slots.delivery!, client: m.client)
            roomSizes?.delivery(value, sender: m.sender)
            linkGroups?.delivery(to: m.client, received: value == nil ? nil : reader.receiveTime(m))
            let open = OpenBroadcast.place(of: m.sequence, sender: m.sender, in: &openBroadcasts)
            if value != nil {
                openBroadcasts[open].delivered(at: reader.receiveTime(m))
            } else {
                openBroadcasts[open].undelivered += 1
            }
        case .roundtrip:
            if let value = reader.sendLag(m) { record(value, slots.lag!, client: m.client) }
        }
    }

    private mutating func addBroadcast(_ b: SettledMessage) -> BroadcastResult {
        currentInterval = openInterval(due: b.scheduled)
        if points != nil { currentSecond = second(due: b.scheduled) }
        let collected = OpenBroadcast.close(b.sequence, sender: b.sender, in: &openBroadcasts)
        let delivered = collected.delivered
        let result = BroadcastResult(
            sequence: b.sequence, sender: b.sender, scheduled: b.scheduled, start: reader.broadcastStartTime(b), delivered: delivered,
            lost: collected.undelivered, firstReceived: delivered > 0 ? collected.firstReceived : nil,
            lastReceived: delivered > 0 ? collected.lastReceived : nil, lag: reader.broadcastLag(b),
            roundTrip: configuration.scenario == .chat ? reader.chatRoundTrip(b) : nil)
        record(result.spread, slots.spread!)
        roomSizes?.spread(result.spread, sender: b.sender)
        record(result.completion, slots.completion!)
        if let groupValues = linkGroups?.broadcastEnded(
            result, spread: builderOfSlot[slots.spread!], completion: builderOfSlot[slots.completion!],
            lag: slots.lag.map { builderOfSlot[$0] }, isChat: configuration.scenario == .chat)
        {
            keep(groupValues)
        }
        if configuration.scenario == .chat, let slot = slots.rtt { record(result.roundTrip, slot, client: b.sender) }
        if let lag = result.lag { record(lag, slots.lag!) }
        if reader.usesKernel && b.broadcastStart != 0 && b.broadcastStartKernel == 0 { missingKernelStamps.send += 1 }
        broadcastCount += 1
        if broadcastCount <= Self.maximumPlottedBroadcasts {
            broadcasts.append(result)
        } else if !broadcasts.isEmpty {
            broadcasts = []
        }
        return result
    }

    /// The report interval a message that fell due at `due` (monotonic ns) counts in: from the run's start, in
    /// `--report-every`s, among those still open. One whose interval has ended counts in the first still open: the
    /// stream ends an interval once its messages came or after ``RunRecording/intervalHoldBack`` (a chat row that
    /// waited that long for a slower member's message, a send that waited for its row). One further on than
    /// ``mostOpenIntervals`` counts in the last of them. The files' `interval` column is this.
    public func interval(due: UInt64) -> Int {
        let own = periods(of: configuration.reportEvery, before: due) ?? firstOpenInterval
        return Swift.min(Swift.max(firstOpenInterval, own), firstOpenInterval + Self.mostOpenIntervals - 1)
    }

    /// The second of the run `due` (monotonic ns) falls in.
    private func second(due: UInt64) -> Int {
        periods(of: 1_000_000_000, before: due) ?? 0
    }

    /// How many whole `period`s (ns) of the run passed before `due`; nil without a period or before the run began.
    private func periods(of period: UInt64, before due: UInt64) -> Int? {
        guard period > 0, due > origin else { return nil }
        return Int(Swift.min((due - origin) / period, UInt64(Int.max / 2)))
    }

    /// The place in ``intervals`` of the interval of `due`, opening it (and those before it) if need be.
    private mutating func openInterval(due: UInt64) -> Int {
        let place = interval(due: due) - firstOpenInterval
        while intervals.count <= place { intervals.append(IntervalStatistics(metrics: timedMetrics)) }
        return place
    }

    /// The most report intervals open at once (each a histogram per metric): an interval's end waits at most a
    /// timeout and one interval more for its messages, and a message falls due no later than it is sent.
    public static let mostOpenIntervals = 16

    /// Counts `value` (nil: a loss) for the metric in interval slot `slot` (the metrics in report order, minus
    /// connect, which happens before the run and is not streamed), and in `client`'s link group.
    private mutating func record(_ value: UInt64?, _ slot: Int, client: Int? = nil) {
        let builder = builderOfSlot[slot]
        if let client { linkGroups?.record(value, metric: builder, client: client) }
        intervals[currentInterval].add(value, at: slot)
        if live != nil, let value { live!.record(value, at: slot, isLag: slot == slots.lag) }
        if slot == mainSlot { points?.add(value, second: currentSecond) }
        guard let value else {
            builders[builder].recordLost()
            return
        }
        builders[builder].record(value)
        keep(client != nil && linkGroups != nil ? 2 : 1)  // a link group keeps its own copy
    }

    /// Counts `count` values just kept (while values are kept): past the budget, every distribution keeps its
    /// histogram alone from now on.
    private mutating func keep(_ count: Int) {
        guard builders.first?.keepsValues == true else { return }
        keptValues += count
        if keptValues > budgetValues {
            for index in builders.indices { builders[index].dropValues() }
            linkGroups?.dropValues()
        }
    }
}
