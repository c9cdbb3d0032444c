import BenchNet
import Glibc
import Testing

/// Connections that leave from a chosen address, and the rule that picks loopback addresses when the ports run short.
@Suite(.timeLimit(.minutes(10))) struct SourceAddressesTests {
    @Test(arguments: ["127.0.0.2", "127.0.0.3"])
    func aConnectionLeavesFromItsSourceAddress(source: String) throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let client = try TCPSocket.startConnecting(to: address, from: SocketAddress(host: source, port: 0)!)
        defer { _ = client }
        var accepted: Int32?
        for _ in 0..<1_000 where accepted == nil {
            if let socket = try TCPSocket.accept(from: listener) { accepted = socket.relinquish() } else { usleep(1_000) }
        }
        let server = try #require(accepted)
        defer { Posix.close(server) }
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let status = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(server, $0, &length) }
        }
        #expect(status == 0)
        var text = [CChar](repeating: 0, count: 32)
        inet_ntop(AF_INET, &peer.sin_addr, &text, 32)
        #expect(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) == source)
        #expect(UInt16(bigEndian: peer.sin_port) != 0, "the kernel chose its port at connect time")
    }

    @Test func loopbackAddressesAreAddedOnlyWhenTheClientsOutnumberThePorts() {
        let loopback = SocketAddress(host: "127.0.0.1", port: 7000)!
        #expect(SourceAddresses.automatic(clients: 28_232, server: loopback, ports: 28_232).isEmpty)
        #expect(SourceAddresses.automatic(clients: 60_000, server: loopback, ports: 28_232).map(\.host)
            == ["127.0.0.1", "127.0.0.2", "127.0.0.3"])
        #expect(SourceAddresses.automatic(clients: 1_000_000, server: loopback, ports: 100).count == 250)
        #expect(SourceAddresses.automatic(clients: 60_000, server: SocketAddress(host: "10.0.0.1", port: 7000)!, ports: 28_232).isEmpty)
        #expect(SourceAddresses.automatic(clients: 60_000, server: SocketAddress(host: "::1", port: 7000)!, ports: 28_232).isEmpty)
        #expect(SourceAddresses.automatic(clients: 10, server: loopback, ports: 0).isEmpty)
        #expect(SourceAddresses.ephemeralPorts > 0)
    }
}
