import BenchCore

/// Server-Sent Events as one connection speaks them (``HTTPEventStream`` reads them): a subscriber GETs the stream
/// and is ready when it opens with 200; each event's data is a delivery. The publisher POSTs each message to the
/// publish URL (ready at once: HTTP has no greeting) and reads each response, anything but 2xx the server's error.
public final class EventStreamSession: SessionStateMachine {
    private let settings: ServerProtocol.SSESettings
    private let role: SessionRole
    private let stream: HTTPEventStream
    public private(set) var isReady: Bool
    public var outbox = SessionOutbox()

    init(_ settings: ServerProtocol.SSESettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role) = (settings, role)
        stream = HTTPEventStream(role: role == .subscriber ? .subscriber : .publisher, maximumMessageSize: maximumMessageSize)
        isReady = role == .publisher
    }

    public func connected(name: String) {
        guard role == .subscriber else { return }
        outbox.append(("GET \(settings.streamPath) HTTP/1.1\r\nHost: \(settings.streamHost)\r\n"
            + "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\(userFields)\r\n").utf8)
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        try stream.consume(UnsafeRawBufferPointer(bytes)) { action in
            if case .ready = action { isReady = true }
            act(action)
        }
    }

    public func publication(of payload: [UInt8]) -> Publication {
        let head = Array(("POST \(settings.publishPath) HTTP/1.1\r\nHost: \(settings.publishHost)\r\n"
            + "Content-Type: text/plain\r\nContent-Length: \(payload.count)\r\n\(userFields)\r\n").utf8)
        return Publication(bytes: head + payload, payloadOffset: head.count)
    }

    /// The user's fields (`--header`), each on its line.
    private var userFields: String {
        settings.fields.map { $0.text + "\r\n" }.joined()
    }
}
