@testable import BenchClients
import BenchCore
import BenchProtocols
import Testing

@testable import BenchScenarios

/// The client spec an agent reads from the network after its welcome: what was written reads back, and anything
/// else is refused with a reason, never a trap.
@Suite struct ClientSpecTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    static let pinned = TLSTrust.pinned(pem: Array(pem.utf8), source: "the run's certificate")

    private func fields(_ spec: ClientSpec) -> [UInt8] { Array(spec.encoded().dropFirst(5)) }

    /// A target at `url`, with its settings as `change` makes them.
    private static func target(_ url: String, _ change: (inout TargetSettings) -> Void = { _ in }) -> TargetSettings {
        var settings = TargetSettings(try! TargetURL(url))
        change(&settings)
        return settings
    }

    static let specs: [ClientSpec] = [
        ClientSpec(transport: .tcp), ClientSpec(transport: .ws, webSocketPath: "/live?room=1"),
        ClientSpec(transport: .tls, tlsTrust: pinned), ClientSpec(transport: .wss, webSocketPath: "/x", tlsTrust: pinned),
        ClientSpec(transport: .tls, tlsTrust: .authorities(pem: Array((pem + pem).utf8), source: "the run's --tls-ca")),
        ClientSpec(transport: .tls, tlsTrust: .insecure),
        ClientSpec(transport: .tcp, target: Self.target("redis://:pa@ss@127.0.0.1:6379/news")),
        ClientSpec(transport: .tcp, target: Self.target("tcp://127.0.0.1:9") { $0.subscribeText = "JOIN"; $0.framing = .line }),
        ClientSpec(transport: .tcp, tlsTrust: pinned, target: Self.target("wss://example.com:443/live")),
        ClientSpec(transport: .tcp, tlsTrust: .systemStore, target: Self.target("mqtts://example.com:8883/prices") { $0.qos = 2 }),
        ClientSpec(
            transport: .tcp, webSocketPath: "/engine.io/",
            target: Self.target("socketio://127.0.0.1:9/chat") {
                $0.publishTemplate = try! PublishTemplate(#"["echo","{marker}{padding}"]"#)
                $0.webSocketPath = "/engine.io/"
            }),
        ClientSpec(
            transport: .tcp, target: Self.target("ws://127.0.0.1:9/live") {
                $0.headers = [try! HeaderField(parsing: "Authorization: Bearer a b"), try! HeaderField(parsing: "Cookie: s=1")]
            }),
        ClientSpec(transport: .ws, webSocketPath: "/", connectInterval: 2_000_000),
        ClientSpec(
            transport: .tcp, target: Self.target("ws://127.0.0.1:9/live?user={user}") {
                $0.identities = try! ClientIdentities(
                    columns: ["user", "token"], rows: (0..<4_000).map { ["u\($0)", "token-\($0)-" + String(repeating: "x", count: 20)] },
                    cycle: true)
            }),
        ClientSpec(
            transport: .tcp, webSocketPath: "/ws", tlsTrust: .systemStore,
            target: Self.target("mqtt+wss://user:pw@example.com:443/prices") { $0.webSocketPath = "/ws" }),
        // A channel that would read otherwise were it written into the text: the child fills it in as the parent did.
        ClientSpec(
            transport: .tcp, target: Self.target("ws://127.0.0.1:9/cable") {
                let text = ProtocolDescription.builtIn["actioncable"]! + "\nreply {channel} => pong {channel_json}\n"
                $0.protocolDescription = try! ProtocolDescription(parsing: text, name: "cable.protocol")
                    .filling(channel: #" {"channel":"C"} => {channel_json}"#)
            }),
        // GraphQL: its connection parameters (a client's token among them) carried as given, filled in by the child.
        ClientSpec(
            transport: .tcp, target: Self.target("ws://127.0.0.1:9/graphql") {
                $0.protocolDescription = try! ProtocolDescription(parsing: ProtocolDescription.builtIn["graphql"]!, name: "graphql")
                    .filling(channel: "subscription { messages }", connectionParameters: #"{"token":"{token}","n":[1,2]}"#)
            }),
        ClientSpec(
            transport: .tcp, target: Self.target("nats://127.0.0.1:4222/chat"),
            chat: ClientSpec.ChatDeal(plan: ChatRoomPlan(rooms: 7, sizes: .zipf(1.25)), seed: 0xdead_beef_0102_0304)),
        // `--link` with `--client-procs`: the mix, its seed and the run's clients, so that a child deals as the parent.
        {
            var spec = ClientSpec(transport: .ws)
            spec.link = ClientSpec.LinkDeal(mix: try! LinkMix(parsing: "lte:70%,none:30%"), seed: 0x0102_0304_0506_0708, clients: 70_000)
            return spec
        }(),
        // The chat relay in processes of its own (`--server-procs`): each one's port, in order.
        {
            var spec = ClientSpec(
                transport: .tcp, target: Self.target("tcp://127.0.0.1:4000"),
                chat: ClientSpec.ChatDeal(plan: ChatRoomPlan(rooms: 9), seed: 7))
            spec.relayPorts = [4000, 65_535, 1, 0x0102]
            return spec
        }(),
        // `--http2`: a WebSocket by extended CONNECT.
        ClientSpec(transport: .tcp, target: Self.target("ws://127.0.0.1:8443/live") { $0.overHTTP2 = true }),
        // `--reconnect` against a user's server: its children and agents try again by the run's backoff.
        {
            var spec = ClientSpec(transport: .tcp, target: Self.target("nats://127.0.0.1:4222/news"))
            spec.reconnect = ReconnectBackoff(base: 50_000_000, maximum: 400_000_000, tries: 1_000_000)
            spec.silenceLimit = 750_000_000
            return spec
        }(),
        // `--source-addresses` against a user's server: its children's clients leave from them.
        {
            var spec = ClientSpec(transport: .tcp, target: Self.target("nats://127.0.0.1:4222/news"))
            spec.sourceAddresses = ["127.0.0.2", "::1", "10.0.0.3"]
            return spec
        }(),
    ]

    @Test(arguments: specs)
    func whatIsWrittenReadsBack(spec: ClientSpec) throws {
        let encoded = spec.encoded()
        #expect(Int(encoded[0]) << 24 | Int(encoded[1]) << 16 | Int(encoded[2]) << 8 | Int(encoded[3]) == encoded.count - 4)
        #expect(encoded[4] == FrameKind.clientSpec.rawValue)
        #expect(try ClientSpec(fields: fields(spec)) == spec)
    }

    static let refusals: [([UInt8], String)] = [
        ([UInt8](), "no transport"),
        ([1, 0, 1, 9], "no such transport"),
        ([1, 0, 1, 0, 5, 0, 1, 65], "a target's settings without a target"),
        ([1, 0, 1, 0, 7, 0, 1, 1], "a target's settings without a target"),
        ([1, 0, 1, 0, 1, 0, 1, 0], "field 1 twice"),
        ([23, 0, 0], "unknown field 23"),
        ([1, 0, 1, 0, 4, 0, 23] + Array("nats://127.0.0.1:4222/x".utf8) + [21, 0, 1, 1], "HTTP/2 for a target that has no use for it"),
        ([1, 0, 1, 0, 21, 0, 1, 1], "a target's settings without a target"),
        ([1, 0, 1, 0, 4, 0, 10] + Array("ws://a:1/x".utf8) + [21, 0, 1, 2], "an HTTP/2 flag that is not 1"),
        ([1, 0, 1, 0, 20, 0, 3, 0, 0, 2], "the streams per connection are not 4 bytes"),
        ([1, 0, 1, 0, 4, 0, 23] + Array("nats://127.0.0.1:4222/x".utf8) + [20, 0, 4, 0, 0, 0, 2],
         "streams per connection where a connection carries one client"),
        ([15, 0, 1, 65], "the protocol description is not a name, a channel, connection parameters and text"),
        ([15, 0, 6, 103, 0, 0, 123, 0, 65], "the protocol's connection parameters are no JSON object"),
        ([1, 0, 1, 0, 10, 0, 3, 1, 2, 3], "the chat rooms are not rooms, a seed and sizes"),
        ([1, 0, 1, 0, 10, 0, 16, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1] + Array("zipf".utf8), "the chat rooms are not rooms"),
        ([1, 0, 1, 0, 10, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] + Array("uniform".utf8), "a chat run of no room"),
        ([1, 0, 1, 0, 10, 0, 19, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1] + Array("uniform".utf8), "chat rooms without a target"),
        ([1, 0, 1, 2, 9, 0, 1, 7], "no such way to trust TLS"),
        ([1, 0, 1, 0, 9, 0, 1, 4], "a certificate for a run without TLS"),
        ([1, 0, 1, 2, 9, 0, 1, 2], "none where one does"),
        ([1, 0, 1, 2, 9, 0, 1, 4, 3, 0, 27] + Array("-----BEGIN CERTIFICATE-----".utf8), "a certificate where none belongs"),
        ([1, 0, 5, 0], "runs past the frame"),
        ([1, 0], "cut off"),
        ([1, 0, 1, 1, 2, 0, 3, 0x61, 0x62, 0x63], "not a path"),
        ([1, 0, 1, 1, 2, 0, 3, 0x2f, 0x20, 0x61], "not a path"),
        ([1, 0, 1, 2], "a TLS run without its certificate"),
        ([1, 0, 1, 2, 3, 0, 2, 0x41, 0x42], "not PEM text"),
        ([1, 0, 1, 0, 4, 0, 3, 0x61, 0x62, 0x63], "not a target URL"),
        ([1, 0, 1, 0, 6, 0, 2, 0x61, 0x62], "no such framing"),
        ([1, 0, 1, 0, 5, 0, 1, 0xff], "--subscribe is not text"),
        ([1, 0, 1, 0, 4, 0, 13] + Array("wss://a:1/x/y".utf8), "a TLS run without its certificate"),
        ([1, 0, 1, 0, 8, 0, 3] + Array("abc".utf8), "--publish is not a template with {marker}"),
    ] + Self.headerRefusals

    /// A target's `--header` fields from the network: a line that would smuggle in another field, or one a handshake
    /// writes itself, is refused; so are fields without a target.
    static let headerRefusals: [([UInt8], String)] = {
        let target = Array("ws://a:1/x".utf8)
        func spec(_ headers: String, target: [UInt8] = target) -> [UInt8] {
            [1, 0, 1, 0] + (target.isEmpty ? [] : [4, 0, UInt8(target.count)] + target)
                + [11, 0, UInt8(headers.utf8.count)] + Array(headers.utf8)
        }
        return [
            (spec("X-Key: 1\r\n", target: []), "a target's settings without a target"),
            (spec("X-Key: 1"), "the header fields are not lines of text"),
            (spec("X-Key: 1\r\nHost: evil\r\n"), "Host is written by the handshake itself"),
            (spec("X-Key: 1\nHost: evil\r\n"), "control character"),
            (spec("\r\n"), "expected 'Name: value'"),
            (spec("Bad Name: 1\r\n"), "is not a header name"),
            ([1, 0, 1, 0, 12, 0, 4, 0, 0, 0, 1], "the connect interval is not 8 bytes"),
            ([1, 0, 1, 0, 13, 0, 4] + Array("u\nx\n".utf8), "identities without a target"),
            ([1, 0, 1, 0, 14, 0, 1, 1], "a cycle flag without identities"),
            (spec("X: 1\r\n") + [13, 0, 9] + Array("user\na\u{1F}b\n".utf8), "row 1 has 2 fields, the header 1"),
            ([1, 0, 1, 0, 12, 0, 8, 0, 0, 0, 0, 0, 0, 3, 231], "a connect interval under 1µs"),
            ([1, 0, 1, 0, 16, 0, 12] + [UInt8](repeating: 0, count: 12), "the link is not a seed, a count of clients and text"),
            ([1, 0, 1, 0, 16, 0, 15] + [UInt8](repeating: 0, count: 12) + Array("5g:".utf8), "the link does not read"),
            ([1, 0, 1, 0, 17, 0, 0], "the relays' ports are not 1 to 64 ports"),
            ([1, 0, 1, 0, 17, 0, 3, 1, 2, 3], "the relays' ports are not 1 to 64 ports"),
            ([1, 0, 1, 0, 17, 0, 130] + [UInt8](repeating: 1, count: 130), "the relays' ports are not 1 to 64 ports"),
            ([1, 0, 1, 0, 17, 0, 4, 1, 2, 0, 0], "a relay at port 0"),
            ([1, 0, 1, 0, 17, 0, 2, 1, 2], "relays' ports without chat rooms"),
            ([1, 0, 1, 0, 18, 0, 8] + [UInt8](repeating: 1, count: 8), "the reconnects' backoff is not 24 bytes"),
            ([1, 0, 1, 0, 18, 0, 24] + Self.words(0, 1, 1), "the reconnects' backoff is out of range"),
            ([1, 0, 1, 0, 18, 0, 24] + Self.words(2, 1, 1), "the reconnects' backoff is out of range"),
            ([1, 0, 1, 0, 18, 0, 24] + Self.words(1, 1, 1_000_001), "the reconnects' backoff is out of range"),
            ([1, 0, 1, 0, 18, 0, 24] + Self.words(1, 1, 1), "a reconnects' backoff without a target"),
            ([1, 0, 1, 0, 19, 0, 4, 0, 0, 0, 1], "the silence limit is not 8 bytes"),
            ([1, 0, 1, 0, 19, 0, 8] + Self.words(0), "a silence limit of 0"),
            ([1, 0, 1, 0, 19, 0, 8] + Self.words(5), "a silence limit without a target"),
            ([1, 0, 1, 0, 22, 0, 9] + Array("127.0.0.2".utf8), "source addresses without a target"),
            (spec("X: 1\r\n") + [22, 0, 19] + Array("127.0.0.2,127.0.0.2".utf8), "at most 250 addresses, each once"),
            (spec("X: 1\r\n") + [22, 0, 14] + Array("127.0.0.2,host".utf8), "'host' is not a numeric IPv4 or IPv6 address"),
            (spec("X: 1\r\n") + [22, 0, 0], "'' is not a numeric IPv4 or IPv6 address"),
            (spec("X: 1\r\n") + [22, 0, 2, 0xFF, 0xFE], "source addresses that are not text"),
        ]
    }()

    /// Big-endian UInt64s, as a spec carries numbers.
    static func words(_ values: UInt64...) -> [UInt8] {
        values.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) }
    }

    @Test(arguments: refusals)
    func aSpecThatDoesNotFitIsRefusedSayingWhy(bytes: [UInt8], reason: String) {
        #expect {
            _ = try ClientSpec(fields: bytes)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    /// Cut at every byte, and every byte changed: refused or read, never a trap.
    @Test func everyPrefixAndEveryByteChangeIsReadOrRefused() {
        let whole = fields(ClientSpec(transport: .wss, webSocketPath: "/socket", tlsTrust: Self.pinned))
        for end in 0..<whole.count {
            #expect(throws: ClientSpec.SpecError.self) { _ = try ClientSpec(fields: whole[0..<end]) }
        }
        for index in whole.indices {
            for value: UInt8 in [0, 1, 0x7f, 0xff] {
                var changed = whole
                changed[index] = value
                _ = try? ClientSpec(fields: changed)
            }
        }
    }
}
