import BenchCore

/// What a ``RunCollector`` gives back: a metric's summary while the run goes on (a capacity step's decision), the live
/// view's snapshot, and the analysis of the whole run once it ended.
extension RunCollector {
    /// The summary of `metric` so far, with the counts over `limits`: what a decision made while the run goes on
    /// reads (on the writer's thread); nil when the run does not stream `metric` (connect, reconnect).
    public func summarySoFar(
        of metric: RunAnalysis.Metric, percentiles: [Double] = [], limits: [UInt64] = []
    ) -> DistributionSummary? {
        guard metric.isStreamed, let index = metrics.firstIndex(of: metric) else { return nil }
        return builders[index].summary(percentiles: percentiles, limits: limits)
    }

    /// What a live view shows now, `now` being the time on the run's clock (monotonic ns); nil unless made `live`.
    /// Its rows' times are offsets from the run's start, as the timeline's.
    public func liveSnapshot(at now: UInt64) -> LiveSnapshot? {
        guard let live else { return nil }
        let elapsed = origin == 0 || now < origin ? 0 : now - origin
        let totals = builderOfSlot.map { builder in
            TimelineRow(
                builders[builder].histogram, lost: builders[builder].lost, interval: -1, start: 0, end: elapsed,
                metric: builders[builder].metric)
        }
        return LiveSnapshot(
            statistics: live, totals: totals,
            current: intervals[0].peek(interval: firstOpenInterval, start: intervalStart, end: max(intervalStart, elapsed)),
            timeline: Array(timeline.suffix(LiveSnapshot.maximumRows)), points: points?.rows ?? [],
            linkGroups: linkGroups?.liveGroups(metrics: builderOfSlot, elapsed: elapsed) ?? [],
            settledMessages: measuredMessages, elapsed: elapsed)
    }

    /// The analysis of everything collected, for `recording` (its counters, connect times and events); every summary
    /// also holds the other `percentiles` and the counts over the `limits` thresholds ask for.
    public func analysis(of recording: RunRecording, percentiles: [Double] = [], limits: [UInt64] = []) -> RunAnalysis {
        var builders = builders
        var linkGroups = linkGroups
        if let connect = metrics.firstIndex(of: .connect) {
            for (client, time) in recording.connectTimes.enumerated() where time > 0 {
                builders[connect].record(time)
                linkGroups?.record(time, metric: connect, client: client)
            }
        }
        for (index, metric) in metrics.enumerated() where metric.isConnectPhase && !recording.connectPhases.isEmpty {
            for (client, phases) in recording.connectPhases.enumerated() where recording.connectTimes[client] > 0 {
                guard let phases, let time = metric.phase(of: phases) else { continue }
                builders[index].record(time)
                linkGroups?.record(time, metric: index, client: client)
            }
        }
        if let reconnect = metrics.firstIndex(of: .reconnect) {
            for outage in recording.outages {
                if let time = outage.reconnectTime { builders[reconnect].record(time) } else { builders[reconnect].recordLost() }
                linkGroups?.record(outage.reconnectTime, metric: reconnect, client: outage.client)
            }
        }
        return RunAnalysis(
            recording: recording, summaries: builders.map { $0.summary(percentiles: percentiles, limits: limits) },
            histograms: builders.map(\.histogram), broadcasts: broadcasts, broadcastCount: broadcastCount,
            measuredMessages: measuredMessages, missingKernelStamps: missingKernelStamps, timedOutMessages: timedOutMessages,
            timeline: timeline,
            roundTripsOverTime: roundTripsOverTime?.finished(), roomSizes: roomSizes?.groups ?? [],
            linkGroups: linkGroups?.groups(percentiles: percentiles, limits: limits) ?? [])
    }
}
