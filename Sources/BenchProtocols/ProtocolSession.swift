import BenchCore

/// One connection's protocol state machine, whichever its server speaks: the one place that names every protocol (a
/// new one is a file of its own and a case here). A switch on a case, not an existential: nothing is looked up or
/// allocated per message.
public enum ProtocolSession {
    case redis(RedisSession)
    case nats(NATSSession)
    case mqtt(MQTTSession)
    case eventStream(EventStreamSession)
    case socketIO(SocketIOSession)
    case framed(FramedSession)
    case stomp(STOMPSession)
    case described(DescribedSession)
    case grpc(GRPCSession)

    /// A new connection's state machine for a server that speaks `speech`.
    public init(_ speech: ServerProtocol, role: SessionRole, maximumMessageSize: Int) {
        switch speech {
        case .redis(let channel, let password):
            self = .redis(RedisSession(channel: channel, password: password, role: role, maximumMessageSize: maximumMessageSize))
        case .nats(let subject):
            self = .nats(NATSSession(subject: subject, role: role, maximumMessageSize: maximumMessageSize))
        case .mqtt(let settings):
            self = .mqtt(MQTTSession(settings, role: role, maximumMessageSize: maximumMessageSize))
        case .sse(let settings):
            self = .eventStream(EventStreamSession(settings, role: role, maximumMessageSize: maximumMessageSize))
        case .socketIO(let settings):
            self = .socketIO(SocketIOSession(settings, role: role, maximumMessageSize: maximumMessageSize))
        case .custom(let framing, let subscribe):
            self = .framed(FramedSession(framing: framing, subscribe: subscribe, role: role, maximumMessageSize: maximumMessageSize))
        case .stomp(let settings):
            self = .stomp(STOMPSession(settings, role: role, maximumMessageSize: maximumMessageSize))
        case .described(let description):
            self = .described(DescribedSession(description, role: role, maximumMessageSize: maximumMessageSize))
        case .grpc(let settings):
            self = .grpc(GRPCSession(settings, role: role, maximumMessageSize: maximumMessageSize))
        }
    }

    /// The state machine itself, for what is not per message.
    public var machine: any SessionStateMachine {
        switch self {
        case .redis(let session): session
        case .nats(let session): session
        case .mqtt(let session): session
        case .eventStream(let session): session
        case .socketIO(let session): session
        case .framed(let session): session
        case .stomp(let session): session
        case .described(let session): session
        case .grpc(let session): session
        }
    }

    /// A tcp:// server's framing of what is published (nil for ws and the other protocols).
    public var framing: MessageFraming? {
        guard case .framed(let session) = self else { return nil }
        return session.framing
    }

    /// ``SessionStateMachine/received(_:endsMessage:_:)`` of this connection's protocol: per read, so dispatched by case.
    @inline(__always)
    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        switch self {
        case .redis(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .nats(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .mqtt(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .eventStream(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .socketIO(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .framed(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .stomp(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .described(let session): try session.received(bytes, endsMessage: endsMessage, act)
        case .grpc(let session): try session.received(bytes, endsMessage: endsMessage, act)
        }
    }

    /// True once the server confirmed what this connection asked for.
    @inline(__always)
    public var isReady: Bool {
        switch self {
        case .redis(let session): session.isReady
        case .nats(let session): session.isReady
        case .mqtt(let session): session.isReady
        case .eventStream(let session): session.isReady
        case .socketIO(let session): session.isReady
        case .framed(let session): session.isReady
        case .stomp(let session): session.isReady
        case .described(let session): session.isReady
        case .grpc(let session): session.isReady
        }
    }

    /// Of a connection that carries several subscribers (`--streams-per-connection`), the one (0 for its first) whose
    /// delivery or readiness the session is acting on; 0 elsewhere.
    @inline(__always)
    public var actingCall: Int {
        guard case .grpc(let session) = self else { return 0 }
        return session.actingCall
    }

    /// Before a published message (marked) goes out: false when the protocol cannot take it now (HTTP/2's
    /// flow-control window is closed), and the caller counts it as not taken. Per message, so dispatched by case.
    @inline(__always)
    public func willPublish(_ message: UnsafeMutableRawBufferPointer) -> Bool {
        guard case .grpc(let session) = self else { return true }
        return session.willPublish(message)
    }

    /// A published message ``willPublish(_:)`` let go was not written after all (the connection's queue was full):
    /// what the protocol counted for it is given back.
    @inline(__always)
    public func publicationNotSent(_ message: UnsafeMutableRawBufferPointer) {
        guard case .grpc(let session) = self else { return }
        session.publicationNotSent(message)
    }

    /// Sends what the protocol owes the server through `send`, and empties its outbox.
    @inline(__always)
    public func drainOutbox(_ send: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        switch self {
        case .redis(let session): try session.outbox.drain(send)
        case .nats(let session): try session.outbox.drain(send)
        case .mqtt(let session): try session.outbox.drain(send)
        case .eventStream(let session): try session.outbox.drain(send)
        case .socketIO(let session): try session.outbox.drain(send)
        case .framed(let session): try session.outbox.drain(send)
        case .stomp(let session): try session.outbox.drain(send)
        case .described(let session): try session.outbox.drain(send)
        case .grpc(let session): try session.outbox.drain(send)
        }
    }
}
