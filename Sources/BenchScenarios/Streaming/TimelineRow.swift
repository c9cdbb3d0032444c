import BenchCore

/// One report interval × metric of `timeline.csv`: what settled in that interval (`--report-every`), so that drift
/// over a long run shows. Percentiles come from a histogram (within ``LatencyHistogram/relativeError``).
public struct TimelineRow: Sendable, Equatable {
    /// The interval's number, from 0.
    public let interval: Int
    /// Its start and end, nanoseconds after the run's start (the last one ends with the run).
    public let start: UInt64
    public let end: UInt64
    public let metric: String
    public let count: Int
    public let lost: Int
    public let p50: UInt64?
    public let p90: UInt64?
    public let p99: UInt64?
    public let max: UInt64?

    public init(
        interval: Int, start: UInt64, end: UInt64, metric: String, count: Int, lost: Int, p50: UInt64?, p90: UInt64?,
        p99: UInt64?, max: UInt64?
    ) {
        self.interval = interval
        self.start = start
        self.end = end
        self.metric = metric
        self.count = count
        self.lost = lost
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }
}

/// The metrics of one report interval as they come in: a histogram and a loss count per metric.
public struct IntervalStatistics: Sendable {
    public let metrics: [String]
    private var histograms: [LatencyHistogram]
    private var lost: [Int]

    public init(metrics: [String]) {
        self.metrics = metrics
        histograms = metrics.map { _ in LatencyHistogram() }
        lost = metrics.map { _ in 0 }
    }

    /// Counts a value (nil: a loss) of the metric at `position` in ``metrics``.
    public mutating func add(_ value: UInt64?, at position: Int) {
        if let value {
            histograms[position].record(Swift.min(value, histograms[position].highestTrackableValue))
        } else {
            lost[position] += 1
        }
    }

    /// The interval's rows, one per metric with anything in it; the statistics start over.
    public mutating func close(interval: Int, start: UInt64, end: UInt64) -> [TimelineRow] {
        let rows = peek(interval: interval, start: start, end: end)
        for position in metrics.indices {
            histograms[position] = LatencyHistogram()
            lost[position] = 0
        }
        return rows
    }

    /// The rows of the interval so far, one per metric with anything in it, the statistics kept.
    public func peek(interval: Int, start: UInt64, end: UInt64) -> [TimelineRow] {
        metrics.indices.filter { histograms[$0].count > 0 || lost[$0] > 0 }.map { position in
            TimelineRow(histograms[position], lost: lost[position], interval: interval, start: start, end: end, metric: metrics[position])
        }
    }
}

extension TimelineRow {
    /// A row of `histogram`'s statistics with `lost` losses.
    public init(_ histogram: LatencyHistogram, lost: Int, interval: Int, start: UInt64, end: UInt64, metric: String) {
        self.init(
            interval: interval, start: start, end: end, metric: metric, count: Int(histogram.count), lost: lost,
            p50: histogram.value(atPercentile: 50), p90: histogram.value(atPercentile: 90),
            p99: histogram.value(atPercentile: 99), max: histogram.max)
    }
}
