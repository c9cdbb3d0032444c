import BenchCore

/// What a protocol is to the rest of bench, in one record: the options that apply to its targets, what its HTTP
/// handshake and its topics allow, and how its chat members publish. The command line, the engine and the reports ask
/// the record of a target's scheme (``TargetURL/Scheme/record``); none of them names a protocol. A new protocol is a
/// session of its own (``ProtocolSession``), its ``ServerProtocol`` case, and a record here.
public struct ProtocolRecord: Sendable, Equatable {
    /// Its schemes, for messages: `mqtt, mqtts, mqtt+ws, mqtt+wss`.
    public let schemes: String
    /// The user's own protocol (tcp, ws): `--subscribe` and `--publish` are the messages themselves; every other
    /// protocol has messages of its own, and refuses `--framing` (and `--subscribe`, unless it takes its text).
    public let speaksUserText: Bool
    /// `--subscribe`: what a subscriber sends once connected is the user's text (tcp, ws, socketio); elsewhere the
    /// protocol says it (a SUBSCRIBE, a `sub`).
    public let takesSubscribeText: Bool
    /// `--framing`: how the user's messages are cut out of a byte stream (tcp; ws's messages are the WebSocket's).
    public let takesFraming: Bool
    /// `--qos`: a quality of service both ways (MQTT).
    public let takesQoS: Bool
    /// `--publish` is needed, as this example shows it: the protocol has no message of its own to carry a broadcast
    /// (Socket.IO's event, gRPC's request); nil: it is not.
    public let publishExample: String?
    public var needsPublishText: Bool { publishExample != nil }
    /// The publisher POSTs each broadcast to `--publish-url` (Server-Sent Events), which it then needs.
    public let publishesByPost: Bool
    /// Its connections make an HTTP handshake of their own, which carries `--header` (a WebSocket's or an event
    /// stream's GET, a gRPC call's HEADERS as its metadata); a protocol over WebSocket makes one too
    /// (``TargetURL/Scheme/overWebSocket``).
    public let hasHTTPHandshake: Bool
    /// The characters a topic or subject must not hold from `--clients-file`: its wildcards (`+ #`, `* >`).
    public let topicWildcards: Set<Character>
    /// A subscribed connection cannot publish (Redis): a chat's members publish over one connection a client thread.
    public let subscribersCannotPublish: Bool
    /// Its messages travel in WebSocket messages without a `+ws` scheme of their own (ws, Socket.IO).
    public let travelsInWebSocket: Bool
    /// `--protocol`: what a subscriber and the publisher say may be described in lines (ws's text messages).
    public let takesDescription: Bool
    /// The query its WebSocket's request target needs unless `--ws-path` gives one (Engine.IO's version and
    /// transport); nil for none.
    public let webSocketQuery: String?
    /// Its server answers a ping: its own (NATS and Redis `PING`, MQTT `PINGREQ`, STOMP heart-beats) or a WebSocket
    /// ping frame, where it travels in WebSocket. `--dead-after` then pings each `--heartbeat`, so that a quiet server
    /// sounds alive. Without one (a tcp:// server's lines or frames, an event stream), a connection is heard by the
    /// run's messages alone.
    public let hasPing: Bool
    /// Its keepalive's interval is `--heartbeat` (MQTT's keepalive, STOMP's heart-beats): the option applies to every
    /// run of it. Elsewhere `--heartbeat` is how often `--dead-after` pings.
    public let keepaliveIsHeartbeat: Bool
    /// A fan-out's publisher calls a method of its own (`--publish-method`): gRPC.
    public let takesPublishMethod: Bool
    /// Over TLS, the protocol its connections offer by ALPN and the server must choose: `h2` for HTTP/2 (gRPC).
    public let alpn: String?
    /// One connection may carry several fan-out subscribers, each a stream of its own (`--streams-per-connection`):
    /// HTTP/2's gRPC.
    public var carriesStreams: Bool { alpn == "h2" }
    /// A subscriber's stream is the body of one HTTP response (Server-Sent Events), which HTTP/2 carries as a stream.
    public let streamIsAResponse: Bool
    /// `--subscribe` and `--publish` are protocol buffers written as `protoc --decode_raw` prints them
    /// (``ProtobufText``), `{marker}` inside a string: gRPC.
    public let messagesAreProtobufText: Bool

    init(
        schemes: String, speaksUserText: Bool = false, takesSubscribeText: Bool = false, takesFraming: Bool = false, takesQoS: Bool = false,
        publishExample: String? = nil, publishesByPost: Bool = false, hasHTTPHandshake: Bool = false,
        topicWildcards: Set<Character> = [], subscribersCannotPublish: Bool = false, travelsInWebSocket: Bool = false,
        takesDescription: Bool = false, webSocketQuery: String? = nil, hasPing: Bool = true,
        keepaliveIsHeartbeat: Bool = false, takesPublishMethod: Bool = false, messagesAreProtobufText: Bool = false,
        alpn: String? = nil, streamIsAResponse: Bool = false
    ) {
        (self.alpn, self.streamIsAResponse) = (alpn, streamIsAResponse)
        (self.takesPublishMethod, self.messagesAreProtobufText) = (takesPublishMethod, messagesAreProtobufText)
        (self.hasPing, self.keepaliveIsHeartbeat) = (hasPing, keepaliveIsHeartbeat)
        (self.travelsInWebSocket, self.takesDescription) = (travelsInWebSocket, takesDescription)
        (self.schemes, self.speaksUserText, self.takesSubscribeText, self.takesFraming, self.takesQoS) =
            (schemes, speaksUserText, takesSubscribeText, takesFraming, takesQoS)
        (self.publishExample, self.publishesByPost, self.hasHTTPHandshake) =
            (publishExample, publishesByPost, hasHTTPHandshake)
        (self.topicWildcards, self.subscribersCannotPublish, self.webSocketQuery) =
            (topicWildcards, subscribersCannotPublish, webSocketQuery)
    }

    /// Why `text` is no `--subscribe` of this protocol; nil where it is (or any text is).
    public func subscribeRefusal(_ text: String) -> String? {
        guard messagesAreProtobufText else { return nil }
        do {
            _ = try ProtobufText.encode(text)
            return nil
        } catch {
            return "is no protocol buffers message as protoc --decode_raw prints one (1: \"lobby\" 2: 5): \(error)"
        }
    }

    /// Why `template` (with `{marker}`, and `{padding}`, `{room}`, `{client}` where it has them) is no `--publish` of
    /// this protocol; nil where it is (or any text is).
    public func publishRefusal(_ template: String) -> String? {
        guard messagesAreProtobufText else { return nil }
        // Filled as the run fills them: numbers, and `x`s of padding (which must be inside a string too).
        let numbered = template.replacing("{room}", with: "0").replacing("{client}", with: "0").replacing("{padding}", with: "x")
        let marker = numbered.utf8.firstRange(of: "{marker}".utf8).map { numbered.utf8.distance(from: numbered.utf8.startIndex, to: $0.lowerBound) } ?? 0
        let text = numbered.replacing("{marker}", with: String(repeating: "#", count: Marker.size))  // as the run writes it
        let outside = "{marker} must be inside a string field, as 2: \"{marker}{padding}\""
        do {
            return try ProtobufText.encode(text, following: marker).offset == nil ? outside : nil
        } catch where (marker..<marker + Marker.size).contains(error.position) {
            return outside
        } catch {
            return "is no protocol buffers message as protoc --decode_raw prints one (1: \"lobby\" 2: \"{marker}{padding}\"): \(error)"
        }
    }

    /// The request target of a WebSocket at `path`: ``webSocketQuery`` added unless `path` has a query of its own.
    public func webSocketRequestTarget(_ path: String) -> String {
        guard let webSocketQuery, !path.contains("?") else { return path }
        return (path.hasSuffix("/") ? path : path + "/") + "?" + webSocketQuery
    }
}

extension TargetURL.Scheme {
    /// Its connections' HTTP/1.1 handshake may go as a stream of an HTTP/2 connection (`--http2`): a WebSocket's, by
    /// extended CONNECT (RFC 8441), and so every protocol's that travels in WebSocket; an event stream's GET.
    public var reachesOverHTTP2: Bool { record.travelsInWebSocket || overWebSocket || record.streamIsAResponse }

    /// The record of the protocol this scheme speaks, TLS and WebSocket aside.
    public var record: ProtocolRecord {
        switch protocolScheme {
        case .tcp:
            ProtocolRecord(schemes: "tcp", speaksUserText: true, takesSubscribeText: true, takesFraming: true, hasPing: false)
        case .ws:
            ProtocolRecord(
                schemes: "ws, wss", speaksUserText: true, takesSubscribeText: true, hasHTTPHandshake: true,
                travelsInWebSocket: true, takesDescription: true)
        case .redis: ProtocolRecord(schemes: "redis", subscribersCannotPublish: true)
        case .nats: ProtocolRecord(schemes: "nats, nats+ws, nats+wss", topicWildcards: ["*", ">"])
        case .mqtt:
            ProtocolRecord(
                schemes: "mqtt, mqtts, mqtt+ws, mqtt+wss", takesQoS: true, topicWildcards: ["+", "#"], keepaliveIsHeartbeat: true)
        case .stomp: ProtocolRecord(schemes: "stomp, stomps, stomp+ws, stomp+wss", keepaliveIsHeartbeat: true)
        case .sse:
            ProtocolRecord(schemes: "sse, sses", publishesByPost: true, hasHTTPHandshake: true, hasPing: false, streamIsAResponse: true)
        case .socketIO:
            ProtocolRecord(
                schemes: "socketio, socketios", takesSubscribeText: true, publishExample: #"["EVENT","{marker}{padding}"]"#,
                hasHTTPHandshake: true, travelsInWebSocket: true, webSocketQuery: "EIO=4&transport=websocket")
        case .grpc:
            ProtocolRecord(
                schemes: "grpc, grpcs", takesSubscribeText: true, publishExample: #"2: "{marker}{padding}""#, hasHTTPHandshake: true,
                takesPublishMethod: true, messagesAreProtobufText: true, alpn: "h2")
        default: ProtocolRecord(schemes: "http, https")  // no target's: where an sse:// target's publisher POSTs
        }
    }
}
