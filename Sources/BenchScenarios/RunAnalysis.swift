import BenchCore

/// Turns a ``RunRecording`` into what SPEC §2 defines: the distribution of each metric, with losses, and for
/// fanout one row per broadcast. Warmup messages are left out here and everywhere after.
public struct RunAnalysis: Sendable {
    /// The names of the metrics, in report order.
    public enum Metric: String, Sendable, CaseIterable {
        /// Fanout: client read − t0 of the broadcast.
        case delivery
        /// Fanout: last − first client read of a broadcast.
        case spread
        /// Fanout: last client read − t0.
        case completion
        /// Echo read at the server − write to the client.
        case rtt
        /// Actual − scheduled send time: how far the harness fell behind its timetable.
        case lag
        /// Per client: from the start of its connect to the end of its transport's handshakes (TCP, TLS, WebSocket).
        case connect
        /// With `--timestamps both`: user-space read − kernel receive stamp on the measuring side.
        case stack

        /// The metrics a scenario reports, in order. A fanout through a user's server (`--target`) has no echo, so
        /// no `rtt`.
        public static func reported(
            by scenario: Scenario, timestamps: TimestampSource = .user, hasEchoes: Bool = true
        ) -> [Metric] {
            (scenario == .fanout ? [.delivery, .spread, .completion] + (hasEchoes ? [.rtt] : []) + [.lag] : [.rtt, .lag])
                + [.connect] + (timestamps == .both ? [.stack] : [])
        }

        /// The metrics a run of `configuration` reports, in order.
        public static func reported(by configuration: RunConfiguration) -> [Metric] {
            reported(
                by: configuration.scenario, timestamps: configuration.timestamps,
                hasEchoes: configuration.scenario == .roundtrip || configuration.target == nil)
        }
    }

    /// What was measured.
    public let recording: RunRecording
    /// One summary per reported metric, in ``Metric/reported(by:)`` order.
    public let summaries: [DistributionSummary]
    /// The histogram of each summary, same order.
    public let histograms: [LatencyHistogram]
    /// Fanout: one row per measured broadcast; empty for roundtrip.
    public let broadcasts: [BroadcastResult]

    /// Analyses a recording; every summary also holds the other `percentiles` thresholds ask for (`[99.99]`).
    public init(recording: RunRecording, percentiles: [Double] = []) {
        self.recording = recording
        let configuration = recording.configuration
        let under = configuration.under
        func builder(_ metric: Metric) -> DistributionBuilder {
            DistributionBuilder(metric: metric.rawValue, under: under)
        }
        var delivery = builder(.delivery)
        var spread = builder(.spread)
        var completion = builder(.completion)
        var rtt = builder(.rtt)
        var lag = builder(.lag)
        var stack = builder(.stack)
        var connect = builder(.connect)
        for time in recording.connectTimes where time > 0 { connect.record(time) }
        var broadcasts: [BroadcastResult] = []

        let clients = configuration.clients
        for sequence in configuration.warmup..<configuration.sequencesPerClient {
            var delivered = 0
            var lost = 0
            var first = UInt64.max
            var last = UInt64.min
            for client in 0..<clients {
                let index = recording.messageIndex(sequence: sequence, client: client)
                guard recording.isMeasured(message: index) else { continue }
                if let value = recording.roundTrip(ofMessage: index) {
                    rtt.record(value)
                } else {
                    rtt.recordLost()
                }
                if let value = recording.stack(ofMessage: index) { stack.record(value) }
                guard configuration.scenario == .fanout else { continue }
                if let value = recording.delivery(ofMessage: index) {
                    delivery.record(value)
                    delivered += 1
                    first = min(first, recording.receiveTime(ofMessage: index))
                    last = max(last, recording.receiveTime(ofMessage: index))
                } else {
                    delivery.recordLost()
                    lost += 1
                }
            }
            switch configuration.scenario {
            case .fanout:
                guard recording.broadcastStart[sequence] != 0 else { continue }  // never sent
                let row = BroadcastResult(
                    sequence: sequence,
                    scheduled: recording.scheduled[sequence],
                    start: recording.broadcastStartTime(sequence),
                    delivered: delivered,
                    lost: lost,
                    firstReceived: delivered > 0 ? first : nil,
                    lastReceived: delivered > 0 ? last : nil
                )
                broadcasts.append(row)
                if let spreadValue = row.spread, let completionValue = row.completion {
                    spread.record(spreadValue)
                    completion.record(completionValue)
                } else {
                    spread.recordLost()
                    completion.recordLost()
                }
                if let value = recording.sendLag(ofScheduledSend: sequence) { lag.record(value) }
            case .roundtrip:
                for client in 0..<clients {
                    let index = recording.messageIndex(sequence: sequence, client: client)
                    if recording.isMeasured(message: index), let value = recording.sendLag(ofScheduledSend: index) {
                        lag.record(value)
                    }
                }
            }
        }
        let reported = Metric.reported(by: configuration).map { metric in
            switch metric {
            case .delivery: return delivery
            case .spread: return spread
            case .completion: return completion
            case .rtt: return rtt
            case .lag: return lag
            case .connect: return connect
            case .stack: return stack
            }
        }
        self.summaries = reported.map { $0.summary(percentiles: percentiles) }
        self.histograms = reported.map { $0.histogram }
        self.broadcasts = broadcasts
    }

    /// The summary of `metric`, if this scenario reports it.
    public func summary(of metric: Metric) -> DistributionSummary? {
        summaries.first { $0.metric == metric.rawValue }
    }

    /// Measured messages (warmup excluded) that had their turn.
    public var measuredMessages: Int {
        recording.outcome.indices.reduce(0) { $0 + (recording.isMeasured(message: $1) ? 1 : 0) }
    }
}
