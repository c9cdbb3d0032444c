import BenchClients
import BenchCore
import BenchProtocols

/// Turns a ``RunRecording`` into what SPEC §2 defines: the distribution of each metric, with losses, and for
/// fanout one row per broadcast. Warmup messages are left out here and everywhere after.
public struct RunAnalysis: Sendable {
    /// The names of the metrics, in report order.
    public enum Metric: String, Sendable, CaseIterable {
        /// Fanout: client read − t0 of the broadcast; chat: a member's read − the sender's write.
        case delivery
        /// Fanout: last − first client read of a broadcast; chat: of a message, among the other members.
        case spread
        /// Fanout: last client read − t0; chat: last member's read − the sender's write.
        case completion
        /// Echo read at the server − write to the client.
        case rtt
        /// Actual − scheduled send time: how far the harness fell behind its timetable.
        case lag
        /// Per client: from the start of its connect to the end of its transport's handshakes (TCP, TLS, WebSocket).
        case connect
        /// A target run's connect in its phases, per client: the TCP connect, the TLS handshake, the WebSocket
        /// upgrade (the first three add up to `connect`), and the protocol's handshake until subscribed.
        case connectTCP = "connect_tcp"
        case connectTLS = "connect_tls"
        case connectWebSocket = "connect_ws"
        case subscribe
        /// Per client whose connection closed during a run that expects reconnects: from the close to the server
        /// accepting its next hello; one that never came back is lost.
        case reconnect
        /// With `--timestamps both`: user-space read − kernel receive stamp on the measuring side.
        case stack

        /// The metric a scenario is mainly about: delivery for fan-out and chat, rtt for roundtrip (its interval
        /// lines, what a run that measured nothing lacks).
        public static func main(of scenario: Scenario) -> Metric { scenario.isBroadcast ? .delivery : .rtt }

        /// True for a metric the run's writer sees while the run goes; connect, its phases and reconnect are counted at
        /// its end.
        public var isStreamed: Bool { !Self.connectMetrics.contains(self) && self != .reconnect }

        /// The connect metric and its phases.
        static let connectMetrics: Set<Metric> = [.connect, .connectTCP, .connectTLS, .connectWebSocket, .subscribe]

        /// The phases a connection to a target of `scheme` has: TCP, TLS where the scheme has it, the WebSocket
        /// upgrade where its messages travel in WebSocket, and the protocol's handshake.
        public static func connectPhases(of scheme: TargetURL.Scheme) -> [Metric] {
            transportPhases(of: scheme.transport) + [.subscribe]
        }

        /// The phases of a connect over `transport`: TCP, TLS where it has it, the WebSocket upgrade where it is
        /// WebSocket.
        static func transportPhases(of transport: TransportKind) -> [Metric] {
            [.connectTCP] + (transport.usesTLS ? [.connectTLS] : []) + (transport.isWebSocket ? [.connectWebSocket] : [])
        }

        /// The phases a connect of a run of `configuration` has: a target's (``connectPhases(of:)``), or the built-in
        /// server's clients' over tls, ws and wss when some run in this process or come from agents (a hello is not
        /// confirmed: no protocol phase; over plain tcp the connect is its TCP connect, and has none).
        public static func connectPhases(of configuration: RunConfiguration) -> [Metric] {
            if let target = configuration.target { return connectPhases(of: target.url.scheme) }
            let clientsMeasured = !configuration.localClients.isEmpty || configuration.agentToken != nil
            guard configuration.transport != .tcp, clientsMeasured else { return [] }
            return transportPhases(of: configuration.transport)
        }

        /// True for the phases of a connect.
        public var isConnectPhase: Bool { self != .connect && Self.connectMetrics.contains(self) }

        /// This phase's time in `phases`; nil for a metric that is no phase.
        public func phase(of phases: ConnectPhases) -> UInt64? {
            switch self {
            case .connectTCP: phases.tcp
            case .connectTLS: phases.tls
            case .connectWebSocket: phases.webSocket
            case .subscribe: phases.subscribe
            default: nil
            }
        }

        /// The metrics a scenario reports, in order. A fanout through a user's server (`--target`) and a chat have no
        /// echo, so no `rtt`; only a run whose clients may come back (`--reconnect`, `--drop-connections-at`) has
        /// `reconnect`; a target run has its connect's `phases` (``connectPhases(of:)``).
        public static func reported(
            by scenario: Scenario, timestamps: TimestampSource = .user, hasEchoes: Bool = true,
            reconnects: Bool = false, phases: [Metric] = []
        ) -> [Metric] {
            (scenario.isBroadcast ? [.delivery, .spread, .completion] + (hasEchoes ? [.rtt] : []) + [.lag] : [.rtt, .lag])
                + [.connect] + phases + (reconnects ? [.reconnect] : []) + (timestamps == .both ? [.stack] : [])
        }

        /// The metrics a run of `configuration` reports, in order.
        public static func reported(by configuration: RunConfiguration) -> [Metric] {
            reported(
                by: configuration.scenario, timestamps: configuration.timestamps,
                hasEchoes: configuration.hasEchoes,
                reconnects: configuration.hasReconnectMetric,
                phases: connectPhases(of: configuration))
        }
    }

    /// What was measured: the run's counters, connect times and events (its messages went to the collector).
    public let recording: RunRecording
    /// One summary per reported metric, in ``Metric/reported(by:)`` order.
    public let summaries: [DistributionSummary]
    /// The histogram of each summary, same order.
    public let histograms: [LatencyHistogram]
    /// Fanout: one row per measured broadcast, up to ``RunCollector/maximumPlottedBroadcasts`` (none beyond);
    /// empty for roundtrip.
    public let broadcasts: [BroadcastResult]
    /// Fanout: measured broadcasts sent.
    public let broadcastCount: Int
    /// Measured messages (warmup excluded) that had their turn.
    public let measuredMessages: Int
    /// Kernel stamps the metrics of measured, echoed messages needed and did not get (the user-space time stood in).
    public let missingKernelStamps: (send: Int, receive: Int)
    /// Messages that timed out or came after their timeout (``MessageOutcome/timedOut``, ``MessageOutcome/late``).
    public let timedOutMessages: Int
    /// One row per report interval and metric.
    public let timeline: [TimelineRow]
    /// Roundtrip: the worst rtt of each slice of the run, by send time; nil for fanout.
    public let roundTripsOverTime: OverTime?

    /// Chat with rooms of different sizes (`--room-sizes zipf:S`): delivery and spread by room size, smallest first;
    /// empty otherwise.
    public let roomSizes: [RoomSizeBreakdown.Group]
    /// Behind a mix of links (`--link lte:70%,3g:30%`): every metric per link group, in the mix's order; empty otherwise.
    public let linkGroups: [LinkGroupBreakdown.Group]

    /// What a ``RunCollector`` made of a run's stream.
    init(
        recording: RunRecording, summaries: [DistributionSummary], histograms: [LatencyHistogram],
        broadcasts: [BroadcastResult], broadcastCount: Int, measuredMessages: Int,
        missingKernelStamps: (send: Int, receive: Int), timedOutMessages: Int = 0, timeline: [TimelineRow],
        roundTripsOverTime: OverTime?, roomSizes: [RoomSizeBreakdown.Group] = [], linkGroups: [LinkGroupBreakdown.Group] = []
    ) {
        self.timedOutMessages = timedOutMessages
        self.roomSizes = roomSizes
        self.linkGroups = linkGroups
        self.recording = recording
        self.summaries = summaries
        self.histograms = histograms
        self.broadcasts = broadcasts
        self.broadcastCount = broadcastCount
        self.measuredMessages = measuredMessages
        self.missingKernelStamps = missingKernelStamps
        self.timeline = timeline
        self.roundTripsOverTime = roundTripsOverTime
    }

    /// Analyses a recording that still holds its messages (nothing was streamed during the run): every row goes
    /// through a ``RunCollector`` now. Every summary also holds the other `percentiles` thresholds ask for (`[99.99]`) and their counts over `limits`.
    public init(recording: RunRecording, percentiles: [Double] = [], limits: [UInt64] = []) {
        var collector = RunCollector(configuration: recording.configuration)
        for entry in recording.remainingStream() { _ = collector.add(entry) }
        self = collector.analysis(of: recording, percentiles: percentiles, limits: limits)
    }

    /// The summary of `metric`, if this scenario reports it.
    public func summary(of metric: Metric) -> DistributionSummary? {
        summaries.first { $0.metric == metric.rawValue }
    }

    /// The summary `threshold` judges: its metric's, the run's or its link group's (`delivery{link=3g}`); a group the
    /// run did not have (an agent that brought no such link) has no values, and its verdict is inconclusive.
    public func summary(judgedBy threshold: Threshold) -> DistributionSummary {
        let own = threshold.link.map { link in
            linkGroups.first { $0.name == link }?.summaries.first { $0.metric == threshold.metric }
        } ?? summaries.first { $0.metric == threshold.metric }
        return own ?? DistributionBuilder(metric: threshold.metric, under: recording.configuration.under).summary()
    }
}
