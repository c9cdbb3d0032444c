import BenchCore

/// `summary.md`: the run's summary table in GitHub-flavoured Markdown, for a CI job summary.
public enum MarkdownSummary {
    public static let fileName = "summary.md"

    public static func render(_ results: RunResults) -> String {
        let setting = { (key: String) in results.setting(key) ?? "-" }
        let messages = results.durationText ?? results.setting("messages").map { "\($0) broadcasts" }
            ?? results.setting("count").map { "\($0) messages per client" } ?? "-"
        let under = results.setting("under_ns").flatMap { UInt64($0) } ?? 0
        let target = results.setting("target").flatMap { $0.isEmpty ? nil : $0 }
        // What was measured: the user's server at its URL, or the built-in one over its transport (a folder written
        // before run.csv had a transport says neither).
        let server = target.map { " through `\(escape($0))`" } ?? results.setting("transport").map { " over \($0)" } ?? ""
        var text = "### bench \(setting("scenario"))\(server): \(setting("status"))\n\n"
        text += "\(setting("clients")) clients · \(messages) · every \(setting("interval")) (\(setting("arrival")))"
            + " · \(setting("payload_bytes")) B · seed \(setting("seed"))"
            + (target == nil ? cpus("server CPU", results.setting("server_cpus")) : "")
            + cpus("clients CPU", results.setting("client_cpus")) + " · \(setting("start_utc"))\n\n"
        if let reason = results.setting("status_reason"), !reason.isEmpty { text += "Status: \(escape(reason))\n\n" }
        // The same counts as run.csv and the terminal's summary.
        let notes = [
            RunNotes.harness(results), RunNotes.machine(results), RunNotes.backpressure(results), RunNotes.losses(results), RunNotes.outages(results), RunNotes.listenOverflows(results), RunNotes.linkLateness(results), RunNotes.closedEarly(results),
            RunNotes.synRetries(results),
        ].compactMap { $0 }
        for note in notes { text += "- " + escape(note) + "\n" }
        if !notes.isEmpty { text += "\n" }
        text += "| " + SummaryRow.header(under: under).joined(separator: " | ") + " |\n"
        text += "|---|--:|--:|--:|--:|--:|--:|--:|--:|\n"
        for summary in results.summaries {
            text += "| " + SummaryRow.cells(summary).map(escape).joined(separator: " | ") + " |\n"
        }
        if !results.thresholds.isEmpty {
            text += "\n"
            for result in results.thresholds {
                let check = result.source == .check ? " (added by bench check)" : ""
                text += "- \(result.verdict.markdownMark) `\(result.namedExpression)`\(check): \(escape(result.measurementText))"
                    + (result.inconclusive.isEmpty
                        ? "" : " — " + escape(result.inconclusiveText))
                    + "\n"
            }
        }
        return text
    }

    /// ` · clients CPU 0-1`, or nothing where the run recorded no CPUs (a chat run's clients are a target's).
    private static func cpus(_ label: String, _ value: String?) -> String {
        guard let value, !value.isEmpty else { return "" }
        return " · \(label) \(value)"
    }

    /// A table cell's text with `|` escaped.
    private static func escape(_ text: String) -> String {
        text.replacingAll("|", with: "\\|")
    }
}
