import BenchCore

/// What a suite did: one entry per run, as `suite.csv`, `suite.md` and a few lines for the terminal.
public struct SuiteSummary: Sendable {
    /// One run of the suite (a line with a payload list makes one entry per size).
    public struct Entry: Sendable {
        public let name: String
        public let command: String
        /// The run folder, if the run got that far.
        public let folder: String?
        /// `complete`, `interrupted`, `failed`; nil when the run could not be done.
        public let status: String?
        /// For a run that did not complete: why, and how much of it was measured.
        public let statusDetail: String?
        public let thresholds: [ThresholdResult]
        public let exitCode: Int32
        /// What the run measured, per metric (empty when it could not run).
        public let summaries: [DistributionSummary]
        /// True for an attempt whose verdict was inconclusive and that was tried again (`--retries`): listed, not
        /// counted in the suite's exit code or junit.xml; the attempt after it is.
        public let triedAgain: Bool

        public init(
            name: String, command: String, folder: String?, status: String?, statusDetail: String? = nil,
            thresholds: [ThresholdResult], exitCode: Int32, summaries: [DistributionSummary] = [], triedAgain: Bool = false
        ) {
            self.triedAgain = triedAgain
            self.summaries = summaries
            self.name = name
            self.command = command
            self.folder = folder
            self.status = status
            self.statusDetail = statusDetail
            self.thresholds = thresholds
            self.exitCode = exitCode
        }

        var breached: [ThresholdResult] { thresholds.filter { $0.verdict == .breached } }

        var inconclusive: [ThresholdResult] { thresholds.filter { $0.verdict == .inconclusive } }

        /// `ok`, `threshold breached`, `could not run`, `inconclusive (saturated)` with its reasons, `interrupted`.
        var verdict: String {
            switch exitCode {
            case 0: return "ok"
            case 1: return "threshold breached"
            case 3: return "could not run"
            case 4:
                var reasons: [String] = []
                for reason in inconclusive.flatMap(\.inconclusive) where !reasons.contains(reason.rawValue) {
                    reasons.append(reason.rawValue)
                }
                return "inconclusive" + (reasons.isEmpty ? "" : " (" + reasons.joined(separator: ", ") + ")")
                    + (triedAgain ? ", tried again" : "")
            default: return "interrupted"
            }
        }

        /// ✅, ❌, or ⚠️ for a verdict that is no measurement of the server.
        var mark: String { triedAgain ? "↻" : exitCode == 0 ? "✅" : exitCode == 4 ? "⚠️" : "❌" }

        /// The lines that say what did not hold: each breach, and each verdict that is inconclusive and why.
        var problems: [String] {
            let failure = exitCode == 3 ? statusDetail.map { ["the run could not be done: \($0)"] } ?? [] : []
            return failure + thresholds.filter { $0.verdict != .held }.map(ThresholdText.line)
        }
    }

    public static let csvFileName = "suite.csv"
    public static let markdownFileName = "suite.md"

    public let entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// `suite.csv`: `name,command,status,run_folder,thresholds,breached,inconclusive,exit_code,tried_again`.
    public func writeCSV<Sink: ByteSink>(to writer: inout CSVWriter<Sink>) throws {
        try writer.row([
            "name", "command", "status", "run_folder", "thresholds", "breached", "inconclusive", "exit_code", "tried_again",
        ])
        for entry in entries {
            writer.field(entry.name)
            writer.field(entry.command)
            writer.field(entry.status ?? "")
            writer.field(entry.folder ?? "")
            writer.field(entry.thresholds.count)
            writer.field(entry.breached.count)
            writer.field(entry.inconclusive.count)
            writer.field(Int(entry.exitCode))
            writer.field(entry.triedAgain ? "1" : "0")
            try writer.endRow()
        }
    }

    /// `suite.md`, also appended to a GitHub Actions job summary.
    public var markdown: String {
        var text = "### bench suite\n\n| run | verdict | thresholds held | folder |\n|---|---|--:|---|\n"
        for entry in entries {
            let held = "\(entry.thresholds.filter { $0.verdict == .held }.count)/\(entry.thresholds.count)"
            text += "| \(entry.name) | \(entry.mark) \(entry.verdict) | \(held) | "
                + "`\(entry.folder ?? "-")` |\n"
        }
        let breaches = entries.flatMap { entry in entry.problems.map { "- \(entry.name): \($0)" } }
        if !breaches.isEmpty { text += "\n" + breaches.joined(separator: "\n") + "\n" }
        let measured = entries.filter { !$0.summaries.isEmpty }
        if !measured.isEmpty {
            text += "\n| run | metric | p50 | p99 | under | lost |\n|---|---|--:|--:|--:|--:|\n"
            for entry in measured {
                for summary in entry.summaries {
                    let time = { (value: UInt64?) in value.map { DisplayDuration.text(nanoseconds: $0) } ?? "-" }
                    let under = summary.percentUnder.map { DecimalText.fixed($0, fractionDigits: 2) + "%" } ?? "-"
                    text += "| \(entry.name) | \(summary.metric) | \(time(summary.p50)) | \(time(summary.p99)) | "
                        + "\(under) | \(summary.lost) |\n"
                }
            }
        }
        return text
    }

    /// A line per run, then the breaches, for the terminal.
    public var text: String {
        let width = entries.map(\.name.count).max() ?? 0
        var lines = entries.map { entry in
            let held = "\(entry.thresholds.filter { $0.verdict == .held }.count)/\(entry.thresholds.count) thresholds held"
            return entry.name + String(repeating: " ", count: width - entry.name.count) + "  \(entry.verdict), \(held)"
        }
        lines += entries.flatMap { entry in entry.problems.map { "\(entry.name): \($0)" } }
        return lines.map { $0 + "\n" }.joined()
    }
}
