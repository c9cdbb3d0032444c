import BenchCore
import BenchScenarios

/// Everything the derived reports (Markdown, JUnit, HTML, .hgrm) need, whether it comes from a run that just
/// ended or from a saved run folder's CSV files.
public struct RunResults: Sendable {
    /// One fanout broadcast, for the spread-over-time plot.
    public struct Broadcast: Sendable, Equatable {
        /// Its number among the measured broadcasts, from 0.
        public let index: Int
        /// t0, nanoseconds after the run's start.
        public let start: UInt64
        /// Last − first client read; nil for an incomplete broadcast.
        public let spread: UInt64?

        public init(index: Int, start: UInt64, spread: UInt64?) {
            self.index = index
            self.start = start
            self.spread = spread
        }
    }

    /// The `run.csv` rows, in file order.
    public let settings: [(key: String, value: String)]
    /// One summary per metric, in report order (`summary.csv`).
    public let summaries: [DistributionSummary]
    /// The full-resolution histogram of each summary, same order.
    public let histograms: [LatencyHistogram]
    /// Fanout: every measured broadcast in order; empty for roundtrip.
    public let broadcasts: [Broadcast]
    /// The thresholds given for the run, checked; empty when none were given.
    public let thresholds: [ThresholdResult]
    /// Roundtrip: the worst rtt of each slice of the run, by send time; nil for fanout.
    public let roundTripsOverTime: OverTime?
    /// One row per report interval and metric (`timeline.csv`).
    public let timeline: [TimelineRow]
    /// Chat with rooms of different sizes: `rooms.csv`'s rows (``RoomSizesCSV``); empty otherwise.
    public let roomSizes: [[String]]
    /// Behind a mix of links: `summary.csv`'s rows of the link groups (``SummaryCSV/rows(of:clockError:)``); empty
    /// otherwise.
    public let linkGroups: [[String]]

    public init(
        settings: [(key: String, value: String)], summaries: [DistributionSummary], histograms: [LatencyHistogram],
        broadcasts: [Broadcast], thresholds: [ThresholdResult], roundTripsOverTime: OverTime? = nil,
        timeline: [TimelineRow] = [], roomSizes: [[String]] = [], linkGroups: [[String]] = []
    ) {
        self.timeline = timeline
        self.roomSizes = roomSizes
        self.linkGroups = linkGroups
        self.settings = settings
        self.summaries = summaries
        self.histograms = histograms
        self.broadcasts = broadcasts
        self.thresholds = thresholds
        self.roundTripsOverTime = roundTripsOverTime
    }

    /// The results of a run that just ended.
    public init(_ analysis: RunAnalysis, metadata: RunMetadata, thresholds: [ThresholdResult]) {
        let recording = analysis.recording
        let origin = recording.startNanoseconds
        let warmup = recording.configuration.warmup
        self.init(
            settings: RunSettingsCSV.rows(analysis, metadata: metadata),
            summaries: analysis.summaries,
            histograms: analysis.histograms,
            broadcasts: analysis.broadcasts.map { broadcast in
                Broadcast(index: broadcast.sequence - warmup, start: broadcast.start - origin, spread: broadcast.spread)
            },
            thresholds: thresholds,
            roundTripsOverTime: analysis.roundTripsOverTime,
            timeline: analysis.timeline.map { row in
                row.interval == analysis.timeline.last?.interval ? Self.toTheMillisecond(row) : row
            },
            roomSizes: RoomSizesCSV.rows(analysis.roomSizes),
            linkGroups: SummaryCSV.rows(
                of: analysis.linkGroups, clockError: recording.agents.compactMap(\.clock.error).max())
        )
    }

    /// `row` (of the last interval, which ends with the run) with its end to the millisecond, as `run.csv`'s
    /// `duration_s` gives it back to a saved run's reader: a run's pages and its saved folder's are the same, byte for
    /// byte.
    private static func toTheMillisecond(_ row: TimelineRow) -> TimelineRow {
        let end = UInt64(((Double(DecimalText.fixed(Double(row.end) / 1e9, fractionDigits: 3)) ?? 0) * 1000).rounded()) * 1_000_000
        return TimelineRow(
            interval: row.interval, start: row.start, end: end, metric: row.metric, count: row.count, lost: row.lost,
            p50: row.p50, p90: row.p90, p99: row.p99, max: row.max)
    }

    /// The same results with `thresholds` checked against them.
    public func with(thresholds: [ThresholdResult]) -> RunResults {
        RunResults(
            settings: settings, summaries: summaries, histograms: histograms, broadcasts: broadcasts,
            thresholds: thresholds, roundTripsOverTime: roundTripsOverTime, timeline: timeline, roomSizes: roomSizes,
            linkGroups: linkGroups)
    }

    /// For a run that did not complete, why and how much of it was measured, from `run.csv`: "stopped on request;
    /// 1500 of 10000 messages sent, 3 lost". Nil for a complete run.
    public var statusDetail: String? {
        guard let status = setting("status"), status != "complete" else { return nil }
        var parts: [String] = []
        if let reason = setting("status_reason"), !reason.isEmpty { parts.append(reason) }
        if let measured = setting("messages_measured"), let clients = Int(setting("clients") ?? ""),
            let perClient = Int(setting("messages") ?? setting("count") ?? "")
        {
            parts.append("\(measured) of \(clients * perClient) messages sent, \(setting("messages_lost") ?? "?") lost")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Why this run's verdicts are not a measurement of the server, from `run.csv`: it did not complete, or its
    /// harness was saturated, or other work on the machine held its timetable back. Empty for a complete run whose
    /// harness kept up.
    public var inconclusiveReasons: [InconclusiveReason] {
        InconclusiveReason.of(
            status: setting("status") ?? "", saturated: setting("harness_saturated") == "1",
            disturbed: setting("machine_disturbed") == "1")
    }

    /// A `--duration` run's length, for headlines: "for 5m" (`5m`, not `300s`); nil for a run of a number of messages.
    public var durationText: String? {
        guard let text = setting("run_for_ns"), let nanoseconds = UInt64(text) else { return nil }
        return "for " + DurationText.format(nanoseconds)
    }

    /// The value of a `run.csv` key, e.g. `scenario`, `under_ns`.
    public func setting(_ key: String) -> String? {
        settings.first { $0.key == key }?.value
    }
}
