import BenchCore
import BenchNet
import BenchReports

/// `bench report RUN_FOLDER`: rewrites a run folder's derived reports from its CSV files alone.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Regenerate a run folder's summary.md, junit.xml, report.html and .hgrm files from its CSV files.",
        overview: "Read a run folder's run.csv, samples.csv, broadcasts.csv and thresholds.csv and write its "
            + "summary.md, junit.xml, report.html and one <metric>.hgrm per metric again. Nothing is run. For a "
            + "sweep folder, each step's, then sweep.csv, sweep.md and sweep.html from them.",
        arguments: [("run-folder", "A run folder, e.g. results/fanout-20261122-153000, or a sweep folder.")],
        options: []
    )

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        var folder = parsed.positionals[0]
        if Posix.fileExists(folder + "/" + SweepReport.csvFileName) { return try sweep(folder) }
        let run = try SavedRun.argument(folder, of: spec.name)
        // `running` with its process alive is a run still going, not one cut off: its files are not ours to rewrite.
        if run.wasCutOff, let pid = run.settings.first(where: { $0.key == "pid" })?.value, RunFolder.isAlive(pid: pid) {
            throw UsageError(
                message: "\(folder) is the folder of a run still going (process \(pid)): report on it once it ended",
                command: spec.name)
        }
        do {
            if run.wasCutOff {
                try run.writeRebuiltFiles()
                folder = try RunFolder.publishCutOff(folder, scenario: run.scenario)
                Console.out("\(folder): the run was cut off; rebuilt \(RunSettingsCSV.fileName) (status incomplete), "
                    + "\(SummaryCSV.fileName), \(HistogramCSV.fileName) and \(TimelineCSV.fileName) from what it wrote\n")
            }
            try DerivedReports.write(run.results, into: folder)
        } catch {
            Console.error("Error: could not write the reports into \(folder): \(error)\n")
            return .runFailed
        }
        let metrics = run.results.summaries.map { "\($0.metric).hgrm" }.joined(separator: ", ")
        Console.out("wrote \(MarkdownSummary.fileName), \(JUnitXML.fileName), \(HTMLRunReport.fileName), \(metrics) "
            + "in \(folder)\n")
        return .success
    }

    /// A sweep: each step's reports, then the sweep's own, from the steps' files (the swept settings are the columns
    /// of sweep.csv before `metric`, read from each step's run.csv).
    private static func sweep(_ folder: String) throws(UsageError) -> ExitCode {
        let rows: [[String]]
        do {
            rows = try FileText.read(folder + "/" + SweepReport.csvFileName).split(separator: "\r\n")
                .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        } catch {
            throw UsageError(message: "Cannot read \(folder)/\(SweepReport.csvFileName): \(error)", command: spec.name)
        }
        let swept = Array((rows.first ?? []).prefix { $0 != "metric" })
        // The steps in the order the sweep ran them, as sweep.csv lists them.
        var order: [[String]] = []
        for row in rows.dropFirst() where !order.contains(Array(row.prefix(swept.count))) {
            order.append(Array(row.prefix(swept.count)))
        }
        let folders = ((try? Posix.directoryEntries(folder)) ?? []).sorted().filter {
            Posix.fileExists(folder + "/" + $0 + "/run.csv")
        }
        guard !folders.isEmpty else {
            throw UsageError(message: "'\(folder)' holds no run folders", command: spec.name)
        }
        // Every step is read before any is written: a step that does not read leaves the whole sweep as it was.
        var runs: [(name: String, run: SavedRun)] = []
        for name in folders { runs.append((name, try SavedRun.argument(folder + "/" + name, of: spec.name))) }
        var steps: [SweepReport.Step] = []
        var repeats = 1
        for (name, run) in runs {
            do {
                try DerivedReports.write(run.results, into: folder + "/" + name)
            } catch {
                Console.error("Error: could not write the reports into \(folder)/\(name): \(error)\n")
                return .runFailed
            }
            let repeatIndex = name.firstRange(of: "-repeat-").flatMap { Int(name[$0.upperBound...]) } ?? 1
            repeats = max(repeats, repeatIndex)
            steps.append(SweepReport.Step(
                settings: swept.map { ($0, run.results.setting($0) ?? "") }, repeatIndex: repeatIndex, folder: name,
                summaries: run.results.summaries, saturated: run.results.setting("harness_saturated") == "1",
                disturbed: run.results.setting("machine_disturbed") == "1"))
        }
        steps.sort { left, right in
            let (a, b) = (order.firstIndex(of: left.key) ?? .max, order.firstIndex(of: right.key) ?? .max)
            return a != b ? a < b : left.repeatIndex < right.repeatIndex
        }
        let run = runs[0].run
        let report = SweepReport(
            scenario: run.scenario, under: run.results.setting("under_ns").flatMap { UInt64($0) } ?? 0,
            repeats: repeats, steps: steps)
        do {
            try report.write(into: folder)
        } catch {
            Console.error("Error: could not write the sweep's reports into \(folder): \(error)\n")
            return .runFailed
        }
        Console.out("wrote the reports of \(steps.count) runs, \(SweepReport.csvFileName), \(SweepReport.markdownFileName) "
            + "and \(SweepReport.htmlFileName) in \(folder)\n")
        return .success
    }
}
