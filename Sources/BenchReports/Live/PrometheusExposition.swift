import BenchCore
import BenchScenarios

/// A run's figures so far in Prometheus's text exposition format (0.0.4), or OpenMetrics 1.0 when the scraper asks
/// for it: names and units by Prometheus's conventions (`bench_` prefix, seconds, `_total` counters).
///
/// - `bench_<metric>_seconds`: a histogram per timed metric of the run (delivery, spread, completion, rtt, lag,
///   stack), buckets from 10 µs to 60 s (1, 2, 5 per decade) and the run's `--under`;
/// - `bench_messages_sent_total` (had their turn, warmup included), `bench_messages_measured_total` (settled, warmup
///   not), `bench_messages_lost_total{reason}` (by outcome), `bench_reconnects_total`;
/// - `bench_clients_connected`, `bench_lag_latest_seconds` (the latest message's lag: `bench_lag_seconds` is lag's
///   histogram), `bench_run_progress_ratio`, `bench_run_running` (1 while sending, 0 before and after),
///   `bench_harness_cpu_busiest_ratio` (the measuring thread's CPU share so far, or a client thread's that reports its
///   own: a target's client groups, agents' threads; a built-in run's own client threads measure theirs at the end);
/// - `bench_run_info{scenario,transport,target,run}` 1.
public enum PrometheusExposition {
    public static func render(_ state: LiveFeed.State, openMetrics: Bool) -> String {
        var text = ""
        func family(_ name: String, _ type: String, _ help: String, unit: String? = nil) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            if openMetrics, let unit { text += "# UNIT \(name) \(unit)\n" }
        }
        func counter(_ name: String, _ help: String, _ samples: [(labels: String, value: Int)]) {
            family(openMetrics ? name : name + "_total", "counter", help)
            for sample in samples { text += "\(name)_total\(sample.labels) \(sample.value)\n" }
        }
        if let run = state.run {
            let labels = "{scenario=\"\(escape(run.scenario))\",transport=\"\(escape(run.transport))\","
                + "target=\"\(escape(run.target))\",run=\"\(escape(run.name))\"}"
            family(openMetrics ? "bench_run" : "bench_run_info", openMetrics ? "info" : "gauge", "The run being measured.")
            text += "bench_run_info\(labels) 1\n"
        }
        let control = state.control
        let statistics = state.snapshot?.statistics
        for histogram in statistics?.histograms ?? [] {
            let name = "bench_\(histogram.metric)_seconds"
            family(name, "histogram", "The run's \(histogram.metric) so far, as its messages settle.", unit: "seconds")
            for (bound, count) in zip(histogram.bounds, histogram.cumulative) {
                text += "\(name)_bucket{le=\"\(seconds(bound))\"} \(count)\n"
            }
            text += "\(name)_bucket{le=\"+Inf\"} \(histogram.count)\n"
            text += "\(name)_sum \(seconds(histogram.sum))\n\(name)_count \(histogram.count)\n"
        }
        counter(
            "bench_messages_sent", "Messages whose turn came (written or dropped), warmup included.",
            [("", control?.dispatchedMessages.load(ordering: .relaxed) ?? 0)])
        counter("bench_messages_measured", "Measured messages settled so far.", [("", state.snapshot?.settledMessages ?? 0)])
        counter(
            "bench_messages_lost", "Measured messages lost so far, by outcome (samples.csv's outcome column).",
            (statistics?.lostByOutcome ?? []).map { ("{reason=\"\($0.outcome)\"}", $0.count) })
        counter("bench_reconnects", "Clients that came back after a drop.", [("", control?.reconnects.load(ordering: .relaxed) ?? 0)])
        family("bench_clients_connected", "gauge", "Clients connected now.")
        text += "bench_clients_connected \(control?.connectedClients.load(ordering: .relaxed) ?? 0)\n"
        if let lag = statistics?.latestLag {
            family("bench_lag_latest_seconds", "gauge", "How late the latest message went, against its timetable.", unit: "seconds")
            text += "bench_lag_latest_seconds \(seconds(lag))\n"
        }
        if let control {
            let total = control.totalMessages.load(ordering: .relaxed)
            let sent = control.dispatchedMessages.load(ordering: .relaxed)
            family("bench_run_progress_ratio", "gauge", "Messages whose turn came, of the run's.")
            text += "bench_run_progress_ratio \(total > 0 ? Double(min(sent, total)) / Double(total) : 0)\n"
        }
        family(
            "bench_harness_cpu_busiest_ratio", "gauge",
            "The busiest harness thread's CPU share so far: the measuring thread, or a client thread that reports its own.")
        text += "bench_harness_cpu_busiest_ratio \(Double(control?.busiestThreadPartsPerMillion.load(ordering: .relaxed) ?? 0) / 1_000_000)\n"
        family("bench_run_running", "gauge", "1 while the run sends and collects, 0 before and once it ended.")
        let running = state.ended == nil && control?.isRunning.load(ordering: .relaxed) == true
        text += "bench_run_running \(running ? 1 : 0)\n"
        if openMetrics { text += "# EOF\n" }
        return text
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
