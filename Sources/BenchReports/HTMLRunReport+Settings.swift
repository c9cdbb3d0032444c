import BenchClients
import BenchCore
import BenchScenarios

extension HTMLRunReport {
    /// The settings a person reads, in units and without empty rows; then every row of `run.csv`, folded away.
    static func settingsSection(_ results: RunResults) -> String {
        "<h2>settings</h2>\n" + settingsTable(readableSettings(results))
            + "<details>\n<summary>every setting, as run.csv has it</summary>\n" + settingsTable(results.settings)
            + "</details>\n"
    }

    /// What ran, how, where and when, each in its unit: `timeout 5s`, `payload 64B`.
    static func readableSettings(_ results: RunResults) -> [(key: String, value: String)] {
        func value(_ key: String) -> String? { results.setting(key).flatMap { $0.isEmpty ? nil : $0 } }
        func duration(_ key: String) -> String? { value(key).flatMap { UInt64($0) }.map(DurationText.format) }
        let target = value("target")
        let closedLoop = value("arrival") == "closed-loop" || value("interval_ns") == "0"
        let threads = value("client_threads").flatMap { $0 == "1" ? nil : "\($0) threads" }
        let rows: [(String, String?)] = [
            ("scenario", value("scenario")),
            ("server", target ?? value("transport").map { "built in, over \($0)" }),
            ("clients", value("clients").map { clients in threads.map { "\(clients) (\($0))" } ?? clients }),
            ("length", results.durationText ?? value("messages").map { "\($0) broadcasts" }
                ?? value("count").map { "\($0) messages per client" }),
            ("warmup", value("warmup")),
            ("pace", closedLoop ? "closed loop" : value("interval").map { "every \($0) (\(value("arrival") ?? "-"))" }),
            ("payload", value("payload_bytes").flatMap { Int($0) }.map(ByteSizeText.format)),
            ("under", duration("under_ns")),
            ("timeout", duration("timeout_ns")),
            ("heartbeat", value("heartbeat_ns") == "0" ? "none" : duration("heartbeat_ns")),
            ("timestamps", value("timestamps")),
            ("server threads", value("server_threads").flatMap { $0 == "1" ? nil : $0 }),
            ("started", value("start_utc")),
            ("ran for", value("duration_s").map { "\($0) s" }),
            ("server address", value("server_address")),
            // A run saved before the row was written says nothing of it.
            ("connect", results.setting("connect_interval_ns").map { interval in
                duration("connect_interval_ns").map { "one client every \($0) (--connect-rate)" }
                    ?? (interval.isEmpty ? "up to \(RunConfiguration.connectWindow) at a time per client loop" : interval)
            }),
            ("link", value("link").map { text in "\(text): \(value("link_model") ?? "")" }),
            ("CPUs", value("cpus").map { cpus in
                // Where each side ran, once known (a run under way has not placed them yet).
                let placed = [("server", value("server_cpus")), ("clients", value("client_cpus"))]
                    .compactMap { side, cpus in cpus.map { "\(side) on \($0)" } }
                return placed.isEmpty ? cpus : "\(cpus) (\(placed.joined(separator: ", ")))"
            }),
            ("kernel", value("kernel")),
            ("bench", value("version")),
            ("command line", value("command_line")),
        ]
        return rows.compactMap { key, text in text.map { (key, $0) } }
    }
}
