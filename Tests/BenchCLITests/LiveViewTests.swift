import BenchNet
import Foundation
import Glibc
import Testing

/// `--metrics-listen` as a user runs it: the live page rendered by headless Chromium while the run goes, a real
/// Prometheus scraping the run every second and asked about it afterwards through its HTTP API, and an address that
/// cannot be served. Serialized: each run is watched by one watcher on its own port.
@Suite(.serialized, .timeLimit(.minutes(10))) struct LiveViewTests {
    static let prometheus = "/usr/bin/prometheus"
    static let hasPrometheus = FileManager.default.isExecutableFile(atPath: prometheus)

    /// The page mid-run, as Chromium draws it from /live.json: numbers with their units, a chart with points, the run's
    /// progress; then the run is stopped (Ctrl-C), as any run can be.
    @Test(.enabled(if: ReportPageTests.chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func theLivePageShowsNumbersWithUnitsAndAChartWhileTheRunGoes() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.start([
            "fanout", "--clients", "10", "--messages", "3000", "--interval", "20ms", "--report-every", "500ms",
            "--metrics-listen", "127.0.0.1:0", "--quiet", "--out", out,
        ])
        let port = try Self.livePort(of: run)
        let live = Self.liveOnceAnIntervalEnded(port: port)
        #expect(live.contains("\"status\":\"running\""), "\(live.prefix(300))")
        let dom = try ReportPageTests.rendered(url: "http://127.0.0.1:\(port)/", scriptTime: 3_000)
        kill(run.processIdentifier, SIGINT)  // a minute of run left: the page was drawn in the middle of it
        let finished = try BenchProcess.finish(run, timeout: 60)
        #expect(finished.exitCode == 130, "\(finished.standardError)")
        #expect(dom.contains("Running, "), "the run's progress: \(dom.prefix(2000))")
        let totals = try #require(dom.range(of: "<table id=\"totals\">").map { dom[$0.lowerBound...] }?.prefix(4000))
        #expect(totals.contains("<td>delivery</td>") && totals.contains("<td>spread</td>"), "\(totals)")
        #expect(totals.contains(#/<td class="n">\d+(\.\d+)?(ns|µs|ms|s)</td>/#), "durations with their units: \(totals)")
        #expect(dom.contains(#/<path class="p50" d="M[\d. ]+/#) && dom.contains("<path class=\"p99\""), "a chart with its lines")
        #expect(dom.contains("clients connected"), "progress")
    }

    /// With the default report interval (10 s) the chart still has a point each second (issue 47: 11 s into a run it
    /// had one pair), each second's messages by when they fell due; the settings name how clients connect, and no CPU
    /// placement a run under way does not know yet.
    @Test(.enabled(if: ReportPageTests.chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func theChartHasAPointEachSecondWhateverTheReportInterval() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.start([
            "fanout", "--clients", "5", "--messages", "3000", "--interval", "20ms",
            "--metrics-listen", "127.0.0.1:0", "--quiet", "--out", out,
        ])
        let port = try Self.livePort(of: run)
        var live = ""
        for _ in 0..<1_500 where live.components(separatedBy: "\"metric\":\"delivery\",\"interval\":").count < 5 {
            usleep(20_000)
            live = (try? Self.get("/live.json", port: port).body) ?? ""
            live = live.range(of: "\"points\":").map { String(live[$0.lowerBound...]) } ?? ""
        }
        let dom = try ReportPageTests.rendered(url: "http://127.0.0.1:\(port)/", scriptTime: 3_000)
        kill(run.processIdentifier, SIGINT)
        #expect(try BenchProcess.finish(run, timeout: 60).exitCode == 130)
        #expect(live.contains("\"interval\":0,\"start_s\":0,\"end_s\":1"), "\(live.prefix(400))")
        let path = try #require(dom.firstMatch(of: #/<path class="p50" d="([^"]+)"/#)?.1, "\(dom.prefix(1000))")
        #expect(path.split(separator: "L").count >= 4, "a point a second: \(path)")
        #expect(dom.contains("<td>connect</td><td>up to 128 at a time per client loop</td>"), "\(dom.suffix(3000))")
        #expect(dom.contains("<td>CPUs</td>") && !dom.contains("on -"), "\(dom.suffix(3000))")
    }

    /// A chat run's page: its title names the scenario, its chart is delivery's.
    @Test(.enabled(if: ReportPageTests.chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func theLivePageOfAChatRunChartsDelivery() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.start([
            "chat", "--clients", "12", "--room-size", "4", "--count", "3000", "--rate", "50/s", "--report-every", "500ms",
            "--metrics-listen", "127.0.0.1:0", "--quiet", "--out", out,
        ])
        let port = try Self.livePort(of: run)
        let live = Self.liveOnceAnIntervalEnded(port: port)
        #expect(live.contains("\"scenario\":\"chat\""), "\(live.prefix(300))")
        let dom = try ReportPageTests.rendered(url: "http://127.0.0.1:\(port)/", scriptTime: 3_000)
        kill(run.processIdentifier, SIGINT)
        #expect(try BenchProcess.finish(run, timeout: 60).exitCode == 130)
        #expect(dom.contains("bench chat"), "\(dom.prefix(500))")
        let totals = try #require(dom.range(of: "<table id=\"totals\">").map { dom[$0.lowerBound...] }?.prefix(4000))
        #expect(totals.contains("<td>delivery</td>") && totals.contains("<td>spread</td>") && !totals.contains("<td>rtt</td>"))
        #expect(dom.contains(#/<path class="p50" d="M[\d. ]+/#), "delivery's chart has its line")
    }

    /// Behind a mix of links the page shows each group apart, as Chromium draws it: its name, its clients and its
    /// metrics so far, the `lte` group's delivery in milliseconds (its link delays each way by 50 ms).
    @Test(.enabled(if: ReportPageTests.chromium != nil, "chromium is not installed: apt-get install -y chromium"))
    func theLivePageShowsEachLinkGroupOfAMix() throws {
        let out = temporaryFolderPath()
        let run = try BenchProcess.start([
            "fanout", "--clients", "10", "--messages", "3000", "--interval", "20ms", "--report-every", "500ms",
            "--link", "none:60%,lte:40%", "--metrics-listen", "127.0.0.1:0", "--quiet", "--out", out,
        ])
        let port = try Self.livePort(of: run)
        _ = Self.liveOnceAnIntervalEnded(port: port)
        let dom = try ReportPageTests.rendered(url: "http://127.0.0.1:\(port)/", scriptTime: 3_000)
        kill(run.processIdentifier, SIGINT)
        #expect(try BenchProcess.finish(run, timeout: 60).exitCode == 130)
        #expect(dom.contains("<section id=\"links\">"), "shown, not hidden: \(dom.prefix(3000))")
        let links = try #require(dom.range(of: "<table id=\"link-totals\">").map { dom[$0.lowerBound...] }?.prefix(4000))
        #expect(links.contains("<td>none</td><td class=\"n\">6</td><td>delivery</td>"), "\(links)")
        #expect(links.contains(#/<td>lte</td><td class="n">4</td><td>delivery</td><td class="n">[\d,]+</td><td class="n">\d+</td><td class="n">[5-9]\d(\.\d+)?ms</td>/#), "\(links)")
    }

    /// Prometheus scrapes the run every second; afterwards its HTTP API gives the run's count of deliveries, and a p99
    /// from the histogram's buckets that lies in the same bucket as the run's own exact p99.
    @Test(.enabled(if: hasPrometheus, "prometheus is not installed: apt-get install -y prometheus"))
    func aRealPrometheusScrapesTheRunAndAgreesWithItsSummary() throws {
        let benchPort = try Self.freePort(), prometheusPort = try Self.freePort()
        let work = temporaryFolderPath()
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
            scrape_configs:
              - job_name: bench
                scrape_interval: 1s
                static_configs: [{targets: ['127.0.0.1:\(benchPort)']}]

            """.write(toFile: work + "/prometheus.yml", atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.prometheus)
        server.arguments = [
            "--config.file=\(work)/prometheus.yml", "--storage.tsdb.path=\(work)/data",
            "--web.listen-address=127.0.0.1:\(prometheusPort)",
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        // Until Prometheus scrapes the (not yet listening) target: its discovery hands targets on every 5 s.
        for _ in 0..<1_500 where !((try? Self.get("/api/v1/targets", port: prometheusPort).body) ?? "").contains("\"health\":\"down\"") {
            usleep(20_000)
        }
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "10", "--messages", "200", "--interval", "25ms", "--metrics-listen",
            "127.0.0.1:\(benchPort)", "--quiet", "--out", out,
        ], timeout: 90)
        #expect(result.exitCode == 0, "\(result.standardError)")
        let folder = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let delivery = try #require(try csvRows(folder + "/summary.csv").first { $0["metric"] == "delivery" })
        let count = try #require(delivery["count"].flatMap(Double.init))
        let p99 = try #require(delivery["p99_us"].flatMap(Double.init)) / 1e6
        // The last scrape came after the run ended (the run waits for it). Once Prometheus has seen the run gone (its next
        // scrape failed), that sample is stored: the largest value of each series is its last.
        for _ in 0..<1_000 where !((try? Self.get("/api/v1/targets", port: prometheusPort).body) ?? "").contains("\"health\":\"down\"") {
            usleep(20_000)
        }
        let scraped = try Self.query("max_over_time(bench_delivery_seconds_count[10m])", port: prometheusPort)
        #expect(scraped == count, "Prometheus: \(String(describing: scraped)), summary.csv: \(count)")
        let estimate = try #require(
            try Self.query("histogram_quantile(0.99, max_over_time(bench_delivery_seconds_bucket[10m]))", port: prometheusPort))
        var bounds: [Double] = [0]
        for exponent in -5...1 { bounds += [1.0, 2, 5].map { $0 * pow(10, Double(exponent)) } }
        bounds.append(60)
        func bucket(_ value: Double) -> Int { bounds.firstIndex { value <= $0 + 1e-12 } ?? bounds.count }
        #expect(bucket(estimate) == bucket(p99), "Prometheus p99 \(estimate) s, the run's \(p99) s: the same bucket")
    }

    /// An agent's own figures, scraped while its clients run: its share of the run and its clock against the
    /// collector's; every line a comment or a sample.
    @Test func anAgentServesItsOwnFigures() throws {
        let out = temporaryFolderPath()
        let (serve, listening) = try startServe([
            "fanout", "--clients", "6", "--messages", "3000", "--interval", "20ms", "--token", "t", "--quiet", "--out", out,
        ])
        let watched = try BenchProcess.start([
            "clients", "--connect", "127.0.0.1:\(listening)", "--clients", "3", "--token", "t", "--metrics-listen", "127.0.0.1:0",
        ])
        let other = try BenchProcess.start(["clients", "--connect", "127.0.0.1:\(listening)", "--clients", "3", "--token", "t"])
        let port = try Self.livePort(of: watched)
        var metrics = ""
        for _ in 0..<1_500 where !metrics.contains("bench_agent_running 1") {  // once its clients run
            usleep(20_000)
            metrics = (try? Self.get("/metrics", port: port).body) ?? ""
        }
        kill(serve.processIdentifier, SIGINT)  // a minute of run left: the agent was watched in the middle of it
        #expect(try BenchProcess.finish(serve, timeout: 60).exitCode == 130)
        #expect(try BenchProcess.finish(watched, timeout: 30).exitCode == 0)
        #expect(try BenchProcess.finish(other, timeout: 30).exitCode == 0)
        #expect(metrics.contains("bench_agent_info{server=\"127.0.0.1:\(listening)\",scenario=\"fanout\",transport=\"tcp\",target=\"\"} 1"), "\(metrics)")
        #expect(metrics.contains("\nbench_agent_clients 3\n") && metrics.contains("\nbench_agent_clock_rounds_total 1\n"), "\(metrics)")
        #expect(metrics.contains(#/\nbench_agent_clock_error_seconds 0\.\d+\n/#), "\(metrics)")
        for line in metrics.split(separator: "\n") {
            #expect(line.hasPrefix("# ") || line.contains(#/^[a-z_]+(\{[^}]*\})? -?[0-9.]+$/#), "\(line)")
        }
    }

    @Test func anAddressInUseExitsThreeAndWritesNothing() throws {
        let taken = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(taken.descriptor) }
        let out = temporaryFolderPath()
        let result = try BenchProcess.run([
            "fanout", "--clients", "2", "--messages", "5", "--metrics-listen", "127.0.0.1:\(taken.address.port)", "--out", out,
        ])
        #expect(result.exitCode == 3, "\(result.standardError)")
        #expect(result.standardError.contains("cannot serve --metrics-listen 127.0.0.1:\(taken.address.port)"), "\(result.standardError)")
        #expect(contents(of: out) == nil || contents(of: out) == [], "nothing written")
    }

    // MARK: Helpers

    /// The port `bench` said it serves the live view on.
    /// `/live.json` once a report interval ended (a point to draw); a bound only a hang reaches.
    static func liveOnceAnIntervalEnded(port: Int) -> String {
        var live = ""
        for _ in 0..<1_500 where !live.contains("\"timeline\":[{") {
            usleep(20_000)
            live = (try? get("/live.json", port: port).body) ?? ""
        }
        return live
    }

    static func livePort(of run: BenchProcess.Running) throws -> Int {
        for _ in 0..<1_000 {
            let text = (try? String(contentsOfFile: run.outputBase + ".err", encoding: .utf8)) ?? ""
            if let range = text.range(of: #"live: http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                return Int(text[range].split(separator: ":").last!)!
            }
            usleep(20_000)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    /// GET `path` from 127.0.0.1:`port`: the status and the body.
    static func get(_ path: String, port: Int) throws -> (status: Int, body: String) {
        let socket = try TCPSocket.connect(to: SocketAddress(host: "127.0.0.1", port: UInt16(port))!)
        defer { Posix.close(socket) }
        try Posix.setNonBlocking(socket, false)
        try Posix.setReceiveTimeout(socket, nanoseconds: 20_000_000_000)
        try Posix.sendAll(socket, Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        var received: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer { buffer.deallocate() }
        while case .processed(let count) = try Posix.read(socket, into: buffer), count > 0 {
            received += UnsafeRawBufferPointer(rebasing: buffer[0..<count])
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
        var body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        if text.lowercased().contains("transfer-encoding: chunked") { body = Self.unchunked(body) }
        return (status, body)
    }

    /// A chunked body's data (Prometheus's API answers chunked).
    static func unchunked(_ body: String) -> String {
        var rest = Substring(body), out = ""
        while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
            let start = line.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            out += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return out
    }

    /// An instant query's one value, through Prometheus's HTTP API.
    static func query(_ expression: String, port: Int) throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (_, body) = try get("/api/v1/query?query=\(encoded)", port: port)
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        let results = (json?["data"] as? [String: Any])?["result"] as? [[String: Any]]
        return ((results?.first?["value"] as? [Any])?.last as? String).flatMap(Double.init)
    }

    static func freePort() throws -> Int {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        Posix.close(listener)
        return Int(address.port)
    }
}
