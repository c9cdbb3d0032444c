import BenchReports

extension SavedRun {
    /// The run folder a command was given, or a usage error naming it.
    static func argument(_ folder: String, of command: String) throws(UsageError) -> SavedRun {
        do {
            return try SavedRun(folder: folder)
        } catch {
            throw UsageError(message: "Cannot read run folder '\(folder)': \(error)", command: command)
        }
    }
}
