import BenchReports

/// `bench report RUN_FOLDER`: rewrites a run folder's derived reports from its CSV files alone.
enum ReportCommand {
    static let spec = CommandSpec(
        name: "report",
        abstract: "Regenerate a run folder's summary.md, junit.xml, report.html and .hgrm files from its CSV files.",
        overview: "Read a run folder's run.csv, samples.csv, broadcasts.csv and thresholds.csv and write its "
            + "summary.md, junit.xml, report.html and one <metric>.hgrm per metric again. Nothing is run.",
        arguments: [("run-folder", "A run folder, e.g. results/fanout-20261122-153000.")],
        options: []
    )

    static func execute(_ parsed: ParsedOptions) throws(UsageError) -> ExitCode {
        let folder = parsed.positionals[0]
        let run = try SavedRun.argument(folder, of: spec.name)
        do {
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
}
