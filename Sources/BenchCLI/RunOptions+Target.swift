import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import BenchScenarios

/// `--target` and what goes with it: the options of measuring a user's own server, and reading them.
extension RunOptions {
    /// `--target` and what goes with it: how to measure a user's own server.
    static func targetOptions(for scenario: Scenario) -> [OptionSpec] {
        let target = scenario == .chat
            ? OptionSpec(
                "target", value: "url",
                help: "Measure your own chat server instead of the built-in relay: nats://HOST:PORT/SUBJECT (room r is "
                    + "SUBJECT.r), mqtt://[USER:PASSWORD@]HOST:PORT/TOPIC (TOPIC/r, with --qos), stomp://HOST:PORT/topic/NAME "
                    + "(NAME.r), mqtt+ws://, nats+ws:// and stomp+ws:// (the same over WebSocket, at --ws-path), ws://HOST:PORT/PATH or "
                    + "tcp://HOST:PORT (with --subscribe and --publish, {room} in either), socketio://HOST:PORT/NAMESPACE "
                    + "(--subscribe '[\"join\",\"{room}\"]', --publish '[\"say\",\"{room}\",\"{marker}{padding}\"]'); each member "
                    + "sends on its own connection, and every other member of its room must receive it.")
            : scenario == .roundtrip
            ? OptionSpec(
                "target", value: "url",
                help: "Measure your own server's round trip instead of the built-in one's: an echo server at "
                    + "tcp://HOST:PORT (with --framing), ws://HOST:PORT/PATH or wss://…, which sends every "
                    + "message back verbatim; mqtt://[USER:PASSWORD@]HOST:PORT/TOPIC or nats://HOST:PORT/SUBJECT (each "
                    + "client publishes to TOPIC/<client> or SUBJECT.<client>, subscribed to it; stomp://HOST:PORT/topic/NAME to "
                    + "NAME.<client>; mqtt+ws://, nats+ws:// and stomp+ws:// the same over WebSocket, at --ws-path); socketio://HOST:PORT/"
                    + "NAMESPACE (each client emits --publish and takes the event that comes back with its marker); "
                    + "grpc://HOST:PORT/package.Service/Method (a bidirectional stream that sends each --publish back); "
                    + "mqtts://, mqtt+wss://, nats+wss://, socketios:// and grpcs:// over TLS (the server's certificate verified against the system's "
                    + "store, or --tls-ca, --tls-pin, --tls-insecure).")
            : OptionSpec(
                "target", value: "url",
                help: "Measure your own publish/subscribe server instead of the built-in one: redis://[:PASSWORD@]HOST:"
                    + "PORT/CHANNEL, nats://HOST:PORT/SUBJECT, mqtt://[USER:PASSWORD@]HOST:PORT/TOPIC (with --qos), "
                    + "mqtt+ws:// and nats+ws:// (the same over WebSocket, at --ws-path: default /mqtt and /), "
                    + "stomp://[USER:PASSWORD@]HOST:PORT/topic/NAME (STOMP 1.2; stomp+ws:// at --ws-path, default /ws), "
                    + "sse://HOST:PORT/PATH (with --publish-url), socketio://HOST:PORT/NAMESPACE (with --publish, "
                    + "--subscribe), or ws://HOST:PORT/PATH and tcp://HOST:PORT (with --publish, and --subscribe where it "
                    + "needs a join message), grpc://HOST:PORT/package.Service/Method (a server stream each, with "
                    + "--publish-method); --clients subscribe, one more connection publishes. Over TLS: "
                    + "wss://, mqtts://, mqtt+wss://, nats+wss://, sses:// (with an https:// --publish-url), socketios://, grpcs:// (the server's certificate "
                    + "verified against the system's store, or --tls-ca, --tls-pin, --tls-insecure).")
        let framing = OptionSpec(
            "framing", value: "kind",
            help: "How a tcp:// target cuts messages: length32, length16 (big-endian length first), line, or stx "
                + "(STX, destination, source, length, data, CRC-16/CCITT-FALSE).",
            default: "length32")
        let fanout = scenario == .fanout
        let subscribe = OptionSpec(
            "subscribe", value: "text",
            help: "What each \(fanout ? "subscriber" : scenario == .chat ? "member ({room}: its room's number)" : "client") sends first to a ws:// or tcp:// target; for socketio://, "
                + "the event it emits once connected, as a JSON array (e.g. '[\"join\",\"room1\"]'); for grpc://, the "
                + "server-streaming call's request as protoc --decode_raw prints it (e.g. '1: \"room1\"').")
        let qos = OptionSpec(
            "qos", value: "0|1|2",
            help: fanout
                ? "An mqtt:// target's quality of service, for the publisher's PUBLISH and the subscriptions (each "
                    + "subscriber acknowledges what it receives as the QoS asks); the keepalive is --heartbeat."
                : "An mqtt:// target's quality of service, for each client's PUBLISH and its subscription; the keepalive "
                    + "is --heartbeat.",
            default: "0")
        let publish = OptionSpec(
            "publish", value: "template",
            help: fanout
                ? "The message the publisher sends to a ws://, tcp://, mqtt:// or sse:// target (for socketio://, the "
                    + "event it emits as a JSON array; for grpc://, the request of --publish-method as protoc --decode_raw "
                    + "prints it, {marker} inside a string), with {marker} (required) and "
                    + "{padding} (filled up to --payload), e.g. '{\"type\":\"broadcast\",\"text\":\"{marker}{padding}\"}'."
                : "The message each client sends (for socketio://, the event it emits as a JSON array, e.g. "
                    + "'[\"echo\",\"{marker}{padding}\"]'; for grpc://, as protoc --decode_raw prints it, e.g. "
                    + "'2: \"{marker}{padding}\"'), with {marker} (required) and {padding} (filled up to --payload).",
            default: "{marker}{padding}")
        let header = OptionSpec(
            "header", value: "'Name: value'",
            help: "A field added to every HTTP handshake of a ws://, socketio://, mqtt+ws://, nats+ws://, stomp+ws:// or "
                + "sse:// target and their TLS forms (and an sse:// publisher's POSTs; every call to a grpc:// target, as "
                + "metadata): a token, a cookie, an API key; "
                + "repeatable; with --clients-file, {column}s in it are each client's. Reports name it, never give its value.",
            repeatable: true)
        let identity = [
            OptionSpec(
                "clients-file", value: "file",
                help: "Who each client is: a CSV with a header row (user,token,… any columns), client k speaking as row k "
                    + "(the publisher as row 0); each column is a variable, {user}, {token}, in --header values, the "
                    + "URL's path, --subscribe, and the URL's user name and password (MQTT, STOMP, Redis). Its values are "
                    + "never printed or written."),
            OptionSpec("clients-file-cycle", help: "Fewer rows than clients: reuse them in turn (without it, a usage error)."),
        ]
        guard fanout else {
            let chat = scenario == .chat ? [publishMethodOption] : []
            return [target, header, http2Option] + identity + protocolOptions + [framing, subscribe] + chat + [qos, publish]
        }
        return [target, header, http2Option] + identity + protocolOptions + [
            framing, subscribe,
            OptionSpec(
                "publish-url", value: "url",
                help: "An sse:// target: where the publisher POSTs each broadcast (the --publish template as the body), "
                    + "http://HOST:PORT/PATH, one request after another on one kept-alive connection."),
            publishMethodOption, streamsPerConnectionOption, qos, publish,
        ]
    }

    /// Reads `--target`, its `--subscribe`/`--publish` and `--framing`, refusing the built-in server's options beside
    /// it and these without it.
    static func readTarget(
        into configuration: inout RunConfiguration, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        var target: TargetSettings?
        defer { if let target { configuration.role = .target(target, agentToken: nil) } }
        if let text = parsed.value("target") {
            do {
                target = TargetSettings(try TargetURL(text))
            } catch {
                throw reader.invalid("target", "url", TargetURL.hidingPassword(in: text), error.reason)
            }
            let scheme = target!.url.scheme
            if parsed.value("dead-after") != nil { configuration.silenceLimit = configuration.deadAfter }
            if scheme.protocolScheme != .http,  // not a target: said below
                let refusal = configuration.scenario == .roundtrip
                    ? scheme.roundtripRefusal : configuration.scenario == .chat ? scheme.chatRefusal : nil
            {
                throw reader.invalid("target", "url", TargetURL.hidingPassword(in: text), refusal)
            }
            // A Socket.IO server's Engine.IO path, or the WebSocket path of MQTT or NATS over WebSocket, is the one
            // WebSocket path a target run asks for (a ws:// URL has its own).
            for option in ["transport", "ws-path", "tls-cert", "tls-key", "server-threads"]
            where (parsed.value(option) != nil || parsed.has(option))
                && !(option == "ws-path" && scheme.defaultWebSocketPath != nil)
            {
                throw UsageError(message: "--\(option) is for the built-in server; --target says how to reach yours", command: command)
            }
            if let path = parsed.value("ws-path") {
                guard path.hasPrefix("/"), path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                    throw reader.invalid("ws-path", "path", path, "expected a path from /, printable ASCII without blanks")
                }
                target?.webSocketPath = path
            }
            // Each is carried to children and agents in one field of their client spec.
            for (name, placeholder) in [("subscribe", "text"), ("publish", "template")] {
                if let text = parsed.value(name), text.utf8.count > 60 << 10 {
                    throw reader.invalid(name, placeholder, String(text.prefix(40)) + "…", "longer than 60 KiB")
                }
            }
            target?.subscribeText = parsed.value("subscribe")
            if let text = parsed.value("publish") {
                do {
                    target?.publishTemplate = try PublishTemplate(text)
                } catch {
                    throw reader.invalid("publish", "template", text, error.reason)
                }
            }
            try readHeaders(into: &target!, reader: reader, parsed: parsed)
            try readProtocol(into: &target!, reader: reader, parsed: parsed, command: command)
            try refuseSubprotocolHeader(of: target!, reader: reader)
            try readIdentities(into: &target!, text: text, reader: reader, parsed: parsed, command: command)
        } else if let option = ["subscribe", "publish", "framing", "qos", "publish-url", "publish-method", "streams-per-connection", "header", "clients-file",
            "protocol", "channel", "connection-params"]
            .first(where: { parsed.value($0) != nil }) ?? (parsed.has("clients-file-cycle") ? "clients-file-cycle" : nil)
        {
            throw UsageError(message: "--\(option) goes with --target", command: command)
        }
        if let text = parsed.value("qos") {
            guard target?.url.scheme.record.takesQoS == true else {
                throw reader.invalid("qos", "0|1|2", text, "is for MQTT targets (mqtt, mqtts, mqtt+ws, mqtt+wss)")
            }
            guard let qos = UInt8(text), qos <= 2 else { throw reader.invalid("qos", "0|1|2", text, "expected 0, 1 or 2") }
            target?.qos = qos
        }
        if let scheme = target?.url.scheme, !scheme.record.speaksUserText,
            let option = (scheme.record.takesSubscribeText ? ["framing"] : ["subscribe", "framing"])
                .first(where: { parsed.value($0) != nil })
        {
            throw UsageError(message: "--\(option) does not apply to an \(scheme.rawValue):// target", command: command)
        }
        if let scheme = target?.url.scheme, let example = scheme.record.publishExample, parsed.value("publish") == nil {
            throw UsageError(
                message: "a \(scheme.rawValue):// target needs --publish '\(example)': the message the "
                    + (configuration.scenario == .fanout ? "publisher sends" : "clients send"), command: command)
        }
        if target != nil, let text = parsed.value("framing") {
            guard let framing = MessageFraming(rawValue: text) else {
                throw reader.invalid("framing", "kind", text, "expected length32, length16, line or stx")
            }
            guard target?.url.scheme.record.takesFraming == true else {
                throw reader.invalid("framing", "kind", text, "is for tcp:// targets")
            }
            target?.framing = framing
        }
        try readPublishURL(into: &target, reader: reader, parsed: parsed, command: command)
        try readProtocolMessages(into: &target, scenario: configuration.scenario, reader: reader, parsed: parsed, command: command)
        try readStreamsPerConnection(into: &target, scenario: configuration.scenario, reader: reader, parsed: parsed)
        try readHTTP2(into: &target, parsed: parsed, command: command)
    }

    /// `--publish-url`: required by an sse:// target and only there; an http:// URL whose host is an address.
    private static func readPublishURL(
        into target: inout TargetSettings?, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        let scheme = target?.url.scheme
        if let scheme, scheme.protocolScheme == .http {
            let text = parsed.value("target") ?? ""
            let rest = text.drop { $0 != ":" }  // "://HOST:PORT/PATH"
            throw reader.invalid(
                "target", "url", text,
                "\(scheme.rawValue):// is no target: did you mean \(scheme.usesTLS ? "wss" : "ws")\(rest) (a WebSocket "
                    + "server) or \(scheme.usesTLS ? "sses" : "sse")\(rest) (a Server-Sent Events stream)? An "
                    + "\(scheme.rawValue):// URL is where an sse:// target's publisher POSTs: give it as --publish-url")
        }
        guard let text = parsed.value("publish-url") else {
            if scheme?.record.publishesByPost == true {
                throw UsageError(message: "an sse:// target needs --publish-url http://HOST:PORT/PATH: where a broadcast is POSTed", command: command)
            }
            return
        }
        guard let scheme, scheme.record.publishesByPost else {
            throw reader.invalid("publish-url", "url", TargetURL.hidingPassword(in: text), "is for sse:// and sses:// targets")
        }
        let url: TargetURL
        do {
            url = try TargetURL(text)
        } catch {
            throw reader.invalid("publish-url", "url", TargetURL.hidingPassword(in: text), error.reason)
        }
        let expected = scheme.usesTLS ? "https" : "http"
        guard url.scheme.protocolScheme == .http, url.scheme.usesTLS == scheme.usesTLS,
            SocketAddress(host: url.host, port: url.port) != nil
        else {
            throw reader.invalid(
                "publish-url", "url", TargetURL.hidingPassword(in: text),
                "expected \(expected)://ADDRESS:PORT/PATH with a numeric address (\(expected) for an \(scheme.rawValue):// target)")
        }
        target?.publishURL = url
    }
}
