import BenchCore

extension ServerProtocol {
    /// What a chat member of room `room` speaks: the room's topic (`TOPIC/<room>`, `SUBJECT.<room>`, `CHANNEL:<room>`),
    /// or `{room}` in the `--subscribe` text or the `--protocol` description replaced by its number.
    public func room(_ room: Int) -> ServerProtocol {
        switch self {
        case .custom(let framing, let subscribe):
            return .custom(framing: framing, subscribe: subscribe?.replacing("{room}", with: "\(room)"))
        case .socketIO(var settings):
            settings.subscribe = settings.subscribe?.replacing("{room}", with: "\(room)")
            return .socketIO(settings)
        case .described(let description):
            return .described(description.expanding { $0.replacing("{room}", with: "\(room)") })
        case .grpc(var settings):
            settings.subscribe = settings.subscribe.replacing("{room}", with: "\(room)")
            return .grpc(settings)
        default:
            return below("\(room)")
        }
    }

    /// What a fan-out subscriber speaks: it publishes nothing, so gRPC's `--publish-method` (the publisher's) is not
    /// its; the same elsewhere.
    public var asFanoutSubscriber: ServerProtocol {
        guard case .grpc(var settings) = self else { return self }
        settings.publishMethod = nil
        return .grpc(settings)
    }

    /// What a connection that carries `calls` fan-out subscribers speaks (`--streams-per-connection`): gRPC's
    /// subscription made that many times, each a call of its own; the same elsewhere.
    public func carrying(calls: Int) -> ServerProtocol {
        guard case .grpc(var settings) = self else { return self }
        settings.calls = calls
        return .grpc(settings)
    }

    /// What client `client` speaks where a `--protocol` description says `{client}`: its number (a round-trip client's
    /// own channel, as `room:{client}`).
    public func numbered(_ client: Int) -> ServerProtocol {
        called("\(client)")
    }

    /// What the fan-out publisher speaks where a `--protocol` description says `{client}`: `publisher`, its name (it
    /// is no client; `{client}` went out as written before).
    public var asPublisher: ServerProtocol { called("publisher") }

    private func called(_ name: String) -> ServerProtocol {
        guard case .described(let description) = self else { return self }
        return .described(description.expanding { $0.replacing("{client}", with: name) })
    }

    /// What roundtrip client `client` speaks: where a topic names what a connection receives (MQTT, NATS), its own
    /// (`TOPIC/<client>`, `SUBJECT.<client>`), so that its messages come back to it alone; gRPC's call of its own, a
    /// bidirectional stream its messages come back on; the same otherwise.
    public func ownTopic(of client: Int) -> ServerProtocol {
        guard case .grpc(var settings) = self else { return below("\(client)") }
        settings.bidirectional = true
        return .grpc(settings)
    }

    /// Where a topic names what a connection receives, the one below it called `name` (`TOPIC/name`, `SUBJECT.name`,
    /// `CHANNEL:name`); the same speech otherwise.
    private func below(_ name: String) -> ServerProtocol {
        switch self {
        case .mqtt(var settings):
            settings.topic += "/\(name)"
            return .mqtt(settings)
        case .nats(let subject):
            return .nats(subject: "\(subject).\(name)")
        case .redis(let channel, let password):
            return .redis(channel: "\(channel):\(name)", password: password)
        case .stomp(var settings):
            settings.destination += ".\(name)"
            return .stomp(settings)
        case .custom, .socketIO, .sse, .described, .grpc:
            return self
        }
    }
}
