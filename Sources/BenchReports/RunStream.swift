import BenchClients
import BenchCore
import BenchNet
import BenchScenarios
import Synchronization

/// Writes a run's streamed files as its messages settle: `samples.csv`, for fanout `broadcasts.csv` (chat: `messages.csv`), and
/// `timeline.csv`, from the ``SettledMessage``s of the run's ``SettledQueue``, while a ``RunCollector`` keeps the
/// statistics. At the end of each report interval the files are handed to the kernel and synced to disk, so that a
/// run killed outright leaves its folder readable up to its last interval.
///
/// ``Writer`` does the work on whichever thread calls it (a recording analysed after the fact); ``start(_:)`` runs it
/// on a thread of its own (`bench-results`) during a run, woken by the queue when entries come.
public enum RunStream {
    /// The files and the collector of one run.
    public struct Writer {
        public private(set) var collector: RunCollector
        private let reader: SettledMessageReader
        private let warmup: Int
        private var samples: CSVWriter<FileSink>
        private var broadcasts: CSVWriter<FileSink>?
        private var timeline: CSVWriter<FileSink>
        /// True once ``SettledMessage/Kind/end`` came.
        public private(set) var isFinished = false

        /// Creates the streamed files in `folder` (their headers written) for a run of `configuration`; `live` keeps
        /// what a live view reads too.
        public init(configuration: RunConfiguration, folder: String, live: Bool = false) throws {
            collector = RunCollector(configuration: configuration, live: live)
            reader = collector.reader
            warmup = configuration.warmup
            samples = CSVWriter(sink: try FileSink(creating: "\(folder)/\(SamplesCSV.fileName)"))
            try samples.row(SamplesCSV.header(configuration.scenario, timestamps: configuration.timestamps))
            if let file = BroadcastsCSV.file(for: configuration.scenario) {
                var writer = CSVWriter(sink: try FileSink(creating: "\(folder)/\(file.name)"))
                try writer.row(file.header)
                broadcasts = writer
            }
            timeline = CSVWriter(sink: try FileSink(creating: "\(folder)/\(TimelineCSV.fileName)"))
            try timeline.row(TimelineCSV.header)
        }

        /// Agents brought links of their own: the collector keeps every metric per group from now on.
        public mutating func adopt(_ grouping: LinkGrouping) {
            collector.adopt(grouping)
        }

        /// Takes one entry; returns the rows of a report interval that just ended (empty otherwise).
        @discardableResult
        public mutating func consume(_ entry: SettledMessage) throws -> [TimelineRow] {
            if entry.kind == .message {
                try SamplesCSV.writeRow(
                    entry, reader: reader, origin: collector.origin, warmup: warmup,
                    interval: collector.interval(due: entry.scheduled), to: &samples)
            }
            switch collector.add(entry) {
            case .nothing:
                if entry.kind == .end { try finish() }
                return []
            case .broadcast(let broadcast):
                try broadcasts.map { _ in
                    try BroadcastsCSV.writeRow(
                        broadcast, chat: collector.configuration.scenario == .chat, origin: collector.origin, warmup: warmup,
                        interval: collector.interval(due: broadcast.scheduled), to: &broadcasts!)
                }
                return []
            case .interval(let rows):
                for row in rows { try TimelineCSV.writeRow(row, to: &timeline) }
                try sync()
                return rows
            }
        }

        /// Hands everything written to the kernel and on to disk.
        private mutating func sync() throws {
            try samples.flush()
            try samples.sink.sync()
            if broadcasts != nil {
                try broadcasts!.flush()
                try broadcasts!.sink.sync()
            }
            try timeline.flush()
            try timeline.sink.sync()
        }

        private mutating func finish() throws {
            try sync()
            isFinished = true
        }
    }

    /// A writer running on its own thread during a run.
    /// A run that sends until what it is for is decided (a capacity step): every ``interval`` the writer asks
    /// `isDecided` about what it collected so far, and once it answers true, sending ends (``RunControl/stopWhenDecided()``).
    public struct Decision: Sendable {
        public static let interval: UInt64 = 500_000_000
        let control: RunControl
        let isDecided: @Sendable (RunCollector) -> Bool

        public init(control: RunControl, isDecided: @escaping @Sendable (RunCollector) -> Bool) {
            self.control = control
            self.isDecided = isDecided
        }
    }

    public final class Running: Sendable {
        private let thread: NativeThread<Result<RunCollector, StreamError>>
        private let lines: IntervalLines

        fileprivate init(thread: NativeThread<Result<RunCollector, StreamError>>, lines: IntervalLines) {
            self.thread = thread
            self.lines = lines
        }

        /// The terminal lines of the intervals that ended since the last call.
        public func takeIntervalLines() -> [String] {
            lines.lines.withLock { lines in
                defer { lines.removeAll() }
                return lines
            }
        }

        /// Waits for the end of the stream; the collector, or why the files could not be written.
        public func join() -> Result<RunCollector, StreamError> { thread.join() }
    }

    /// Why the streamed files could not be written.
    public struct StreamError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The longest the writer sleeps on an empty queue before it looks again (the producer wakes it sooner).
    static var idleWait: UInt64 { 100_000_000 }

    /// How often the writer thread publishes what a live view shows.
    public static var livePublishInterval: UInt64 { 250_000_000 }

    /// Starts `writer` on its own thread, taking entries from `queue` until the stream's end. The run goes on if a
    /// file cannot be written (the entries are still taken, so the run never waits for a writer that failed); the
    /// error comes back from ``Running/join()``. With `live`, it publishes the collector's snapshot there every
    /// ``livePublishInterval`` and at the end; with `decision`, it ends sending once that is decided.
    public static func start(
        _ writer: Writer, queue: SettledQueue, mainMetric: String, live: LiveFeed? = nil, decision: Decision? = nil
    ) throws -> Running {
        let every = writer.collector.configuration.reportEvery
        let lines = IntervalLines()
        let box = WriterBox(writer)
        let thread = try NativeThread.spawn(name: "bench-results") { () -> Result<RunCollector, StreamError> in
            var failure: String?
            var nextPublish: UInt64 = 0
            var nextDecision: UInt64 = 0
            while true {
                if let decision, MonotonicClock.now() >= nextDecision {
                    nextDecision = decision.isDecided(box.writer.collector)
                        ? .max : MonotonicClock.now() + Decision.interval
                    if nextDecision == .max { decision.control.stopWhenDecided() }
                }
                if let live, MonotonicClock.now() >= nextPublish {
                    nextPublish = MonotonicClock.now() + livePublishInterval
                    box.writer.collector.liveSnapshot(at: MonotonicClock.now()).map(live.publish)
                }
                guard let entry = queue.pop() else {
                    let untilPublish = live == nil ? idleWait : min(idleWait, nextPublish &- MonotonicClock.now())
                    queue.waitForEntries(upTo: max(1, untilPublish))
                    continue
                }
                if entry.kind == .start, let grouping = queue.announcedGrouping { box.writer.adopt(grouping) }
                if failure == nil {
                    do {
                        let rows = try box.writer.consume(entry)
                        // A run shorter than one interval has its summary table, not a line that repeats it.
                        let wholeRun = rows.first.map { $0.interval == 0 && $0.end - $0.start < every } ?? true
                        if !wholeRun, let line = TimelineCSV.line(rows, metric: mainMetric) {
                            lines.lines.withLock { $0.append(line) }
                        }
                    } catch {
                        failure = "\(error)"
                    }
                }
                if entry.kind == .end { break }
            }
            if let live { box.writer.collector.liveSnapshot(at: MonotonicClock.now()).map(live.publish) }
            if let failure { return .failure(StreamError(description: failure)) }
            return .success(box.writer.collector)
        }
        return Running(thread: thread, lines: lines)
    }

    /// The lines of the intervals that ended, from the writer's thread to whoever shows them.
    fileprivate final class IntervalLines: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// The writer, handed to its thread, which alone uses it from then on.
    private final class WriterBox: @unchecked Sendable {
        var writer: Writer
        init(_ writer: Writer) { self.writer = writer }
    }
}
