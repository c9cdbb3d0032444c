import BenchClients
import BenchCore
import BenchScenarios
import BenchNet

/// The lines about a saved run that a reader must not miss, worded once for `summary.md` and `report.html`: a harness
/// that was the bottleneck, the outages and the connections closed early, with the same counts as `run.csv` and the
/// terminal's summary.
enum RunNotes {
    /// `outages: 50 connections closed during the run; 48 came back, 2 did not; the last back 2.6s after the first
    /// close, at most 48 returns in a second` (the herd, where run.csv has it); nil without outages.
    static func outages(_ results: RunResults) -> String? {
        let outages = count(results, "client_outages")
        guard outages > 0 else { return nil }
        let back = count(results, "client_outages_back")
        let lastBack = results.setting("returns_last_back_ns").flatMap { UInt64($0) }
        let peak = results.setting("returns_peak_per_s").flatMap { Int($0) }
        let herd = lastBack.map { lastBack in
            "; the last back \(DurationText.display(lastBack)) after the first close"
                + (peak.map { ", at most \($0) returns in a second" } ?? "")
        } ?? ""
        return "outages: \(outages) connections closed during the run; \(back) came back, \(outages - back) did not\(herd)"
    }

    /// `note: accept queues overflowed 37 times during the run …` (run.csv's `listen_overflows`); nil when none.
    static func listenOverflows(_ results: RunResults) -> String? {
        SynRetries.overflowNote(results.setting("listen_overflows").flatMap { UInt64($0) }).map { "note: " + $0 }
    }

    /// `link: bytes let out after the model's time by p50 …` (run.csv's `link_lateness_*_ns`); nil without a link.
    static func linkLateness(_ results: RunResults) -> String? {
        let figures = ["p50", "p99", "max"].compactMap { results.setting("link_lateness_\($0)_ns").flatMap { UInt64($0) } }
        guard figures.count == 3 else { return nil }
        return LinkLateness(writes: 0, p50: figures[0], p99: figures[1], maximum: figures[2]).note
    }

    /// `connections closed early: 5 by the server (events also: 3 seen by the clients); see events.csv`; nil when none.
    static func closedEarly(_ results: RunResults) -> String? {
        let (closed, clients, listener, link, run) = (
            count(results, "connections_closed_early"), count(results, "client_side_events"),
            count(results, "listener_events"), count(results, "link_events"), count(results, "run_events"))
        guard closed + clients + listener + link + run > 0 else { return nil }
        return closedEarly(byServer: closed, seenByClients: clients, ofListener: listener, ofLink: link, ofRun: run)
            + "; see events.csv"
    }

    /// The counts of events.csv by side, worded once for the terminal and the saved reports:
    /// `connections closed early: 5 by the server (events also: 3 seen by the clients, 1 of the listener, 2 of the link)`,
    /// or `events: 1 of the run` when the server closed none.
    static func closedEarly(
        byServer closed: Int, seenByClients clients: Int, ofListener listener: Int, ofLink link: Int, ofRun run: Int = 0
    ) -> String {
        var others: [String] = []
        if clients > 0 { others.append("\(clients) seen by the clients") }
        if listener > 0 { others.append("\(listener) of the listener") }
        if link > 0 { others.append("\(link) of the link") }
        if run > 0 { others.append("\(run) of the run (why it measured nothing)") }
        guard closed > 0 || others.isEmpty else { return "events: " + others.joined(separator: ", ") }
        return "connections closed early: \(closed) by the server"
            + (others.isEmpty ? "" : " (events also: " + others.joined(separator: ", ") + ")")
    }

    /// `harness saturated: its timetable slipped: …; these numbers are partly the harness's …`; nil when it was
    /// not.
    static func harness(_ results: RunResults) -> String? {
        guard results.setting("harness_saturated") == "1" else { return nil }
        return "harness saturated: \(results.setting("harness_saturation") ?? "")"
            + (results.setting("harness_advice").map { $0.isEmpty ? "" : "; " + $0 } ?? "")
    }

    /// `machine disturbed: the machine was busy with other work: …`, or `note: other processes used 93% of a CPU
    /// during this run` where other work took that much without holding the timetable back; nil on a quiet machine.
    static func machine(_ results: RunResults) -> String? {
        if results.setting("machine_disturbed") == "1" {
            return "machine disturbed: \(results.setting("machine_disturbance") ?? ""); \(HarnessLoad.disturbanceAdvice)"
        }
        guard let percent = results.setting("other_processes_cpu_pct").flatMap(Double.init),
            percent >= 100 * MachineShare.disturbingCPU
        else { return nil }
        return "note: other processes used \(Int(percent.rounded()))% of a CPU during this run"
    }

    /// `30 of 1000 delivery values (3.0%) were lost: …` when the main metric lost more than
    /// ``MeasurementYield/warningShare`` of its values; nil otherwise.
    static func losses(_ results: RunResults) -> String? {
        guard let scenario = results.setting("scenario").flatMap(Scenario.init(rawValue:)) else { return nil }
        let metric = RunAnalysis.Metric.main(of: scenario).rawValue
        guard let summary = results.summaries.first(where: { $0.metric == metric }), summary.count > 0 else { return nil }
        let total = summary.count + summary.lost
        guard Double(summary.lost) > MeasurementYield.warningShare * Double(total) else { return nil }
        return "warning: " + MeasurementYield.lossWarning(
            lost: summary.lost, of: total, metric: metric, hasEvents: closedEarly(results) != nil)
    }

    /// `the server did not keep up: its timetable slipped …`; nil when it kept up or the harness was the limit.
    static func backpressure(_ results: RunResults) -> String? {
        results.setting("server_backpressure").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `12 of 1000 connects (1.2%) took about 1 s or 3 s, …`: a herd against a small accept backlog; nil otherwise.
    static func synRetries(_ results: RunResults) -> String? {
        let total = results.summaries.first { $0.metric == "connect" }.map { $0.count } ?? 0
        return SynRetries.note(count: count(results, "connects_after_syn_retry"), of: total)
    }

    private static func count(_ results: RunResults, _ key: String) -> Int {
        results.setting(key).flatMap { Int($0) } ?? 0
    }
}
