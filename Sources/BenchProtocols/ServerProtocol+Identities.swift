import BenchCore

/// `--clients-file`: each client speaks as its row says (``ClientIdentities``), a target's publisher as row 0. Done
/// once per connection, when it is made: nothing per message.
extension ServerProtocol {
    /// What client `client` speaks with its row's values in every text it says for itself: `--subscribe`, the topic,
    /// subject, channel, destination or Socket.IO namespace, MQTT's and STOMP's credentials, Redis's password, an SSE
    /// stream's path and fields, a `--protocol` description's texts. As it is without identities.
    public func personalized(by identities: ClientIdentities?, client: Int) -> ServerProtocol {
        guard let identities else { return self }
        func expand(_ text: String) -> String { identities.expand(text, client: client) }
        switch self {
        case .custom(let framing, let subscribe):
            return .custom(framing: framing, subscribe: subscribe.map(expand))
        case .socketIO(var settings):
            (settings.namespace, settings.subscribe) = (expand(settings.namespace), settings.subscribe.map(expand))
            return .socketIO(settings)
        case .mqtt(var settings):
            (settings.topic, settings.username, settings.password) = (expand(settings.topic), settings.username.map(expand), settings.password.map(expand))
            return .mqtt(settings)
        case .stomp(var settings):
            (settings.destination, settings.login, settings.passcode) = (expand(settings.destination), settings.login.map(expand), settings.passcode.map(expand))
            return .stomp(settings)
        case .sse(var settings):
            settings.streamPath = expand(settings.streamPath)
            settings.fields = settings.fields.map { $0.personalized(by: identities, client: client) }
            return .sse(settings)
        case .redis(let channel, let password):
            return .redis(channel: expand(channel), password: password.map(expand))
        case .nats(let subject):
            return .nats(subject: expand(subject))
        case .described(let description):
            return .described(description.expanding(expand))
        case .grpc(var settings):
            settings.subscribe = expand(settings.subscribe)
            settings.metadata = settings.metadata.map { $0.personalized(by: identities, client: client) }
            return .grpc(settings)
        }
    }
}

extension HeaderField {
    /// The field with client `client`'s values in its value (the command line checked that every row's fits).
    public func personalized(by identities: ClientIdentities, client: Int) -> HeaderField {
        (try? HeaderField(name: name, value: identities.expand(value, client: client))) ?? self
    }
}
