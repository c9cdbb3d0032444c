import BenchCore

/// The reports made from a run's results for people and CI: `summary.md`, `junit.xml`, `report.html` and one
/// `<metric>.hgrm` per metric. Written after the CSV files, and rewritten from them by `bench report`.
public enum DerivedReports {
    /// Writes every derived report into `folder`, each atomically.
    public static func write(_ results: RunResults, into folder: String) throws {
        try AtomicFile.writeText(folder + "/" + MarkdownSummary.fileName, MarkdownSummary.render(results))
        try AtomicFile.writeText(folder + "/" + JUnitXML.fileName, JUnitXML.render(results))
        try AtomicFile.writeText(folder + "/" + HTMLRunReport.fileName, HTMLRunReport.render(results))
        for (summary, histogram) in zip(results.summaries, results.histograms) {
            try AtomicFile.writeText(
                folder + "/" + summary.metric + ".hgrm", PercentileDistributionText.render(histogram))
        }
    }
}
