import BenchCore
import BenchNet
import BenchScenarios

/// `timeline.csv`'s rows rebuilt from a saved run's `samples.csv` and `broadcasts.csv`, whose rows carry the report
/// interval they settled in: one file at a time, one interval at a time (the files are in interval order), so memory
/// holds one interval's histograms, not the run's.
struct SavedTimeline {
    private static let names = ["delivery", "spread", "completion", "rtt", "lag", "stack"]
    private let every: UInt64
    private let runEnd: UInt64?
    private var current = -1
    private var statistics = IntervalStatistics(metrics: names)
    private var collected: [TimelineRow] = []
    /// A cut-off run's last interval synced to disk (the last in its `timeline.csv`; -1: none): rows past it were
    /// written in part, some files further than others, and are not read.
    let lastSynced: Int?

    /// `cutOffFolder`: the folder of a run that was cut off, whose `timeline.csv` says how far its files are whole.
    init(scenario: String, settings: [(key: String, value: String)], cutOffFolder: String? = nil) throws {
        func setting(_ key: String) -> String? { settings.first { $0.key == key }?.value }
        every = setting("report_every_ns").flatMap { UInt64($0) } ?? 0
        runEnd = setting("duration_s").flatMap { Double($0) }.map { UInt64(($0 * 1000).rounded()) * 1_000_000 }
        if let folder = cutOffFolder {
            var last = -1
            let path = "\(folder)/\(TimelineCSV.fileName)"
            if Posix.fileExists(path) {
                try CSVFileRows.read(path, columns: ["interval"], tolerant: true) { row in
                    last = max(last, Int(row[0]) ?? last)
                }
            }
            lastSynced = last
        } else {
            lastSynced = nil
        }
    }

    /// The interval of `row` (its `interval` column at `column`; empty in runs written before there was one: 0), or
    /// nil for a row of a cut-off run past its last synced interval. Moving on to another interval closes the one before.
    mutating func interval(_ row: CSVFileRows.Row, _ column: Int) throws -> Int? {
        let text = row[column]
        guard let interval = text.isEmpty ? 0 : Int(text), interval >= 0 else {
            throw SavedRun.LoadError(description: "\(row.path) line \(row.line): interval '\(text.prefix(12))' is not one")
        }
        if let lastSynced, interval > lastSynced { return nil }
        if interval != current { close() }
        current = interval
        return interval
    }

    /// Counts `value` (nil: lost) of `metric` in the current interval.
    mutating func add(_ value: UInt64?, _ metric: String, interval: Int) {
        statistics.add(value, at: Self.names.firstIndex(of: metric)!)
    }

    /// Closes the interval being read (at the end of a file).
    private mutating func close() {
        guard current >= 0 else { return }
        let start = UInt64(current) &* every
        collected += statistics.close(interval: current, start: start, end: start &+ every)
        current = -1
    }

    /// Every interval's rows, by interval then in the order of `metrics`; the last interval ends with the run, or at its
    /// own end when the run went on past it (its final interval, after it, had nothing settle in it).
    mutating func rows(metrics: [String]) -> [TimelineRow] {
        close()
        let last = collected.map(\.interval).max()
        return collected.filter { metrics.contains($0.metric) }
            .sorted { ($0.interval, metrics.firstIndex(of: $0.metric)!) < ($1.interval, metrics.firstIndex(of: $1.metric)!) }
            .map { row in
                guard row.interval == last, let runEnd else { return row }
                let end = every > 0 ? min(row.end, max(row.start, runEnd)) : max(row.start, runEnd)
                return TimelineRow(
                    interval: row.interval, start: row.start, end: end, metric: row.metric,
                    count: row.count, lost: row.lost, p50: row.p50, p90: row.p90, p99: row.p99, max: row.max)
            }
    }
}
