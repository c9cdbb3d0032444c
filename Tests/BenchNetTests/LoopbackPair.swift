import BenchNet
import Glibc

/// A connected TCP pair on 127.0.0.1 (port 0), both ends non-blocking with TCP_NODELAY.
struct LoopbackPair {
    let client: Int32
    let server: Int32

    init() throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        client = try TCPSocket.connect(to: address)
        var accepted: Int32?
        for _ in 0..<1000 where accepted == nil {
            if let socket = try TCPSocket.accept(from: listener) { accepted = socket.relinquish() } else { usleep(1000) }
        }
        server = accepted!
    }

    func close() {
        Posix.close(client)
        Posix.close(server)
    }
}
