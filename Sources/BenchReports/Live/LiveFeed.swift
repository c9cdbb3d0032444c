import BenchClients
import BenchCore
import BenchNet
import BenchScenarios
import Synchronization

/// What a run shows while it goes (`--metrics-listen`): the run's identity, the latest ``LiveSnapshot`` its writer
/// thread published, the measuring role's counters (``RunControl``, read when asked), and how it ended. The writer
/// thread publishes a few times a second; the HTTP thread reads; the command line begins and ends each run (a capacity
/// search: one after another). Nothing here is on a measuring thread's path.
public final class LiveFeed: Sendable {
    /// Who a run is, for `bench_run_info` and the page.
    public struct Run: Sendable {
        public var scenario: String
        public var transport: String
        public var target: String
        /// The run folder's name (under `--out`).
        public var name: String
        public var folder: String
        /// The run's settings as run.csv has them, for the page.
        public var settings: [(key: String, value: String)]
        public var under: UInt64
        public var startedUnixNanoseconds: UInt64

        public init(
            scenario: String, transport: String, target: String, name: String, folder: String,
            settings: [(key: String, value: String)], under: UInt64, startedUnixNanoseconds: UInt64
        ) {
            self.scenario = scenario
            self.transport = transport
            self.target = target
            self.name = name
            self.folder = folder
            self.settings = settings
            self.under = under
            self.startedUnixNanoseconds = startedUnixNanoseconds
        }
    }

    /// What the HTTP thread reads: a copy, taken under the lock.
    public struct State: Sendable {
        public var run: Run?
        public var control: RunControl?
        public var snapshot: LiveSnapshot?
        /// Set when the run ended: its status and where its folder is.
        public var ended: (status: String, folder: String)?
        /// Runs begun so far (a capacity search's steps).
        public var runs = 0

        /// A `--duration` run's length (ns); nil for a run of a number of messages.
        public var runFor: UInt64? {
            run?.settings.first { $0.key == "run_for_ns" }.flatMap { UInt64($0.value) }.flatMap { $0 > 0 ? $0 : nil }
        }

        /// How far the run is, 0…1: of a `--duration` run its time, of any other the messages whose turn came.
        public var progress: Double {
            if ended?.status == "complete" { return 1 }
            if let runFor { return min(1, Double(snapshot?.elapsed ?? 0) / Double(runFor)) }
            guard let control else { return 0 }
            let total = control.totalMessages.load(ordering: .relaxed)
            let sent = control.dispatchedMessages.load(ordering: .relaxed)
            return total > 0 ? Double(min(sent, total)) / Double(total) : 0
        }
    }

    private let state = Mutex(State())
    /// When /metrics and /live.json were last asked for, and how often they are (monotonic ns), for ``linger()``.
    private let looks = Mutex(Looks())

    private struct Looks {
        var lastScrape: UInt64 = 0
        var scrapeGap: UInt64 = 0
        var lastPoll: UInt64 = 0
        var pollGap: UInt64 = 0

        static func seen(_ last: inout UInt64, _ gap: inout UInt64) {
            let now = MonotonicClock.now()
            if last != 0 { gap = now - last }
            last = now
        }
    }

    public init() {}

    /// A run begins: what is shown from now on is its.
    public func begin(_ run: Run, control: RunControl) {
        state.withLock { state in
            state.run = run
            state.control = control
            state.snapshot = nil
            state.ended = nil
            state.runs += 1
        }
    }

    /// The writer thread's latest statistics.
    public func publish(_ snapshot: LiveSnapshot) {
        state.withLock { $0.snapshot = snapshot }
    }

    /// The run ended with `status`; its folder is `folder` (empty when none was written).
    public func end(status: String, folder: String) {
        state.withLock { $0.ended = (status, folder) }
    }

    public var current: State { state.withLock { $0 } }

    /// After the last run: when someone was watching, waits until they have looked once more (a Prometheus scrape, a
    /// page's poll), so that they see how it ended: at most twice the gap between their looks (5 s when only one look
    /// came, so the gap is not known), and never more than 10 s. `note` is told how long it may wait.
    public func linger(note: (UInt64) -> Void = { _ in }) {
        let endedAt = MonotonicClock.now()
        let longest: UInt64 = 10_000_000_000
        let (scrape, poll) = looks.withLock { looks in
            (looks.lastScrape == 0 ? nil : looks.scrapeGap == 0 ? longest / 4 : looks.scrapeGap,
                looks.lastPoll == 0 ? nil : looks.pollGap == 0 ? longest / 4 : looks.pollGap)
        }
        guard scrape != nil || poll != nil else { return }
        let wait = min(longest, 2 * max(scrape ?? 0, poll ?? 0, 500_000_000))
        note(wait)
        while MonotonicClock.now() < endedAt + wait {
            let seen = looks.withLock {
                (scrape == nil || $0.lastScrape > endedAt) && (poll == nil || $0.lastPoll > endedAt)
            }
            if seen { return }
            Posix.sleep(nanoseconds: 20_000_000)
        }
    }

    /// The HTTP thread's answer to `request`: `/metrics` (Prometheus's text format, or OpenMetrics when asked for),
    /// `/live.json`, `/` (the page), 404 otherwise.
    public func respond(to request: HTTPRequestHead) -> HTTPServer.Response {
        switch request.path {
        case "/metrics":
            looks.withLock { Looks.seen(&$0.lastScrape, &$0.scrapeGap) }
            let openMetrics = request.fields["accept"]?.contains("application/openmetrics-text") == true
            return HTTPServer.Response(
                contentType: openMetrics
                    ? "application/openmetrics-text; version=1.0.0; charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8",
                text: PrometheusExposition.render(current, openMetrics: openMetrics))
        case "/live.json":
            looks.withLock { Looks.seen(&$0.lastPoll, &$0.pollGap) }
            return HTTPServer.Response(contentType: "application/json", text: LiveJSON.render(current))
        case "/", "/index.html":
            return HTTPServer.Response(contentType: "text/html; charset=utf-8", text: LivePage.html(current))
        default:
            return HTTPServer.Response(status: 404, contentType: "text/plain", text: "not here: try /, /metrics or /live.json\n")
        }
    }
}
