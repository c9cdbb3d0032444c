import BenchReports

extension SavedRun {
    /// The run folder a command was given, or a usage error naming it.
    /// Its summaries also hold the other `percentiles` and counts over `limits` asked for (see
    /// ``SavedRun/init(folder:percentiles:limits:)``).
    static func argument(
        _ folder: String, of command: String, percentiles: [Double] = [], limits: [UInt64] = []
    ) throws(UsageError) -> SavedRun {
        do {
            return try SavedRun(folder: folder, percentiles: percentiles, limits: limits)
        } catch {
            throw UsageError(message: "Cannot read run folder '\(folder)': \(error)", command: command)
        }
    }
}
