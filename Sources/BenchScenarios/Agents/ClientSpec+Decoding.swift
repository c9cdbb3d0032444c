import BenchClients
import BenchCore
import BenchNet
import BenchProtocols

/// A client spec read from the network (an agent's or a child's channel): every field checked, anything else refused.
extension ClientSpec {
    /// The fields after a client spec frame's 5-byte header.
    ///
    /// - Throws: ``SpecError`` naming what does not fit: an unknown or repeated tag, a field past the end, a
    ///   transport out of range, a WebSocket path that is not a path, a TLS transport without a certificate.
    public init(fields: some Collection<UInt8>) throws(SpecError) {
        let bytes = Array(fields)
        var seen: Set<UInt8> = []
        var transport: TransportKind?
        var path = "/"
        var pem: [UInt8]?
        var trustKind: UInt8 = 1
        var target: TargetURL?
        var subscribe: String?
        var framing = MessageFraming.length32
        var qos: UInt8 = 0
        var streamsPerConnection = 1
        var publish: PublishTemplate?
        var chat: ChatDeal?
        var headers: [HeaderField] = []
        var connectInterval: UInt64?
        var reconnect: ReconnectBackoff?
        var silenceLimit: UInt64 = 0
        var sources: [String] = []
        var identityChunks: [[UInt8]] = []
        var description: ProtocolDescription?
        var link: LinkDeal?
        var relayPorts: [UInt16] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 3 <= bytes.count else { throw SpecError("a field's head is cut off at byte \(offset)") }
            let tagByte = bytes[offset]
            let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            guard let tag = Tag(rawValue: tagByte) else { throw SpecError("unknown field \(tagByte)") }
            guard seen.insert(tagByte).inserted || tag == .identities else { throw SpecError("field \(tagByte) twice") }
            guard offset + 3 + length <= bytes.count else { throw SpecError("field \(tagByte) runs past the frame") }
            let value = bytes[(offset + 3)..<(offset + 3 + length)]
            offset += 3 + length
            switch tag {
            case .transport:
                guard value.count == 1, Int(value.first!) < TransportKind.allCases.count else {
                    throw SpecError("no such transport")
                }
                transport = TransportKind.allCases[Int(value.first!)]
            case .webSocketPath:
                guard let text = String(validating: value, as: UTF8.self), text.hasPrefix("/"), text.utf8.count <= 1_024,
                    text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7f })
                else { throw SpecError("the WebSocket path is not a path") }
                path = text
            case .tlsCertificate:
                guard let text = String(validating: value, as: UTF8.self), text.contains("-----BEGIN CERTIFICATE-----")
                else { throw SpecError("the TLS certificate is not PEM text") }
                pem = Array(value)
            case .tlsTrustKind:
                guard value.count == 1, (1...4).contains(value.first!) else { throw SpecError("no such way to trust TLS") }
                trustKind = value.first!
            case .target:
                guard let text = String(validating: value, as: UTF8.self), let url = try? TargetURL(text) else {
                    throw SpecError("the target is not a target URL")
                }
                target = url
            case .subscribeText:
                guard let text = String(validating: value, as: UTF8.self) else { throw SpecError("--subscribe is not text") }
                subscribe = text
            case .framing:
                guard let text = String(validating: value, as: UTF8.self), let kind = MessageFraming(rawValue: text) else {
                    throw SpecError("no such framing")
                }
                framing = kind
            case .qos:
                guard value.count == 1, value.first! <= 2 else { throw SpecError("no such QoS") }
                qos = value.first!
            case .streamsPerConnection:
                guard value.count == 4 else { throw SpecError("the streams per connection are not 4 bytes") }
                streamsPerConnection = Int(value.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
                guard (2...RunConfiguration.maximumStreamsPerConnection).contains(streamsPerConnection) else {
                    throw SpecError("\(streamsPerConnection) streams per connection")
                }
            case .overHTTP2:
                guard value.elementsEqual([1]) else { throw SpecError("an HTTP/2 flag that is not 1") }
            case .publishTemplate:
                guard let text = String(validating: value, as: UTF8.self), let template = try? PublishTemplate(text) else {
                    throw SpecError("--publish is not a template with {marker}")
                }
                publish = template
            case .chat:
                let field = Array(value)
                guard field.count > 12, let sizes = String(validating: field[12...], as: UTF8.self),
                    let drawn = ChatRoomPlan.sizes(parsing: sizes)
                else { throw SpecError("the chat rooms are not rooms, a seed and sizes") }
                let rooms = field[0..<4].reduce(0) { $0 << 8 | Int($1) }
                let seed = field[4..<12].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard rooms >= 1 else { throw SpecError("a chat run of no room") }
                chat = ChatDeal(plan: ChatRoomPlan(rooms: rooms, sizes: drawn), seed: seed)
            case .identities:
                guard identityChunks.count < 1_024 else { throw SpecError("more than 1024 chunks of identities") }
                identityChunks.append(Array(value))
            case .protocolDescription:
                let parts = value.split(separator: 0, maxSplits: 3, omittingEmptySubsequences: false)
                    .map { String(validating: $0, as: UTF8.self) }
                guard parts.count == 4, let name = parts[0], let channel = parts[1], let parameters = parts[2],
                    let text = parts[3]
                else { throw SpecError("the protocol description is not a name, a channel, connection parameters and text") }
                guard parameters.isEmpty || JSONText.isObject(parameters) else {
                    throw SpecError("the protocol's connection parameters are no JSON object")
                }
                do {
                    description = try ProtocolDescription(parsing: text, name: name).filling(
                        channel: channel.isEmpty ? nil : channel, connectionParameters: parameters.isEmpty ? nil : parameters)
                } catch {
                    throw SpecError("the protocol description does not read: \(error.reason)")
                }
            case .identitiesCycle:
                guard value.elementsEqual([1]) else { throw SpecError("the identities' cycle flag is not 1") }
            case .connectInterval:
                guard value.count == 8 else { throw SpecError("the connect interval is not 8 bytes") }
                let interval = value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard interval >= 1_000 else { throw SpecError("a connect interval under 1µs") }
                connectInterval = interval
            case .sourceAddresses:
                guard let text = String(validating: value, as: UTF8.self) else { throw SpecError("source addresses that are not text") }
                sources = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                if let refusal = SourceAddresses.refusal(of: sources) { throw SpecError("source addresses: \(refusal)") }
            case .silenceLimit:
                guard value.count == 8 else { throw SpecError("the silence limit is not 8 bytes") }
                silenceLimit = value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard silenceLimit > 0 else { throw SpecError("a silence limit of 0") }
            case .reconnect:
                guard value.count == 24 else { throw SpecError("the reconnects' backoff is not 24 bytes") }
                let words = stride(from: value.startIndex, to: value.endIndex, by: 8).map { start in
                    value[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                }
                guard words[0] > 0, words[1] >= words[0], (1...1_000_000).contains(words[2]) else {
                    throw SpecError("the reconnects' backoff is out of range")
                }
                reconnect = ReconnectBackoff(base: words[0], maximum: words[1], tries: Int(words[2]))
            case .link:
                let bytes = Array(value)
                guard bytes.count > 12, let text = String(validating: bytes[12...], as: UTF8.self) else {
                    throw SpecError("the link is not a seed, a count of clients and text")
                }
                let seed = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let clients = bytes[8..<12].reduce(0) { $0 << 8 | Int($1) }
                do {
                    link = LinkDeal(mix: try LinkMix(parsing: text), seed: seed, clients: clients)
                } catch {
                    throw SpecError("the link does not read: \(error.reason)")
                }
            case .relayPorts:
                guard value.count % 2 == 0, (1...ServerShards.most).contains(value.count / 2) else {
                    throw SpecError("the relays' ports are not 1 to \(ServerShards.most) ports")
                }
                let field = Array(value)
                relayPorts = stride(from: 0, to: field.count, by: 2).map { UInt16(field[$0]) << 8 | UInt16(field[$0 + 1]) }
                guard !relayPorts.contains(0) else { throw SpecError("a relay at port 0") }
            case .headers:
                // Cut as bytes at each CR LF (one Character to String); a lone CR or LF stays in its line, refused.
                let bytes = Array(value)
                guard String(validating: bytes, as: UTF8.self) != nil, bytes.suffix(2).elementsEqual([13, 10]) else {
                    throw SpecError("the header fields are not lines of text")
                }
                var lines: [ArraySlice<UInt8>] = []
                var start = 0
                for index in 0..<bytes.count - 1 where bytes[index] == 13 && bytes[index + 1] == 10 {
                    lines.append(bytes[start..<index])
                    start = index + 2
                }
                for line in lines {
                    do {
                        headers.append(try HeaderField(parsing: String(decoding: line, as: UTF8.self)))
                    } catch {
                        throw SpecError("a header field does not fit: \(error.reason)")
                    }
                }
            }
        }
        guard let transport else { throw SpecError("no transport") }
        var trust: TLSTrust?
        switch (trustKind, pem) {
        case (1, let pem?): trust = .pinned(pem: pem, source: "the run's certificate")
        case (2, let pem?): trust = .authorities(pem: pem, source: "the run's --tls-ca")
        case (3, nil): trust = .systemStore
        case (4, nil): trust = .insecure
        case (1, nil): trust = nil
        default: throw SpecError("a certificate where none belongs, or none where one does")
        }
        let secure = transport.usesTLS || target?.scheme.usesTLS == true
        guard secure == (trust != nil) else {
            throw SpecError(secure ? "a TLS run without its certificate" : "a certificate for a run without TLS")
        }
        var settings = target.map(TargetSettings.init)
        if target == nil, subscribe != nil || publish != nil || !headers.isEmpty || description != nil
            || seen.contains(Tag.framing.rawValue)
            || seen.contains(Tag.qos.rawValue) || seen.contains(Tag.streamsPerConnection.rawValue)
            || seen.contains(Tag.overHTTP2.rawValue)
        {
            throw SpecError("a target's settings without a target")
        }
        settings?.framing = framing
        settings?.qos = qos
        if streamsPerConnection > 1 {
            guard settings?.url.scheme.record.carriesStreams == true, identityChunks.isEmpty, link == nil, chat == nil else {
                throw SpecError("streams per connection where a connection carries one client")
            }
        }
        settings?.streamsPerConnection = streamsPerConnection
        if seen.contains(Tag.overHTTP2.rawValue) {
            guard settings?.url.scheme.reachesOverHTTP2 == true else { throw SpecError("HTTP/2 for a target that has no use for it") }
            settings?.overHTTP2 = true
        }
        settings?.subscribeText = subscribe
        settings?.publishTemplate = publish ?? .bare
        settings?.headers = headers
        settings?.protocolDescription = description
        if !identityChunks.isEmpty {
            guard settings != nil else { throw SpecError("identities without a target") }
            do {
                settings?.identities = try ClientIdentities(
                    chunks: identityChunks, cycle: seen.contains(Tag.identitiesCycle.rawValue))
            } catch {
                throw SpecError("the identities do not fit: \(error.reason)")
            }
        } else if seen.contains(Tag.identitiesCycle.rawValue) {
            throw SpecError("a cycle flag without identities")
        }
        if target?.scheme.defaultWebSocketPath != nil { settings?.webSocketPath = path }  // the path in use, always sent
        guard chat == nil || settings != nil else { throw SpecError("chat rooms without a target") }
        guard relayPorts.isEmpty || chat != nil && link == nil else {
            throw SpecError("relays' ports without chat rooms, or with a link")
        }
        self.init(
            transport: transport, webSocketPath: path, tlsTrust: trust, target: settings, chat: chat,
            connectInterval: connectInterval)
        guard reconnect == nil || settings != nil else { throw SpecError("a reconnects' backoff without a target") }
        guard silenceLimit == 0 || settings != nil else { throw SpecError("a silence limit without a target") }
        guard sources.isEmpty || settings != nil else { throw SpecError("source addresses without a target") }
        self.link = link
        self.relayPorts = relayPorts
        self.reconnect = reconnect
        self.silenceLimit = silenceLimit
        self.sourceAddresses = sources
    }
}
