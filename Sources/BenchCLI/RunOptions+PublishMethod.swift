import BenchClients
import BenchCore
import BenchProtocols

/// `--publish-method`, and the messages of a protocol that has its own way of writing them (gRPC's protocol buffers, as
/// `protoc --decode_raw` prints them): checked before anything runs.
extension RunOptions {
    static let publishMethodOption = OptionSpec(
        "publish-method", value: "package.Service/Method",
        help: "A grpc:// target: the unary method called with each broadcast (fanout: by the publisher) or each member's "
            + "message (chat: on the member's own connection), --publish its request; the subscribers or members call the "
            + "target URL's server-streaming method with --subscribe.")

    static let streamsPerConnectionOption = OptionSpec(
        "streams-per-connection", value: "n",
        help: "A grpc:// target's fan-out: the subscribers one HTTP/2 connection carries, each a call of its own on a "
            + "stream (as a gRPC channel or a browser shares one), 1 to \(RunConfiguration.maximumStreamsPerConnection); "
            + "run.csv says it, so bench compare shows what sharing costs against one connection each.",
        default: "1")

    /// `--streams-per-connection`: a fan-out's subscribers per connection, where the protocol carries streams.
    static func readStreamsPerConnection(
        into target: inout TargetSettings?, scenario: Scenario, reader: OptionReader, parsed: ParsedOptions
    ) throws(UsageError) {
        guard let text = parsed.value("streams-per-connection") else { return }
        guard let count = Int(text), (1...RunConfiguration.maximumStreamsPerConnection).contains(count) else {
            throw reader.invalid(
                "streams-per-connection", "n", text, "expected 1 to \(RunConfiguration.maximumStreamsPerConnection)")
        }
        guard let settings = target, settings.url.scheme.record.carriesStreams, scenario == .fanout else {
            throw reader.invalid("streams-per-connection", "n", text, "is for a \(Self.schemes { $0.carriesStreams }) target's fanout")
        }
        if count > 1 && settings.identities != nil {
            throw reader.invalid(
                "streams-per-connection", "n", text,
                "a connection that carries several subscribers speaks as one: --clients-file gives each its own connection")
        }
        if count > 1 && parsed.value("link") != nil {
            throw reader.invalid(
                "streams-per-connection", "n", text,
                "a --link is each client's own: a connection that carries several subscribers cannot take theirs")
        }
        target?.streamsPerConnection = count
    }

    /// The schemes whose protocol's record says `applies`, for messages: `grpc:// or grpcs://`.
    private static func schemes(_ applies: (ProtocolRecord) -> Bool) -> String {
        TargetURL.Scheme.allCases.filter { applies($0.record) }.map { "\($0.rawValue)://" }.joined(separator: " or ")
    }

    /// Reads `--publish-method` (needed by a fan-out of a protocol that publishes by a method call, refused elsewhere),
    /// and checks `--subscribe` and `--publish` as the protocol writes its messages.
    static func readProtocolMessages(
        into target: inout TargetSettings?, scenario: Scenario, reader: OptionReader, parsed: ParsedOptions, command: String
    ) throws(UsageError) {
        let text = parsed.value("publish-method")
        guard let record = target?.url.scheme.record else { return }
        if let subscribe = parsed.value("subscribe"), let refusal = record.subscribeRefusal(subscribe) {
            throw reader.invalid("subscribe", "text", subscribe, refusal)
        }
        if let publish = parsed.value("publish"), let refusal = record.publishRefusal(publish) {
            throw reader.invalid("publish", "template", publish, refusal)
        }
        guard record.takesPublishMethod && scenario != .roundtrip else {
            if let text {
                throw reader.invalid(
                    "publish-method", "package.Service/Method", text, "is for a \(Self.schemes { $0.takesPublishMethod }) target's fanout and chat")
            }
            return
        }
        guard let text else {
            throw UsageError(
                message: "a \(target!.url.scheme.rawValue):// target's \(scenario.rawValue) needs --publish-method package.Service/Method: "
                    + "the unary method "
                    + (scenario == .fanout ? "the publisher calls with each broadcast" : "each member calls with its messages"),
                command: command)
        }
        let method = text.hasPrefix("/") ? text : "/" + text
        let parts = method.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty,
            method.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw reader.invalid("publish-method", "package.Service/Method", text, "expected package.Service/Method")
        }
        target?.publishMethod = method
    }
}
