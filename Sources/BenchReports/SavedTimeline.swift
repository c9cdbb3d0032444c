import BenchCore
import BenchNet
import BenchScenarios

/// `timeline.csv`'s rows rebuilt from a saved run's `samples.csv` and `broadcasts.csv` (or `messages.csv`), whose
/// rows carry the report interval they count in (the one their message fell due in): one file at a time. A file's rows
/// are in the order they were handed on, each within ``RunCollector/mostOpenIntervals`` of the latest interval seen
/// (the collector never counts further back), so memory holds that many intervals' histograms, not the run's.
struct SavedTimeline {
    private static let names = ["delivery", "spread", "completion", "rtt", "lag", "stack"]
    private let every: UInt64
    private let runEnd: UInt64?
    /// The intervals of the file being read still open, by number.
    private var open: [Int: IntervalStatistics] = [:]
    private var latest = -1
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
    /// nil for a row of a cut-off run past its last synced interval. An interval that no later row can count in any more
    /// closes.
    mutating func interval(_ row: CSVFileRows.Row, _ column: Int) throws -> Int? {
        let text = row[column]
        guard let interval = text.isEmpty ? 0 : Int(text), interval >= 0 else {
            throw SavedRun.LoadError(description: "\(row.path) line \(row.line): interval '\(text.prefix(12))' is not one")
        }
        if let lastSynced, interval > lastSynced { return nil }
        if interval > latest {
            latest = interval
            for old in open.keys where old <= latest - RunCollector.mostOpenIntervals { close(old) }
        }
        return interval
    }

    /// Counts `value` (nil: lost) of `metric` in interval `interval`.
    mutating func add(_ value: UInt64?, _ metric: String, interval: Int) {
        open[interval, default: IntervalStatistics(metrics: Self.names)].add(value, at: Self.names.firstIndex(of: metric)!)
    }

    /// Closes every interval of the file read so far: the next file starts from its own first.
    mutating func endFile() {
        for interval in open.keys.sorted() { close(interval) }
        latest = -1
    }

    private mutating func close(_ interval: Int) {
        guard var statistics = open.removeValue(forKey: interval) else { return }
        let start = UInt64(interval) &* every
        collected += statistics.close(interval: interval, start: start, end: start &+ every)
    }

    /// Every interval's rows, by interval then in the order of `metrics`; the last interval ends with the run, or at its
    /// own end when the run went on past it (its final interval, after it, had nothing settle in it).
    mutating func rows(metrics: [String]) -> [TimelineRow] {
        endFile()
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
