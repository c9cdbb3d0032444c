import BenchCore
import BenchNet
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

    /// `--clients-file FILE` (and `--clients-file-cycle`): read, checked, and every `{name}` in the `--header` values and
    /// the URL (`urlText`) one of its columns; without a file, such a `{name}` is a usage error too. No message
    /// repeats a value.
    static func readIdentities(
        into target: inout TargetSettings, text urlText: String, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        var identities: ClientIdentities?
        if let path = parsed.value("clients-file") {
            guard let bytes = try? Posix.readFile(path, limit: ClientIdentities.maximumFileSize),
                let text = String(validating: bytes, as: UTF8.self)
            else {
                throw reader.invalid(
                    "clients-file", "file", path,
                    "cannot be read as UTF-8 text of at most \(ClientIdentities.maximumFileSize >> 20) MiB")
            }
            do throws(ClientIdentities.Invalid) {
                identities = try ClientIdentities(csv: text, cycle: parsed.has("clients-file-cycle"), path: path)
            } catch {
                throw reader.invalid("clients-file", "file", path, error.reason)
            }
        } else if parsed.has("clients-file-cycle") {
            throw UsageError(message: "--clients-file-cycle does nothing without --clients-file", command: command)
        }
        let texts = target.headers.map(\.value) + [urlText]
        for text in texts {
            let unknown = identities?.unknownVariables(in: text)
                ?? ClientIdentities.variables(in: text).filter { !ClientIdentities.builtIn.contains($0) }
            if let name = unknown.first {
                throw UsageError(
                    message: identities.map { "{\(name)} is no column of --clients-file \($0.path) (\($0.columns.joined(separator: ", ")))" }
                        ?? "{\(name)} is a variable of --clients-file, and none was given",
                    command: command)
            }
        }
        target.identities = identities
    }

    /// What a message may show of a field as given: its name (up to the colon), never its value.
    private static func nameOnly(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return String(text.prefix(40)) + (text.count > 40 ? "…" : "") }
        return String(text[..<colon].prefix(40)) + ": …"
    }
}
