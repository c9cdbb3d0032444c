import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import BenchReports
import BenchScenarios

/// `--protocol NAME|FILE`, `--channel TEXT` and `--connection-params JSON`: a ws:// target's protocol described in
/// lines (the built-in `phoenix`, `actioncable` and `graphql`, or the user's file), its values filled in.
extension RunOptions {
    /// The options, beside the target's.
    static var protocolOptions: [OptionSpec] {
        [
            OptionSpec(
                "protocol", value: "name|file",
                help: "What a ws:// or wss:// target speaks around each message: phoenix (Phoenix Channels, V2 JSON: "
                    + "ws://HOST:PORT/socket/websocket?vsn=2.0.0), actioncable (Rails: ws://HOST:PORT/cable), graphql "
                    + "(subscriptions over graphql-transport-ws: ws://HOST:PORT/graphql, with --publish the mutation), "
                    + "or a file describing yours in lines: send, expect, reply, capture, heartbeat, publish, error, "
                    + "ignore, deliver, close, subprotocol (see docs/measuring-your-server.md; 'bench protocols show "
                    + "NAME' prints a built-in one)."),
            OptionSpec(
                "channel", value: "text",
                help: "What --protocol subscribes to: a Phoenix topic (room:lobby), an ActionCable identifier "
                    + "('{\"channel\":\"ChatChannel\"}'), a GraphQL subscription ('subscription { messages }'); "
                    + "{channel} in a protocol file (and {channel_json}, as inside a JSON string)."),
            OptionSpec(
                "connection-params", value: "json",
                help: "graphql: the connection_init payload, a JSON object (default {}), e.g. '{\"token\":\"{token}\"}' "
                    + "with a --clients-file column; {connection_params} in a protocol file. Never written out."),
        ]
    }

    /// Reads `--protocol` (a built-in's name, else a file) and `--channel` into `target`: only for ws:// and wss://,
    /// instead of `--subscribe`; `--channel` exactly when the description asks for one.
    static func readProtocol(
        into target: inout TargetSettings, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        let channel = parsed.value("channel")
        let parameters = parsed.value("connection-params")
        guard let name = parsed.value("protocol") else {
            if channel != nil { throw UsageError(message: "--channel goes with --protocol", command: command) }
            if parameters != nil { throw UsageError(message: "--connection-params goes with --protocol", command: command) }
            return
        }
        guard target.url.scheme.record.takesDescription else {
            throw reader.invalid("protocol", "name|file", name, "is for ws:// and wss:// targets")
        }
        guard parsed.value("subscribe") == nil else {
            throw UsageError(message: "--subscribe does not apply with --protocol: the description says what a "
                + "subscriber sends", command: command)
        }
        guard name.utf8.count <= 4_096 else {
            throw reader.invalid("protocol", "name|file", String(name.prefix(40)) + "…", "a path longer than 4 KiB")
        }
        let text: String
        if let builtIn = ProtocolDescription.builtIn[name] {
            text = builtIn
        } else {
            guard let bytes = try? Posix.readFile(name, limit: ProtocolDescription.maximumSize),
                let file = String(validating: bytes, as: UTF8.self)
            else {
                throw reader.invalid(
                    "protocol", "name|file", name,
                    "is neither \(ProtocolDescription.builtIn.keys.sorted().joined(separator: " nor ")) nor a readable file "
                        + "of UTF-8 text of at most \(ProtocolDescription.maximumSize >> 10) KiB")
            }
            text = file
        }
        var description: ProtocolDescription
        do throws(ProtocolDescription.Invalid) {
            description = try ProtocolDescription(parsing: text, name: name)
        } catch {
            throw reader.invalid("protocol", "name|file", name, error.reason)
        }
        switch (description.asksForChannel, channel) {
        case (true, nil):
            throw UsageError(message: "--protocol \(name) needs --channel: what it subscribes to", command: command)
        case (false, let channel?):
            throw reader.invalid("channel", "text", channel, "--protocol \(name) has no {channel} to fill in")
        case (true, let channel?):
            guard !channel.isEmpty, channel.utf8.count <= 1_024,
                channel.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }),
                !ProtocolDescription.publishVariables.contains(where: channel.contains)
            else {
                throw reader.invalid(
                    "channel", "text", channel,
                    "expected up to 1 KiB of text without control characters, {payload}, {payload_json} or {message_id}")
            }
        case (false, nil): break
        }
        if let parameters {
            guard description.asksForConnectionParameters else {
                throw reader.invalid(
                    "connection-params", "json", "***", "--protocol \(name) has no {connection_params} to fill in")
            }
            guard parameters.utf8.count <= 8 << 10, JSONText.isObject(parameters),
                !ProtocolDescription.publishVariables.contains(where: parameters.contains)
            else {
                throw reader.invalid(
                    "connection-params", "json", "***",
                    "expected a JSON object of at most 8 KiB ({name} variables inside its strings; no {payload}, "
                        + "{payload_json} or {message_id})")
            }
        }
        description = description.filling(channel: channel, connectionParameters: parameters)
        try readPublishedJSON(of: description, into: &target, reader: reader, command: command)
        target.protocolDescription = description
    }

    /// A `Sec-WebSocket-Protocol` field among `--header`'s where the run asks for a subprotocol itself (the scheme's,
    /// as mqtt+ws's `mqtt`, or a description's, as graphql's) is refused.
    static func refuseSubprotocolHeader(of target: TargetSettings, reader: OptionReader) throws(UsageError) {
        guard let given = target.headers.first(where: { $0.name.lowercased() == "sec-websocket-protocol" }) else { return }
        let scheme = target.url.scheme
        let (subprotocol, asker): (String?, String) = if let subprotocol = scheme.webSocketSubprotocol {
            (subprotocol, "an \(scheme.rawValue):// handshake")
        } else {
            (target.protocolDescription?.subprotocol, "--protocol \(target.protocolDescription?.name ?? "")")
        }
        guard let subprotocol else { return }
        throw reader.invalid(
            "header", "'Name: value'", given.name + ": …", "\(asker) asks for the subprotocol \(subprotocol) itself")
    }

    /// A description whose publish line takes `{payload_json}` or `{payload_xml}` publishes what the server parses (a
    /// GraphQL mutation, an XMPP stanza): `--publish` is required, and its text goes escaped as inside a JSON string or
    /// as XML character data (the marker and padding need neither).
    private static func readPublishedJSON(
        of description: ProtocolDescription, into target: inout TargetSettings, reader: OptionReader, command: String
    ) throws(UsageError) {
        guard description.payloadEscaping != .none else { return }
        guard target.publishTemplate != .bare else {
            throw UsageError(
                message: "--protocol \(description.name) needs --publish: what the server takes to send a message, with "
                    + "{marker} (for graphql, a mutation such as 'mutation { send(text: \"{marker}\") }')",
                command: command)
        }
        let xml = description.payloadEscaping == .xml
        let escaped = xml
            ? MarkupText.escape(target.publishTemplate.text)
            : String(JSONText.string(target.publishTemplate.text).dropFirst().dropLast())
        guard escaped.utf8.count <= 60 << 10 else {  // carried to children and agents in one field of their client spec
            throw reader.invalid(
                "publish", "template", String(target.publishTemplate.text.prefix(40)) + "…",
                "longer than 60 KiB once escaped for \(xml ? "XML" : "JSON")")
        }
        do {
            target.publishTemplate = try PublishTemplate(escaped)
        } catch {
            throw reader.invalid("publish", "template", target.publishTemplate.text, error.reason)
        }
    }
}
