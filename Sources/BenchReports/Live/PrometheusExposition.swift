import BenchCore
import BenchScenarios

/// A run's figures so far in Prometheus's text exposition format (0.0.4), or OpenMetrics 1.0 when the scraper asks
/// for it: names and units by Prometheus's conventions (`bench_` prefix, seconds, `_total` counters).
///
/// - `bench_<metric>_seconds`: a histogram per timed metric of the run (delivery, spread, completion, rtt, lag,
///   stack), buckets from 10 µs to 60 s (1, 2, 5 per decade) and the run's `--under`;
/// - behind a mix of links, `bench_link_<metric>_seconds{link}`: the same histograms per link group (the run's own
///   stay without the label, so that a sum over a family never counts a message twice);
/// - `bench_messages_sent_total` (had their turn, warmup included), `bench_messages_measured_total` (settled, warmup
///   not), `bench_messages_lost_total{reason}` (by outcome), `bench_reconnects_total`;
/// - `bench_clients_connected`, `bench_lag_latest_seconds` (the latest message's lag: `bench_lag_seconds` is lag's
///   histogram), `bench_run_progress_ratio`, `bench_run_running` (1 while sending, 0 before and after),
///   `bench_harness_cpu_busiest_ratio` (the measuring thread's CPU share so far, or a client thread's that reports its
///   own: a target's client groups, agents' threads; a built-in run's own client threads measure theirs at the end);
/// - `bench_run_info{scenario,transport,target,run}` 1.
public enum PrometheusExposition {
    public static func render(_ state: LiveFeed.State, openMetrics: Bool) -> String {
        var out = ExpositionText(openMetrics: openMetrics)
        if let run = state.run {
            out.info(
                "bench_run", "The run being measured.",
                labels: "{scenario=\"\(escape(run.scenario))\",transport=\"\(escape(run.transport))\","
                    + "target=\"\(escape(run.target))\",run=\"\(escape(run.name))\"}")
        }
        let control = state.control
        let statistics = state.snapshot?.statistics
        for histogram in statistics?.histograms ?? [] {
            let name = "bench_\(histogram.metric)_seconds"
            out.family(name, "histogram", "The run's \(histogram.metric) so far, as its messages settle.", unit: "seconds")
            for (bound, count) in zip(histogram.bounds, histogram.cumulative) {
                out.sample(name + "_bucket", labels: "{le=\"\(seconds(bound))\"}", "\(count)")
            }
            out.sample(name + "_bucket", labels: "{le=\"+Inf\"}", "\(histogram.count)")
            out.sample(name + "_sum", seconds(histogram.sum))
            out.sample(name + "_count", "\(histogram.count)")
        }
        linkHistograms(state.snapshot?.linkGroups ?? [], into: &out)
        out.counter(
            "bench_messages_sent", "Messages whose turn came (written or dropped), warmup included.",
            [("", control?.dispatchedMessages.load(ordering: .relaxed) ?? 0)])
        out.counter("bench_messages_measured", "Measured messages settled so far.", [("", state.snapshot?.settledMessages ?? 0)])
        out.counter(
            "bench_messages_lost", "Measured messages lost so far, by outcome (samples.csv's outcome column).",
            (statistics?.lostByOutcome ?? []).map { ("{reason=\"\($0.outcome)\"}", $0.count) })
        out.counter(
            "bench_reconnects", "Clients that came back after a drop.", [("", control?.reconnects.load(ordering: .relaxed) ?? 0)])
        out.gauge("bench_clients_connected", "Clients connected now.", "\(control?.connectedClients.load(ordering: .relaxed) ?? 0)")
        if let lag = statistics?.latestLag {
            out.gauge(
                "bench_lag_latest_seconds", "How late the latest message went, against its timetable.", seconds(lag),
                unit: "seconds")
        }
        if control != nil {
            out.gauge(
                "bench_run_progress_ratio", "How far the run is: of a --duration run its time, else the messages whose turn came.",
                "\(state.progress)")
        }
        out.gauge(
            "bench_harness_cpu_busiest_ratio",
            "The busiest harness thread's CPU share so far: the measuring thread, or a client thread that reports its own.",
            "\(Double(control?.busiestThreadPartsPerMillion.load(ordering: .relaxed) ?? 0) / 1_000_000)")
        let running = state.ended == nil && control?.isRunning.load(ordering: .relaxed) == true
        out.gauge("bench_run_running", "1 while the run sends and collects, 0 before and once it ended.", running ? "1" : "0")
        return out.finished
    }

    /// Each link group's histograms, a family per metric with a sample set per group.
    private static func linkHistograms(_ groups: [LiveLinkGroup], into out: inout ExpositionText) {
        let metrics = groups.flatMap { $0.histograms.map(\.metric) }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        for metric in metrics {
            let name = "bench_link_\(metric)_seconds"
            out.family(name, "histogram", "The run's \(metric) so far in each link group (--link's mix).", unit: "seconds")
            for group in groups {
                guard let histogram = group.histograms.first(where: { $0.metric == metric }) else { continue }
                let link = "link=\"\(escape(group.name))\""
                for (bound, count) in zip(histogram.bounds, histogram.cumulative) {
                    out.sample(name + "_bucket", labels: "{\(link),le=\"\(seconds(bound))\"}", "\(count)")
                }
                out.sample(name + "_bucket", labels: "{\(link),le=\"+Inf\"}", "\(histogram.count)")
                out.sample(name + "_sum", labels: "{\(link)}", seconds(histogram.sum))
                out.sample(name + "_count", labels: "{\(link)}", "\(histogram.count)")
            }
        }
    }

    /// Nanoseconds as seconds, exactly, in decimal: 10000 → "0.00001", 60000000000 → "60".
    static func seconds(_ nanoseconds: UInt64) -> String {
        let whole = nanoseconds / 1_000_000_000, fraction = nanoseconds % 1_000_000_000
        guard fraction > 0 else { return "\(whole)" }
        var digits = String(fraction)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.last == "0" { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// A label value with `\`, `"` and newlines escaped.
    static func escape(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }
}
