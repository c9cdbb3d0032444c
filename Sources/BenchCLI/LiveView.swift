import BenchClients
import BenchCore
import BenchNet
import BenchReports
import BenchScenarios

/// `--metrics-listen HOST:PORT`: a command's runs watched while they go, over HTTP on a thread of its own:
/// `/metrics` for Prometheus, `/` a live page, `/live.json` what the page reads (``LiveFeed``).
struct LiveView {
    let feed: LiveFeed
    let server: HTTPServer

    static let option = OptionSpec(
        "metrics-listen", value: "host:port",
        help: "Serve the run while it goes: /metrics (Prometheus's text format, or OpenMetrics), / (a live page) and "
            + "/live.json, on this address (e.g. 127.0.0.1:9464; port 0: any free one, printed).")

    /// `--metrics-listen`'s address, checked (nothing listens yet); nil without the option.
    static func address(_ parsed: ParsedOptions, reader: OptionReader) throws(UsageError) -> SocketAddress? {
        guard let text = parsed.value("metrics-listen") else { return nil }
        guard let (host, port) = OptionReader.hostAndPort(text),
            let address = SocketAddress(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port)
        else {
            throw reader.invalid("metrics-listen", "host:port", text, "expected a numeric address and a port, e.g. 127.0.0.1:9464")
        }
        return address
    }

    /// Starts serving at `address` and says where; nil, with the reason on stderr, when it cannot listen there.
    static func start(at address: SocketAddress) -> LiveView? {
        let feed = LiveFeed()
        let server = serve(at: address, saying: { "http://\($0)/ (Prometheus: http://\($0)/metrics)" }) { feed.respond(to: $0) }
        return server.map { LiveView(feed: feed, server: $0) }
    }

    /// An HTTP server for `--metrics-listen` at `address` answering with `handler`; it says where it serves (`where`
    /// of the bound address) on stderr, or why it cannot (nil).
    static func serve(
        at address: SocketAddress, saying where: (SocketAddress) -> String, _ handler: @escaping HTTPServer.Handler
    ) -> HTTPServer? {
        do {
            let server = try HTTPServer(listeningOn: address, handler: handler)
            Console.error("live: \(`where`(server.address))\n")
            return server
        } catch {
            Console.error("Error: cannot serve --metrics-listen \(address): \(error)\n")
            return nil
        }
    }

    /// After the command's last run: whoever was watching sees how it ended (``LiveFeed/linger()``); then it stops.
    func finish() {
        feed.linger { wait in
            Console.error("live: the run ended; waiting for its watchers' next look (at most \(DurationText.display(wait)))\n")
        }
        server.stop()
    }

    /// What the feed shows of a run of `configuration` beginning now, named `name` (or by its scenario and the time).
    static func run(
        _ configuration: RunConfiguration, name: String?, metadata: RunMetadata, folder: String
    ) -> LiveFeed.Run {
        let now = WallClock.nowUnixNanoseconds()
        return LiveFeed.Run(
            scenario: configuration.scenario.rawValue,
            transport: configuration.target?.url.scheme.rawValue ?? configuration.transport.rawValue,
            target: configuration.target?.url.description ?? "",
            name: name ?? "\(configuration.scenario.rawValue)-\(UTCTime(unixNanoseconds: now).compact)",
            folder: folder, settings: RunSettingsCSV.startRows(configuration, metadata: metadata), under: configuration.under,
            startedUnixNanoseconds: now)
    }
}
