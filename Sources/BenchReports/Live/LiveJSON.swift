import BenchCore
import BenchScenarios

/// What the live page polls (`/live.json`): the run's identity and settings, its progress, each metric so far, the
/// report interval under way and those that ended, the main metric second by second (`points`), and behind a mix of
/// links each group's metrics so far (`links`: name, clients, totals). Durations in
/// nanoseconds (`_ns`), times of the run in seconds from its start (`_s`).
enum LiveJSON {
    static func render(_ state: LiveFeed.State) -> String {
        var fields: [String] = []
        if let run = state.run {
            let status = state.ended.map { "\"ended\",\"ended_status\":\(JSONText.string($0.status)),\"folder\":\(JSONText.string($0.folder))" }
                ?? (state.control?.isRunning.load(ordering: .relaxed) == true ? "\"running\"" : "\"setting up\"")
            fields.append(
                "\"run\":{\"scenario\":\(JSONText.string(run.scenario)),\"transport\":\(JSONText.string(run.transport)),"
                    + "\"target\":\(JSONText.string(run.target)),\"name\":\(JSONText.string(run.name)),\"number\":\(state.runs),"
                    + "\"started_unix_ms\":\(run.startedUnixNanoseconds / 1_000_000),\"under_ns\":\(run.under),"
                    + "\"status\":\(status)}")
            // As report.html labels them, each in its unit (`timeout 5s`), not as run.csv keys them.
            let readable = HTMLRunReport.readableSettings(RunResults(
                settings: run.settings, summaries: [], histograms: [], broadcasts: [], thresholds: []))
            fields.append("\"settings\":[" + readable.map { "[\(JSONText.string($0.key)),\(JSONText.string($0.value))]" }.joined(separator: ",") + "]")
        }
        if let control = state.control {
            fields.append(
                "\"progress\":{\"ratio\":\(state.progress),\"sent\":\(control.dispatchedMessages.load(ordering: .relaxed)),"
                    + "\"total\":\(state.runFor == nil ? "\(control.totalMessages.load(ordering: .relaxed))" : "null"),"
                    + "\"run_for_s\":\(state.runFor.map(PrometheusExposition.seconds) ?? "null"),"
                    + "\"connected\":\(control.connectedClients.load(ordering: .relaxed)),"
                    + "\"reconnects\":\(control.reconnects.load(ordering: .relaxed))}")
        }
        if let snapshot = state.snapshot {
            fields.append("\"elapsed_s\":\(PrometheusExposition.seconds(snapshot.elapsed))")
            fields.append("\"measured\":\(snapshot.settledMessages)")
            fields.append("\"lost\":{" + snapshot.statistics.lostByOutcome.map { "\(JSONText.string($0.outcome)):\($0.count)" }
                .joined(separator: ",") + "}")
            fields.append("\"totals\":" + rows(snapshot.totals))
            fields.append("\"current\":" + rows(snapshot.current))
            fields.append("\"timeline\":" + rows(snapshot.timeline))
            fields.append("\"points\":" + rows(snapshot.points))
            fields.append("\"links\":[" + snapshot.linkGroups.map { group in
                "{\"name\":\(JSONText.string(group.name)),\"clients\":\(group.clients),\"totals\":" + rows(group.totals) + "}"
            }.joined(separator: ",") + "]")
        }
        return "{" + fields.joined(separator: ",") + "}\n"
    }

    private static func rows(_ rows: [TimelineRow]) -> String {
        "[" + rows.map { row in
            "{\"metric\":\(JSONText.string(row.metric)),\"interval\":\(row.interval),\"start_s\":\(PrometheusExposition.seconds(row.start)),"
                + "\"end_s\":\(PrometheusExposition.seconds(row.end)),\"count\":\(row.count),\"lost\":\(row.lost),"
                + "\"p50_ns\":\(number(row.p50)),\"p90_ns\":\(number(row.p90)),\"p99_ns\":\(number(row.p99)),"
                + "\"max_ns\":\(number(row.max))}"
        }.joined(separator: ",") + "]"
    }

    private static func number(_ value: UInt64?) -> String { value.map(String.init) ?? "null" }
}
