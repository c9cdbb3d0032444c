import BenchCore
import BenchNet
import BenchProtocols
import BenchScenarios

/// `--protocol NAME|FILE` and `--channel TEXT`: a ws:// target's protocol described in lines (the built-in `phoenix`
/// and `actioncable`, or the user's file), its channel filled in.
extension RunOptions {
    /// The options, beside the target's.
    static var protocolOptions: [OptionSpec] {
        [
            OptionSpec(
                "protocol", value: "name|file",
                help: "What a ws:// or wss:// target speaks around each message: phoenix (Phoenix Channels, V2 JSON: "
                    + "ws://HOST:PORT/socket/websocket?vsn=2.0.0), actioncable (Rails: ws://HOST:PORT/cable), or a file "
                    + "describing yours in lines: send, expect, reply, heartbeat, publish, error, ignore (see "
                    + "docs/measuring-your-server.md)."),
            OptionSpec(
                "channel", value: "text",
                help: "The channel --protocol joins: a Phoenix topic (room:lobby), an ActionCable identifier "
                    + "('{\"channel\":\"ChatChannel\"}'); {channel} in a protocol file (and {channel_json}, as inside a "
                    + "JSON string)."),
        ]
    }

    /// Reads `--protocol` (a built-in's name, else a file) and `--channel` into `target`: only for ws:// and wss://,
    /// instead of `--subscribe`; `--channel` exactly when the description asks for one.
    static func readProtocol(
        into target: inout TargetSettings, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        let channel = parsed.value("channel")
        guard let name = parsed.value("protocol") else {
            if channel != nil { throw UsageError(message: "--channel goes with --protocol", command: command) }
            return
        }
        guard target.url.scheme.protocolScheme == .ws else {
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
            throw UsageError(message: "--protocol \(name) needs --channel: the channel it joins", command: command)
        case (false, let channel?):
            throw reader.invalid("channel", "text", channel, "--protocol \(name) has no {channel} to fill in")
        case (true, let channel?):
            guard !channel.isEmpty, channel.utf8.count <= 1_024,
                channel.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }),
                !channel.contains(ProtocolDescription.payloadVariable)
            else {
                throw reader.invalid(
                    "channel", "text", channel, "expected up to 1 KiB of text without control characters or {payload}")
            }
            description = description.filling(channel: channel)
        case (false, nil): break
        }
        target.protocolDescription = description
    }
}
