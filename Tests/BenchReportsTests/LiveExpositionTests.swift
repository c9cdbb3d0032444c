import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios
import Foundation
import Testing

/// What `/metrics` serves, read as Prometheus reads it: scraped from a real run while it goes (over the live view's own
/// HTTP server), every line a comment or a valid sample of a declared family, every histogram's buckets cumulative with
/// `+Inf` equal to its `_count`; and at the end, the counts are the run's own.
@Suite(.timeLimit(.minutes(10))) struct LiveExpositionTests {
    @Test(arguments: [false, true])
    func aRunScrapedWhileItGoesServesAValidExpositionThatEndsAtTheRunsOwnCounts(openMetrics: Bool) throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 3)
        configuration.clients = 8
        configuration.messages = 3_000  // a minute: stopped once scraped mid-run
        configuration.warmup = 2
        configuration.interval = 20_000_000
        configuration.reportEvery = 300_000_000
        let live = try LiveRun(configuration, name: "live \"test\"\nrun", settings: [])
        defer { live.close() }
        let (feed, server, control, folder) = (live.feed, live.server, live.control, live.folder)
        // Mid-run: scraped until something was measured (a bound only a hang reaches), each scrape valid.
        var midRun = ""
        for _ in 0..<3_000 where !midRun.contains("bench_delivery_seconds_count ") || midRun.contains("bench_delivery_seconds_count 0\n") {
            midRun = try Self.scrape(server.address, openMetrics: openMetrics)
            try Self.check(midRun, openMetrics: openMetrics)
            usleep(10_000)
        }
        #expect(midRun.contains("bench_run_running 1"), "\(midRun)")
        control.requestStop()
        let (recording, collector) = try live.join()
        feed.end(status: recording.status.rawValue, folder: folder)
        let final = try Self.scrape(server.address, openMetrics: openMetrics)
        let families = try Self.check(final, openMetrics: openMetrics)
        let analysis = collector.analysis(of: recording)
        let delivery = try #require(analysis.summary(of: .delivery))
        #expect(families["bench_delivery_seconds_count"] == Double(delivery.count), "\(final)")
        #expect(families["bench_messages_measured_total"] == Double(collector.measuredMessages))
        #expect(recording.status == .interrupted)
        #expect(final.contains("bench_run_running 0"))
        #expect(final.contains(#"run="live \"test\"\nrun""#), "label values escaped")
    }

    /// The progress of a `--duration` run is its time: scraped once a report interval has ended, it is at least that
    /// interval's share of the run (it read 3.9e-08 at 8 s of 20 s when it was the messages sent of 2^32 per client),
    /// and `/live.json` gives no message total for it.
    @Test func aTimedRunsProgressIsItsTime() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 5)
        configuration.clients = 4
        configuration.duration = 60_000_000_000  // stopped once scraped
        configuration.interval = 20_000_000
        configuration.reportEvery = 300_000_000
        let settings = RunSettingsCSV.startRows(configuration, metadata: RunMetadata(commandLine: "bench", version: "t", cpus: 2))
        let run = try LiveRun(configuration, name: "timed", settings: settings)
        defer { run.close() }
        let (feed, server, control) = (run.feed, run.server, run.control)
        var ratio = 0.0
        // Scraped once the first report interval ended (a bound only a hang reaches).
        for _ in 0..<3_000 where !(feed.current.snapshot?.timeline.isEmpty == false) { usleep(10_000) }
        let scraped = try Self.check(try Self.scrape(server.address, openMetrics: false), openMetrics: false)
        ratio = try #require(scraped["bench_run_progress_ratio"])
        let live = try Self.scrape(server.address, openMetrics: false, path: "/live.json")
        // The page's first answer carries the figures, drawn before it shows: never blank at first look.
        let page = try Self.scrape(server.address, openMetrics: false, path: "/")
        control.requestStop()
        _ = try run.join()
        #expect(ratio >= 0.3 / 60 && ratio < 1, "\(ratio)")
        #expect(live.contains("\"total\":null,\"run_for_s\":60,"), "\(live)")
        #expect(page.contains("show({\"run\":{\"scenario\":\"fanout\"") && page.contains("\"run_for_s\":60,"), "\(page.prefix(300))")
        #expect(page.contains("[\"length\",\"for 60s\"]"), "settings as report.html labels them")
    }

    /// Behind a mix of links each group's histograms are served with a `link` label, mid-run and at the end; at the end
    /// each group's count is its own summary's, and the groups' counts add up to the run's (every client is in one).
    @Test func aMixOfLinksIsServedPerGroup() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 9)
        configuration.clients = 8
        configuration.messages = 3_000  // a minute: stopped once scraped mid-run
        configuration.interval = 20_000_000
        configuration.link = try LinkMix(parsing: "none:50%,lte:50%")
        let live = try LiveRun(configuration, name: "links", settings: [])
        defer { live.close() }
        var midRun: [String: Double] = [:]
        for _ in 0..<3_000 where (midRun[#"bench_link_delivery_seconds_count{link="lte"}"#] ?? 0) == 0 {
            midRun = try Self.check(try Self.scrape(live.server.address, openMetrics: false), openMetrics: false)
            usleep(10_000)
        }
        let page = try Self.scrape(live.server.address, openMetrics: false, path: "/live.json")
        #expect(page.contains(#""links":[{"name":"none","clients":4,"totals":[{"metric":"delivery""#), "\(page.suffix(900))")
        live.control.requestStop()
        let (recording, collector) = try live.join()
        live.feed.end(status: recording.status.rawValue, folder: live.folder)
        let final = try Self.check(try Self.scrape(live.server.address, openMetrics: true), openMetrics: true)
        let groups = collector.analysis(of: recording).linkGroups
        #expect(groups.map(\.name) == ["none", "lte"])
        for group in groups {
            let delivery = try #require(group.summaries.first { $0.metric == "delivery" })
            #expect(final["bench_link_delivery_seconds_count{link=\"\(group.name)\"}"] == Double(delivery.count), "\(group.name)")
        }
        let counts = groups.compactMap { final["bench_link_delivery_seconds_count{link=\"\($0.name)\"}"] }
        #expect(counts.count == 2 && counts.reduce(0, +) == final["bench_delivery_seconds_count"])
    }

    /// The families a scrape holds (sample name → value, for samples without labels, and a histogram's `_count` and
    /// `_sum` with theirs: `name{label="value"}`) after checking every line, each histogram's series on its own.
    @discardableResult
    static func check(_ text: String, openMetrics: Bool) throws -> [String: Double] {
        var types: [String: String] = [:]
        var values: [String: Double] = [:]
        var buckets: [String: [(le: Double, count: Double)]] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "ends with a newline")
        for line in lines.dropLast() {
            if line.hasPrefix("#") {
                let parts = line.split(separator: " ", maxSplits: 3)
                switch parts.first {
                case "#" where parts.count >= 3 && ["HELP", "TYPE", "UNIT"].contains(parts[1]):
                    if parts[1] == "TYPE" { types[String(parts[2])] = String(parts[3]) }
                case "#" where line == "# EOF": #expect(openMetrics && line == lines[lines.count - 2], "EOF last, OpenMetrics only")
                default: Issue.record("not a comment Prometheus knows: \(line)")
                }
                continue
            }
            let sample = try #require(Self.sample(String(line)), "not a sample: \(line)")
            let family = types.keys.filter { sample.name.hasPrefix($0) }.max { $0.count < $1.count }
            #expect(family != nil, "a sample of no declared family: \(line)")
            // A series is its name and its labels but `le`: `bench_link_delivery_seconds_count{link="lte"}`.
            let labels = sample.labels.filter { $0.key != "le" }.sorted { $0.key < $1.key }
            let series = labels.isEmpty ? "" : "{" + labels.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",") + "}"
            if sample.name.hasSuffix("_bucket") {
                let le = try #require(sample.labels["le"].flatMap { $0 == "+Inf" ? .infinity : Double($0) }, "\(line)")
                buckets[sample.name + series, default: []].append((le, sample.value))
            } else if sample.labels.isEmpty || sample.name.hasSuffix("_count") || sample.name.hasSuffix("_sum") {
                values[sample.name + series] = sample.value
            }
        }
        for (name, series) in buckets {
            let (base, labels) = name.firstIndex(of: "{").map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
            let family = String(base.dropLast("_bucket".count))
            #expect(zip(series, series.dropFirst()).allSatisfy { $0.le < $1.le && $0.count <= $1.count }, "\(name) cumulative")
            #expect(series.last?.le == .infinity && series.last?.count == values[family + "_count" + labels], "\(name): +Inf is _count")
            #expect(types[family] == "histogram")
        }
        return values
    }

    /// `name{a="b",…} value`, with `\\`, `\"` and `\n` escapes in label values.
    static func sample(_ line: String) -> (name: String, labels: [String: String], value: Double)? {
        var characters = Substring(line)
        let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard let first = name.first, !first.isNumber else { return nil }
        characters = characters.dropFirst(name.count)
        var labels: [String: String] = [:]
        if characters.first == "{" {
            characters = characters.dropFirst()
            while characters.first != "}" {
                let key = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                characters = characters.dropFirst(key.count)
                guard !key.isEmpty, characters.hasPrefix("=\"") else { return nil }
                characters = characters.dropFirst(2)
                var value = ""
                while let character = characters.first, character != "\"" {
                    characters = characters.dropFirst()
                    if character == "\\" {
                        guard let escaped = characters.first, "\\\"n".contains(escaped) else { return nil }
                        value.append(escaped == "n" ? "\n" : escaped)
                        characters = characters.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                guard characters.first == "\"" else { return nil }
                characters = characters.dropFirst()
                labels[String(key)] = value
                if characters.first == "," { characters = characters.dropFirst() }
            }
            characters = characters.dropFirst()
        }
        guard characters.first == " ", let value = Double(characters.dropFirst()) else { return nil }
        return (String(name), labels, value)
    }

    /// GET /metrics from the live view's server.
    static func scrape(_ address: SocketAddress, openMetrics: Bool, path: String = "/metrics") throws -> String {
        let socket = try TCPSocket.connect(to: address)
        defer { Posix.close(socket) }
        try Posix.setNonBlocking(socket, false)
        try Posix.setReceiveTimeout(socket, nanoseconds: 20_000_000_000)
        let accept = openMetrics ? "application/openmetrics-text;version=1.0.0,text/plain;q=0.5" : "text/plain"
        try Posix.sendAll(socket, Array("GET \(path) HTTP/1.1\r\nHost: x\r\nAccept: \(accept)\r\n\r\n".utf8))
        var received: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { buffer.deallocate() }
        while case .processed(let count) = try Posix.read(socket, into: buffer), count > 0 {
            received += UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts[0].hasPrefix("HTTP/1.1 200 OK"))
        #expect(path != "/metrics" || parts[0].contains(openMetrics ? "application/openmetrics-text; version=1.0.0" : "text/plain; version=0.0.4"))
        return parts.dropFirst().joined(separator: "\r\n\r\n")
    }
}

/// A run served live while it goes, for the tests above: its feed on an HTTP server of its own, its writer streaming
/// into a temporary folder, the run on a thread of its own until it is told to stop.
final class LiveRun {
    let feed = LiveFeed()
    let server: HTTPServer
    let folder = NSTemporaryDirectory() + "bench-live-\(UUID().uuidString)"
    let control: RunControl
    private let writer: RunStream.Running
    private let run: NativeThread<Result<RunRecording, RunError>>

    init(_ configuration: RunConfiguration, name: String, settings: [(key: String, value: String)]) throws {
        let feed = feed
        server = try HTTPServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0)!) { feed.respond(to: $0) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let queue = try SettledQueue()
        writer = try RunStream.start(
            RunStream.Writer(configuration: configuration, folder: folder, live: true), queue: queue, mainMetric: "delivery",
            live: feed)
        let control = try RunControl()
        self.control = control
        feed.begin(
            LiveFeed.Run(
                scenario: "fanout", transport: "tcp", target: "", name: name, folder: folder, settings: settings,
                under: configuration.under, startedUnixNanoseconds: 0),
            control: control)
        run = try NativeThread.spawn(name: "test-run") { [configuration] in
            Result { () throws(RunError) in try ScenarioRunner.run(configuration, control: control, stream: queue) }
        }
    }

    /// The run's recording and its writer's collector, once both ended (stop it first).
    func join() throws -> (RunRecording, RunCollector) {
        (try run.join().get(), try writer.join().get())
    }

    func close() {
        server.stop()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
