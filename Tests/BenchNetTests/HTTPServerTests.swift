import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

/// The live view's HTTP server against peers that do what they like: each answered or closed with a reason, none able
/// to hold it up. Serialized: the slow peer's test waits out the server's request timeout.
@Suite(.serialized, .timeLimit(.minutes(10))) struct HTTPServerTests {
    /// A server that answers every GET with the path it was asked for.
    static func server() throws -> HTTPServer {
        try HTTPServer(listeningOn: SocketAddress(host: "127.0.0.1", port: 0)!) { request in
            request.path == "/missing"
                ? .init(status: 404, contentType: "text/plain", text: "no\n")
                : .init(contentType: "text/plain", text: "path \(request.path)\n")
        }
    }

    /// Connects, sends `bytes` (in pieces of `piece` bytes), and reads until the server closes (at most 20 s): what came.
    static func exchange(_ server: HTTPServer, _ bytes: [UInt8], piece: Int = .max) throws -> String {
        let socket = try TCPSocket.connect(to: server.address)
        defer { Posix.close(socket) }
        try Posix.setNonBlocking(socket, false)
        try Posix.setReceiveTimeout(socket, nanoseconds: 20_000_000_000)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + piece)
            try Posix.sendAll(socket, Array(bytes[offset..<end]))
            offset = end
        }
        return try readToEnd(socket)
    }

    /// Reads until the server closes (or, with `resetCloses`, resets). A blocking `recv` with a receive timeout is
    /// never restarted after a signal handler ran, whatever `SA_RESTART` says (signal(7)), so `EINTR` is read past;
    /// any other failure throws with its errno and what had come, rather than passing for an empty answer.
    static func readToEnd(_ socket: Int32, resetCloses: Bool = false) throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == ECONNRESET && resetCloses { break }
            if count < 0 {
                throw SystemError("recv after \(received.count) bytes (\(String(decoding: received, as: UTF8.self)))",
                    errno: errno)
            }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func aRequestCutIntoSingleBytesIsAnswered() throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try Self.exchange(server, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8), piece: 1)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("\r\n\r\npath /metrics\n"), "\(answer)")
        #expect(answer.contains("Content-Length: 14\r\n") && answer.contains("Connection: close\r\n"))
    }

    @Test(arguments: [
        ("HEAD / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK", false),
        ("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed", true),
        ("GET /missing HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found", true),
        ("BREW /pot HTCPCP/1.0\r\n\r\n", "HTTP/1.1 400 Bad Request", true),
        ("\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\n\n", "HTTP/1.1 400 Bad Request", true),
    ])
    func eachRequestIsAnsweredOnceAndClosed(request: String, status: String, hasBody: Bool) throws {
        let server = try Self.server()
        defer { server.stop() }
        let answer = try Self.exchange(server, Array(request.utf8))
        #expect(answer.hasPrefix(status + "\r\n"), "\(answer)")
        #expect(answer.hasSuffix("\r\n\r\n") != hasBody, "a HEAD has no body, the rest have one: \(answer)")
    }

    @Test func anEndlessHeadIsAnswered431AndClosed() throws {
        let server = try Self.server()
        defer { server.stop() }
        // Past the limit, yet all read at once: the server closes with nothing unread, so its answer is not reset.
        let endless = Array("GET / HTTP/1.1\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 9_000)
        let answer = try Self.exchange(server, endless)
        #expect(answer.hasPrefix("HTTP/1.1 431 "), "\(answer.prefix(200))")
    }

    /// A peer that sends half a request and waits is closed at the request timeout, not before; meanwhile others are
    /// served.
    @Test func aSlowPeerIsClosedAtTheTimeoutAndHoldsNobodyUp() throws {
        let server = try Self.server()
        defer { server.stop() }
        let slow = try TCPSocket.connect(to: server.address)
        defer { Posix.close(slow) }
        try Posix.setNonBlocking(slow, false)
        try Posix.sendAll(slow, Array("GET /metr".utf8))
        let start = Date()
        #expect(try Self.exchange(server, Array("GET /fast HTTP/1.1\r\n\r\n".utf8)).hasSuffix("path /fast\n"))
        var byte: UInt8 = 0
        #expect(recv(slow, &byte, 1, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN, "the slow one is still open")
        try Posix.setReceiveTimeout(slow, nanoseconds: 20_000_000_000)
        #expect(try Self.readToEnd(slow, resetCloses: true).isEmpty, "closed without an answer")
        #expect(Date().timeIntervalSince(start) >= 4, "closed at the timeout (\(HTTPServer.requestTimeout / 1_000_000_000) s), not before")
    }

    /// Past the limit of connections at once, a new one is closed at once; the server still serves afterwards.
    @Test func connectionsPastTheLimitAreClosedAndTheServerGoesOn() throws {
        let server = try Self.server()
        defer { server.stop() }
        let held = try (0..<HTTPServer.maximumConnections).map { _ in try TCPSocket.connect(to: server.address) }
        usleep(200_000)  // the server accepts them (a bound for its loop, not an assertion on timing)
        let extra = try TCPSocket.connect(to: server.address)
        try Posix.setNonBlocking(extra, false)
        try Posix.setReceiveTimeout(extra, nanoseconds: 10_000_000_000)
        #expect(try Self.readToEnd(extra, resetCloses: true).isEmpty, "closed at once")
        Posix.close(extra)
        for socket in held { Posix.close(socket) }
        var answer = ""
        for _ in 0..<100 where !answer.hasPrefix("HTTP/1.1 200") {  // once the server has seen the held ones close
            // Closed at once while the server is still full: reset, the request unread.
            answer = (try? Self.exchange(server, Array("GET /again HTTP/1.1\r\n\r\n".utf8))) ?? ""
            if !answer.hasPrefix("HTTP/1.1 200") { usleep(20_000) }
        }
        #expect(answer.hasSuffix("path /again\n"), "\(answer)")
    }
}
