import BenchCore

/// What a protocol's state machine found in the bytes it was given: what its connection's owner must act on. What the
/// machine owes the server in answer (a pong, an acknowledgement, a subscription) is not an action but goes to its
/// ``SessionOutbox``, which the owner sends after the read: never in the middle of the stream layers' unwrapping of
/// it, and for a byte-stream protocol in one write per read.
public enum SessionAction {
    /// A published message as the server relayed it; its marker says which broadcast. Valid only during the call.
    case delivered(UnsafeRawBufferPointer)
    /// The server confirmed what the connection asked for (a subscription; a publisher's connection): it is ready.
    case ready
    /// The server refused, or reported an error, in its own words.
    case serverError(String)
    /// The server said something worth a person's notice that is no error (a GOAWAY in order): an event, nothing more.
    case note(String)
}

/// Which end of a publish/subscribe conversation a connection is: one that receives what is published, or the one that
/// publishes.
public enum SessionRole: Sendable {
    case subscriber
    case publisher
}

/// One connection's side of a protocol, as a state machine over the bytes the stream layers below it (tcp, tls,
/// WebSocket) unwrapped: events in (``connected(name:)``, ``received(_:endsMessage:_:)``, ``heartbeat()``), actions
/// out (``SessionAction``s, and bytes owed in the ``outbox``). No sockets: each is tested with bytes alone, split at
/// every point. Each protocol is one final class; ``ProtocolSession`` is the one place that names them all.
public protocol SessionStateMachine: AnyObject {
    /// True once the server confirmed what this connection asked for (at once where the protocol has no confirmation).
    var isReady: Bool { get }
    /// How often the protocol's keepalive goes while the connection is open (nanoseconds); nil: it has none.
    var heartbeatInterval: UInt64? { get }
    /// What the protocol owes the server; the owner sends it and empties it.
    var outbox: SessionOutbox { get set }
    /// The connection is open: what it says first goes to the outbox. `name` names the connection where the protocol
    /// wants a name of each (MQTT's client identifier).
    func connected(name: String)
    /// Bytes the stream layers unwrapped (`endsMessage`: a message of a message-oriented layer ended with them).
    func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError)
    /// The keepalive is due: the protocol's ping goes to the outbox.
    func heartbeat()
    /// The bytes a published message with `payload` goes out as, with where to mark each one.
    func publication(of payload: [UInt8]) -> Publication
    /// The same, and where its marker goes in its bytes, the marker being at `markerAt` in `payload`: after the payload's
    /// start, unless the protocol encodes the payload (gRPC's protocol buffers).
    func publication(of payload: [UInt8], markerAt: Int) -> (publication: Publication, markerOffset: Int)
    /// The run ends: what the protocol says before the connection closes goes to the outbox (nothing by default).
    func closing()
    /// Where a connection not ready is in its handshake, for people (`waiting for "phx_reply"; the last message:
    /// …`); nil where the protocol does not say.
    var handshakeState: String? { get }
}

extension SessionStateMachine {
    public var heartbeatInterval: UInt64? { nil }
    public func heartbeat() {}
    public var handshakeState: String? { nil }
    public func closing() {}

    public func publication(of payload: [UInt8], markerAt: Int) -> (publication: Publication, markerOffset: Int) {
        let publication = publication(of: payload)
        return (publication, publication.payloadOffset + markerAt)
    }
}
