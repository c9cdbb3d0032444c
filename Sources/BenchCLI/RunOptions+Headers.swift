import BenchCore
import BenchScenarios

extension RunOptions {
    /// `--header 'Name: value'` (repeatable): checked, and refused for a target whose connections have no HTTP
    /// handshake (tcp, redis, nats, mqtt, stomp). The value is a secret: no message here repeats it.
    static func readHeaders(into target: inout TargetSettings, reader: OptionReader, parsed: ParsedOptions) throws(UsageError) {
        let texts = parsed.values["header"] ?? []
        guard !texts.isEmpty else { return }
        let scheme = target.url.scheme
        guard [.ws, .socketIO, .sse].contains(scheme.protocolScheme) || scheme.overWebSocket else {
            throw reader.invalid(
                "header", "'Name: value'", Self.nameOnly(texts[0]),
                "an \(scheme.rawValue):// target has no HTTP handshake to carry it (ws, wss, socketio, sse, mqtt+ws, "
                    + "nats+ws, stomp+ws and their TLS forms do)")
        }
        var fields: [HeaderField] = []
        for text in texts {
            do {
                fields.append(try HeaderField(parsing: text))
            } catch {
                throw reader.invalid("header", "'Name: value'", Self.nameOnly(text), error.reason)
            }
        }
        // Carried to children and agents in one field of their client spec.
        guard fields.map({ $0.text.utf8.count + 2 }).reduce(0, +) <= 60 << 10 else {
            throw reader.invalid("header", "'Name: value'", fields.names, "longer than 60 KiB together")
        }
        target.headers = fields
    }

    /// What a message may show of a field as given: its name (up to the colon), never its value.
    private static func nameOnly(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return String(text.prefix(40)) + (text.count > 40 ? "…" : "") }
        return String(text[..<colon].prefix(40)) + ": …"
    }
}
