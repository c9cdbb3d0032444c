import BenchClients
import BenchNet
import BenchScenarios

extension RunOptions {
    /// `--timestamps`, `--transport` (a comma list sweeps them; the run's TLS settings are those of its first secure
    /// one) and `--ws-path`: the transports of the run's steps, in order.
    static func readTransports(
        into base: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions
    ) throws(UsageError) -> [TransportKind] {
        if let text = parsed.value("timestamps") {
            guard let source = TimestampSource(rawValue: text) else {
                throw reader.invalid("timestamps", "source", text, "expected user, kernel or both")
            }
            base.timestamps = source
        }
        var transports = [base.transport]
        if let text = parsed.value("transport") {
            transports = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let transport = TransportKind(rawValue: String(part)) else {
                    throw reader.invalid("transport", "kind", text, "expected tcp, ws, tls or wss, comma-separated")
                }
                guard !transports.contains(transport) else { throw reader.invalid("transport", "kind", text, "each value once") }
                transports.append(transport)
            }
            base.transport = transports.first { $0.usesTLS } ?? transports[0]
        }
        base.webSocketPath = parsed.value("ws-path") ?? base.webSocketPath
        return transports
    }
}
