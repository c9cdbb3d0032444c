import BenchClients
import BenchCore
import BenchProtocols

/// What a run's clients need beyond the numbers of the welcome, as one value: the built-in run's own clients are made
/// from it, and an agent receives it right after its welcome (``FrameKind/clientSpec``), so that its clients speak
/// the run's transport without being told on their command line.
///
/// On the wire: the frame's 5-byte header, then fields of a tag (1 byte), a length (2 bytes, big-endian) and that
/// many bytes. Every field is checked when read: it comes from the network.
public struct ClientSpec: Equatable, Sendable {
    /// The transport the clients connect with.
    public var transport: TransportKind
    /// The WebSocket path they ask for (ws, wss; a socketio:// target's Engine.IO path, an mqtt+ws://, nats+ws:// or
    /// stomp+ws:// target's: the one in use, explicit or the scheme's).
    public var webSocketPath: String
    /// How TLS clients trust the server (tls, wss, a target over TLS): the run's certificate to pin, the authorities
    /// of its `--tls-ca`, the system's store, or nothing; nil without TLS. An agent given its own `--tls-ca`,
    /// `--tls-pin` or `--tls-insecure` trusts so instead.
    public var tlsTrust: TLSTrust?
    /// A target run: the user's server the clients connect to (the certificate above is a wss target's) and how to
    /// speak to it: what each sends first (`--subscribe`), how a tcp target cuts messages (`--framing`), an MQTT
    /// target's QoS, in roundtrip what each client sends (`--publish`), a socketio:// target's Engine.IO path (carried
    /// as the WebSocket path), the `--header` fields of their handshakes (secrets: here, never on a command line). The
    /// publisher's own settings (its `--publish-url`) stay with the measuring side.
    public var target: TargetSettings?
    /// A chat run: its rooms and the seed that deals them, so that every process deals the same rooms.
    public var chat: ChatDeal?
    /// `--connect-rate`: the time between two clients' first connects across the run; nil: a window at a time.
    public var connectInterval: UInt64?
    /// `--link` with `--client-procs`: the link (or mix) each child puts its clients behind, and what deals a mix, so
    /// that every process deals the same groups as the measuring side.
    public var link: LinkDeal?
    /// A chat run whose relay is in several processes (`--server-procs`): the port each listens on, at the target's
    /// host, in order; a member connects to the one its room is on (``ChatRooms/relayOfRoom(relays:)``). Empty: the
    /// target's port alone.
    public var relayPorts: [UInt16] = []
    /// `--reconnect` in a target run: how its clients elsewhere try again after a drop, as the run's own do; nil: they
    /// do not.
    public var reconnect: ReconnectBackoff?
    /// `--dead-after` in a target run (``RunConfiguration/silenceLimit``): 0 never.
    public var silenceLimit: UInt64 = 0
    /// `--source-addresses` in a target run: where its children's clients leave from, as the run's own (an agent's
    /// clients leave from its own `--source-addresses`: this host's are not its).
    public var sourceAddresses: [String] = []

    /// A run's links as the processes that hold its clients are told them: the mix, the seed and the run's clients.
    public struct LinkDeal: Equatable, Sendable {
        public var mix: LinkMix
        public var seed: UInt64
        public var clients: Int
    }

    /// A chat run's rooms as its clients elsewhere are told them.
    public struct ChatDeal: Equatable, Sendable {
        public var plan: ChatRoomPlan
        public var seed: UInt64
    }

    public init(
        transport: TransportKind, webSocketPath: String = "/", tlsTrust: TLSTrust? = nil, target: TargetSettings? = nil,
        chat: ChatDeal? = nil, connectInterval: UInt64? = nil
    ) {
        self.transport = transport
        self.webSocketPath = webSocketPath
        self.tlsTrust = tlsTrust
        self.target = target
        self.chat = chat
        self.connectInterval = connectInterval
    }

    enum Tag: UInt8 {
        case transport = 1
        case webSocketPath = 2
        case tlsCertificate = 3
        case target = 4
        case subscribeText = 5
        case framing = 6
        case qos = 7
        case publishTemplate = 8
        /// How the certificate field is to be trusted: absent, pinned (1); the authorities of a bundle (2), the system's
        /// store (3), nothing (4).
        case tlsTrustKind = 9
        /// Chat: the rooms (4 bytes), the seed (8 bytes, both big-endian), then how sizes are drawn (`uniform`, `zipf:S`).
        case chat = 10
        /// A target's `--header` fields, each `Name: value` and CR LF after it (a value has no line break).
        case headers = 11
        /// `--connect-rate`: the nanoseconds between two clients' first connects (8 bytes, big-endian).
        case connectInterval = 12
        /// `--clients-file`: a chunk of its lines (``ClientIdentities/chunks(limit:)``), the header first; the one
        /// field that may come more than once, in order.
        case identities = 13
        /// `--clients-file-cycle`: one byte, 1.
        case identitiesCycle = 14
        /// `--protocol`: the description's name, a 0 byte, `--channel` (empty without), a 0 byte,
        /// `--connection-params` (empty without), a 0 byte, then its text as written, read again and filled in as the
        /// parent did.
        case protocolDescription = 15
        /// `--link`: the seed (8 bytes), the run's clients (4 bytes, both big-endian), then the link's text.
        case link = 16
        /// A chat relay's processes: their ports, 2 bytes each, big-endian.
        case relayPorts = 17
        /// The reconnects' first wait and longest wait (ns) and tries: three big-endian UInt64s.
        case reconnect = 18
        /// ``silenceLimit`` (ns): a big-endian UInt64.
        case silenceLimit = 19
        /// A target's subscribers per connection (`--streams-per-connection`), above 1: a big-endian UInt32.
        case streamsPerConnection = 20
        /// `--http2`: one byte, 1.
        case overHTTP2 = 21
        /// ``sourceAddresses``: numeric addresses joined by commas.
        case sourceAddresses = 22
    }

    /// The frame, length field included.
    public func encoded() -> [UInt8] {
        var body: [UInt8] = [FrameKind.clientSpec.rawValue]
        func field(_ tag: Tag, _ bytes: some Collection<UInt8>) {
            body += [tag.rawValue, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)] + bytes
        }
        field(.transport, [UInt8(TransportKind.allCases.firstIndex(of: transport)!)])
        field(.webSocketPath, webSocketPath.utf8)
        switch tlsTrust {
        case .pinned(let pem, _)?: field(.tlsCertificate, pem)
        case .authorities(let pem?, _)?:
            field(.tlsCertificate, pem)
            field(.tlsTrustKind, [2])
        case .authorities(nil, _)?: field(.tlsTrustKind, [3])
        case .insecure?: field(.tlsTrustKind, [4])
        case nil: break
        }
        if let target {
            field(.target, target.url.textWithCredentials.utf8)
            field(.framing, target.framing.rawValue.utf8)
            field(.qos, [target.qos])
            if let subscribeText = target.subscribeText { field(.subscribeText, subscribeText.utf8) }
            if target.streamsPerConnection > 1 {
                field(.streamsPerConnection, withUnsafeBytes(of: UInt32(target.streamsPerConnection).bigEndian, Array.init))
            }
            if target.overHTTP2 { field(.overHTTP2, [1]) }
            if target.publishTemplate != .bare { field(.publishTemplate, target.publishTemplate.text.utf8) }
            if !target.headers.isEmpty { field(.headers, target.headers.map { $0.text + "\r\n" }.joined().utf8) }
            if let description = target.protocolDescription {
                let parts = [
                    description.name, description.channel ?? "", description.connectionParameters ?? "", description.source,
                ]
                field(.protocolDescription, Array(parts.map { Array($0.utf8) }.joined(separator: [0])))
            }
            if let identities = target.identities {
                for chunk in identities.chunks() { field(.identities, chunk) }
                if identities.cycle { field(.identitiesCycle, [1]) }
            }
        }
        if let chat {
            let rooms: [UInt8] = withUnsafeBytes(of: UInt32(chat.plan.rooms).bigEndian, Array.init)
            let seed: [UInt8] = withUnsafeBytes(of: chat.seed.bigEndian, Array.init)
            field(.chat, rooms + seed + Array(chat.plan.sizesText.utf8))
        }
        if let connectInterval { field(.connectInterval, withUnsafeBytes(of: connectInterval.bigEndian, Array.init)) }
        if silenceLimit > 0 { field(.silenceLimit, withUnsafeBytes(of: silenceLimit.bigEndian, Array.init)) }
        if let reconnect {
            field(.reconnect, [reconnect.base, reconnect.maximum, UInt64(reconnect.tries)].flatMap {
                withUnsafeBytes(of: $0.bigEndian, Array.init)
            })
        }
        if let link {
            let seed: [UInt8] = withUnsafeBytes(of: link.seed.bigEndian, Array.init)
            let clients: [UInt8] = withUnsafeBytes(of: UInt32(link.clients).bigEndian, Array.init)
            field(.link, seed + clients + Array(link.mix.text.utf8))
        }
        if !relayPorts.isEmpty { field(.relayPorts, relayPorts.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }) }
        if !sourceAddresses.isEmpty { field(.sourceAddresses, sourceAddresses.joined(separator: ",").utf8) }
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + body
    }

    /// Why a client spec from the network was refused.
    public struct SpecError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = "the server's client spec does not fit: \(description)" }
    }
}
