import BenchCore

/// Server-Sent Events as one connection speaks them (``HTTPEventStream`` reads them): a subscriber GETs the stream
/// and is ready when it opens with 200; each event's data is a delivery. The publisher POSTs each message to the
/// publish URL (ready at once: HTTP has no greeting) and reads each response, anything but 2xx the server's error.
/// Over HTTP/2 (`--http2`), a subscriber's GET is a stream of an HTTP/2 connection of its own (``HTTP2Tunnel``), ready
/// on a 2xx response, and an HTTP/2 PING its heartbeat; the publisher's POSTs stay HTTP/1.1.
public final class EventStreamSession: SessionStateMachine {
    private let settings: ServerProtocol.SSESettings
    private let role: SessionRole
    private let stream: HTTPEventStream
    private let tunnel: HTTP2Tunnel?
    public private(set) var isReady: Bool
    /// Over HTTP/2: the server's refusal of the GET was said.
    private var refusalReported = false
    public var outbox = SessionOutbox()

    init(_ settings: ServerProtocol.SSESettings, role: SessionRole, maximumMessageSize: Int) {
        (self.settings, self.role) = (settings, role)
        stream = HTTPEventStream(role: role == .subscriber ? .subscriber : .publisher, maximumMessageSize: maximumMessageSize)
        tunnel = settings.overHTTP2 && role == .subscriber
            ? HTTP2Tunnel(
                .eventStream, path: settings.streamPath, authority: settings.streamHost, usesTLS: settings.usesTLS,
                fields: settings.fields, maximumMessageSize: maximumMessageSize)
            : nil
        isReady = role == .publisher
    }

    public func connected(name: String) {
        guard role == .subscriber else { return }
        if let tunnel { return tunnel.start(outbox: &outbox) }
        outbox.append(("GET \(settings.streamPath) HTTP/1.1\r\nHost: \(settings.streamHost)\r\n"
            + "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\(userFields)\r\n").utf8)
    }

    public func received(
        _ bytes: UnsafeMutableRawBufferPointer, endsMessage: Bool, _ act: (SessionAction) -> Void
    ) throws(MessageFramingError) {
        guard let tunnel else { return try events(in: UnsafeRawBufferPointer(bytes), act) }
        var offset = 0
        while let body = try tunnel.next(bytes, offset: &offset, outbox: &outbox) {
            openIfAnswered(tunnel, act)
            try events(in: UnsafeRawBufferPointer(body), act)
        }
        openIfAnswered(tunnel, act)
        if !refusalReported, let refusal = tunnel.pendingRefusal {  // its status is the server's word, as over HTTP/1.1
            refusalReported = true
            act(.serverError("the event stream's GET over HTTP/2: \(refusal)"))
        }
    }

    /// An HTTP/2 PING where the stream is HTTP/2's; an HTTP/1.1 event stream has none.
    public func heartbeat() {
        if tunnel != nil { outbox.append(HTTP2Tunnel.ping()) }
    }

    private func events(in bytes: UnsafeRawBufferPointer, _ act: (SessionAction) -> Void) throws(MessageFramingError) {
        try stream.consume(bytes) { action in
            if case .ready = action { isReady = true }
            act(action)
        }
    }

    /// The HTTP/2 response's headers came with 2xx: the body is the event stream.
    private func openIfAnswered(_ tunnel: HTTP2Tunnel, _ act: (SessionAction) -> Void) {
        guard tunnel.isOpen, !isReady else { return }
        stream.openBody()
        isReady = true
        act(.ready)
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
