import BenchCore
import Glibc
import Synchronization

/// A small HTTP/1.1 server on a thread of its own (`bench-http`), for watching a run while it goes: it answers each
/// GET or HEAD with what `handler` makes of it and closes the connection (`Connection: close`). Everything a peer
/// sends is untrusted: a request head that is not HTTP, longer than ``HTTPRequestHead/maximumSize``, or not complete
/// within ``requestTimeout`` of the connect is answered 400/431 or closed; past ``maximumConnections`` at once, a new
/// connection is closed at once. It never touches the run's threads: the handler reads what they published.
public final class HTTPServer: Sendable {
    /// What the handler answers: a status, its content type and body.
    public struct Response: Sendable {
        public var status: Int
        public var contentType: String
        public var body: [UInt8]

        public init(status: Int = 200, contentType: String, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.body = body
        }

        public init(status: Int = 200, contentType: String, text: String) {
            self.init(status: status, contentType: contentType, body: Array(text.utf8))
        }
    }

    public typealias Handler = @Sendable (HTTPRequestHead) -> Response

    /// How long a connection may take from its connect to its whole request.
    public static var requestTimeout: UInt64 { 5_000_000_000 }
    /// Connections at once; more are closed as they come.
    public static var maximumConnections: Int { 64 }

    /// Where it listens (its port chosen by the system when asked for 0).
    public let address: SocketAddress
    private let stopper: EventNotifier
    private let thread: Mutex<NativeThread<Void>?>

    /// Listens on `address` and serves from now on.
    public init(listeningOn address: SocketAddress, handler: @escaping Handler) throws(SystemError) {
        let (number, bound) = try TCPSocket.listen(on: address, backlog: 128)
        let listener = Descriptor(owning: number, owner: "the HTTP server's listener")  // a throw below closes it
        self.address = bound
        let stopper = try EventNotifier()
        self.stopper = stopper
        let loop = HTTPServerLoop(listener: listener, stopper: stopper, handler: handler)
        thread = Mutex(try NativeThread.spawn(name: "bench-http") { loop.run() })
    }

    /// Stops serving: no connection is taken any more, those taken get their answers (for at most a second), then
    /// every one is closed, the listener too.
    public func stop() {
        stopper.notify()
        thread.withLock { thread in
            thread?.join()
            thread = nil
        }
    }
}

/// The server's loop: one epoll for the listener, the stop signal and each connection.
private final class HTTPServerLoop: @unchecked Sendable {
    /// A connection being served; its socket closes when it leaves ``peers``.
    private final class Peer {
        let socket: Descriptor
        let deadline: UInt64
        var received: [UInt8] = []
        var response: [UInt8] = []
        var written = 0

        init(socket: consuming Descriptor, deadline: UInt64) {
            self.socket = socket
            self.deadline = deadline
        }
    }

    private let listener: Int32
    /// The listener's socket, closed when the loop ends.
    private var listening: Descriptor?
    private let stopper: EventNotifier
    private let handler: HTTPServer.Handler
    private var peers: [Int32: Peer] = [:]

    init(listener: consuming Descriptor, stopper: EventNotifier, handler: @escaping HTTPServer.Handler) {
        self.listener = listener.rawValue
        self.listening = consume listener
        self.stopper = stopper
        self.handler = handler
    }

    func run() {
        defer {
            peers.removeAll()
            listening.take()?.close()
        }
        guard let epoll = try? Epoll(), (try? epoll.add(listener, interest: .readable, token: 0)) != nil,
            (try? epoll.add(stopper.descriptor, interest: .readable, token: 1)) != nil
        else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 8)
        defer { buffer.deallocate() }
        var stopsAt: UInt64?
        while stopsAt.map({ !peers.isEmpty && MonotonicClock.now() < $0 }) ?? true {
            guard let count = try? epoll.wait(timeoutMilliseconds: 50) else { return }
            for index in 0..<count {
                let (token, events) = epoll.event(at: index)
                switch token {
                case 0: accept(into: epoll)
                case 1:
                    // Those that asked already still get their answer (a scrape at the very end must not be cut off).
                    stopsAt = MonotonicClock.now() + 1_000_000_000
                    try? epoll.remove(listener)
                    try? epoll.remove(stopper.descriptor)
                default: serve(Int32(token - 2), events, buffer: buffer, epoll: epoll)
                }
            }
            let now = MonotonicClock.now()
            for (descriptor, peer) in peers where now >= peer.deadline { close(descriptor, epoll) }
        }
    }

    private func accept(into epoll: Epoll) {
        while let socket = try? TCPSocket.accept(from: listener) {
            let descriptor = socket.rawValue
            guard peers.count < HTTPServer.maximumConnections,
                (try? epoll.add(descriptor, interest: .readable, token: UInt64(descriptor) + 2)) != nil
            else { continue }  // the socket closes as it goes
            peers[descriptor] = Peer(socket: socket, deadline: MonotonicClock.now() + HTTPServer.requestTimeout)
        }
    }

    private func serve(_ descriptor: Int32, _ events: EpollEvents, buffer: UnsafeMutableRawBufferPointer, epoll: Epoll) {
        guard let peer = peers[descriptor] else { return }
        if peer.response.isEmpty {
            let result: IOResult<Int>
            do {
                result = try Posix.read(descriptor, into: buffer)
            } catch {
                return close(descriptor, epoll)
            }
            guard case .processed(let count) = result else { return }  // nothing yet
            guard count > 0 else { return close(descriptor, epoll) }
            peer.received += UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            let parsed = peer.received.withUnsafeBytes { bytes in
                Result { () throws(HTTPRequestHead.Invalid) in try HTTPRequestHead.parse(bytes) }
            }
            switch parsed {
            case .success(nil):
                return
            case .success(let (head, _)?):
                peer.response = Self.bytes(of: head.method == "GET" || head.method == "HEAD"
                    ? handler(head) : .init(status: 405, contentType: "text/plain", text: "only GET and HEAD\n"),
                    withBody: head.method != "HEAD")
            case .failure(let invalid):
                peer.response = Self.bytes(
                    of: .init(status: invalid.status, contentType: "text/plain", text: invalid.description + "\n"), withBody: true)
            }
        }
        while peer.written < peer.response.count {
            let result = peer.response.withUnsafeBytes { bytes in
                try? Posix.sendSome(descriptor, UnsafeRawBufferPointer(rebasing: bytes[peer.written...]))
            }
            guard let result else { return close(descriptor, epoll) }
            guard case .processed(let count) = result else {
                try? epoll.modify(descriptor, interest: .writable, token: UInt64(descriptor) + 2)
                return
            }
            peer.written += count
        }
        close(descriptor, epoll)
    }

    private func close(_ descriptor: Int32, _ epoll: Epoll) {
        try? epoll.remove(descriptor)
        peers[descriptor] = nil  // closes its socket
    }

    private static let reasons = [
        200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 431: "Request Header Fields Too Large",
    ]

    private static func bytes(of response: HTTPServer.Response, withBody: Bool) -> [UInt8] {
        let head = "HTTP/1.1 \(response.status) \(reasons[response.status] ?? "Error")\r\n"
            + "Content-Type: \(response.contentType)\r\nContent-Length: \(response.body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (withBody ? response.body : [])
    }
}
