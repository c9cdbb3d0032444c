import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import BenchScenarios

extension RunOptions {
    /// `--header 'Name: value'` (repeatable): checked, and refused for a target whose connections have no HTTP
    /// handshake (tcp, redis, nats, mqtt, stomp). The value is a secret: no message here repeats it.
    static func readHeaders(into target: inout TargetSettings, reader: OptionReader, parsed: ParsedOptions) throws(UsageError) {
        let texts = parsed.values["header"] ?? []
        guard !texts.isEmpty else { return }
        let scheme = target.url.scheme
        guard scheme.record.hasHTTPHandshake || scheme.overWebSocket else {
            throw reader.invalid(
                "header", "'Name: value'", Self.nameOnly(texts[0]),
                "an \(scheme.rawValue):// target has no HTTP handshake to carry it (ws, wss, socketio, sse, mqtt+ws, "
                    + "nats+ws, stomp+ws, grpc and their TLS forms do)")
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
            let bytes: [UInt8]
            do {
                bytes = try Posix.readFile(path, limit: ClientIdentities.maximumFileSize)
            } catch {
                // What stopped it, in the system's words: no such file, no permission, larger than the limit.
                throw reader.invalid("clients-file", "file", path, "cannot be read: \(error)")
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw reader.invalid("clients-file", "file", path, "is not UTF-8 text")
            }
            do throws(ClientIdentities.Invalid) {
                identities = try ClientIdentities(csv: text, cycle: parsed.has("clients-file-cycle"), path: path)
            } catch {
                throw reader.invalid("clients-file", "file", path, error.reason)
            }
        } else if parsed.has("clients-file-cycle") {
            throw UsageError(message: "--clients-file-cycle does nothing without --clients-file", command: command)
        }
        // Where a variable is expanded per client: the header values and the URL take the file's columns alone;
        // --subscribe and a --protocol description those and a chat's {room} (and where the payload goes).
        var places: [(text: String, builtIn: Set<String>)] = target.headers.map { (text: $0.value, builtIn: []) }
        places.append((urlText, []))
        places.append((target.subscribeText ?? "", ["room"]))
        // A description's own captures are its variables too (an XMPP ping's {id}), and no column may take their names:
        // a row's value would fill in what the server's message should.
        let captures = target.protocolDescription?.captureNames ?? []
        if let identities, let both = captures.intersection(identities.columns).sorted().first {
            throw UsageError(
                message: "{\(both)} is both a capture of --protocol \(target.protocolDescription!.name) and a column of "
                    + "--clients-file \(identities.path): rename one", command: command)
        }
        let described = Set(["room", "client", "payload", "payload_json", "payload_xml", "message_id"]).union(captures)
        places += (target.protocolDescription?.texts ?? []).map { (text: $0, builtIn: described) }
        for (text, builtIn) in places {
            let names = ClientIdentities.variables(in: text).filter { !builtIn.contains($0) }
            if let name = names.first(where: { !(identities?.columns.contains($0) ?? false) }) {
                if target.protocolDescription?.connectionParameters?.contains("{\(name)}") == true {  // a secret: not repeated
                    throw UsageError(
                        message: "--connection-params has a {name} that is no column of "
                            + (identities.map { "--clients-file \($0.path) (\($0.columns.joined(separator: ", ")))" }
                                ?? "--clients-file, and none was given"),
                        command: command)
                }
                throw UsageError(
                    message: identities.map { "{\(name)} is no column of --clients-file \($0.path) (\($0.columns.joined(separator: ", ")))" }
                        ?? "{\(name)} is a variable of --clients-file, and none was given",
                    command: command)
            }
        }
        if let identities { try check(identities, for: target, urlText: urlText, reader: reader) }
        target.identities = identities
    }

    /// Every value that will go into the URL is visible ASCII (a blank would change a NATS subject's meaning, a control
    /// character a request line's), a topic or subject gets no wildcard, and no header grows past its limit.
    private static func check(
        _ identities: ClientIdentities, for target: TargetSettings, urlText: String, reader: OptionReader
    ) throws(UsageError) {
        let afterScheme = urlText.firstRange(of: "://").map { urlText[$0.upperBound...] } ?? Substring(urlText)
        let path = String(afterScheme.drop { $0 != "/" })
        let wildcards = target.url.scheme.record.topicWildcards
        if identities.values(in: urlText).contains(where: { !$0.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) } }) {
            throw reader.invalid("clients-file", "file", identities.path, "a value for the URL is not visible ASCII without blanks")
        }
        if identities.values(in: path).contains(where: { $0.contains(where: wildcards.contains) }) {
            throw reader.invalid("clients-file", "file", identities.path, "a value for the topic or subject holds a wildcard")
        }
        // A description's messages are JSON, mostly, and gRPC's are protocol buffers in text: a value goes inside one of
        // their strings as written.
        let protobuf = target.url.scheme.record.messagesAreProtobufText ? [target.subscribeText ?? ""] : []
        let protocolValues = ((target.protocolDescription?.texts ?? []) + protobuf).flatMap(identities.values(in:))
        if protocolValues.contains(where: { $0.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 } }) {
            throw reader.invalid(
                "clients-file", "file", identities.path,
                "a value for the protocol's messages (--protocol's, gRPC's --subscribe) holds a quote, a backslash or a "
                    + "control character (it goes inside their strings as written)")
        }
        for header in target.headers where header.name.utf8.count + identities.longestExpansion(of: header.value) > HeaderField.maximumSize {
            throw reader.invalid(
                "clients-file", "file", identities.path, "\(header.name) would be longer than \(HeaderField.maximumSize >> 10) KiB")
        }
    }

    /// What a message may show of a field as given: its name (up to the colon), never its value.
    private static func nameOnly(_ text: String) -> String {
        guard let colon = text.firstIndex(of: ":") else { return String(text.prefix(40)) + (text.count > 40 ? "…" : "") }
        return String(text[..<colon].prefix(40)) + ": …"
    }
}
