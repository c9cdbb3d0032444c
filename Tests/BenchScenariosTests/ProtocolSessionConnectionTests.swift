@testable import BenchClients
import BenchCore
import BenchNet
import BenchProtocols
import Glibc
import Testing

/// A protocol's owed bytes on a connection whose queue is full of messages go past the messages' limit; at the queue's
/// hard cap (the server has read nothing for twice `--max-queue`) the connection fails with why, never drops them in
/// silence (a subscription, an acknowledgement, HTTP/2's SETTINGS acknowledgement
/// lost would leave the protocol's state apart from the server's).
@Suite struct ProtocolSessionConnectionTests {
    @Test func whatAProtocolOwesIsNeverDroppedInSilence() throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let client = try TCPSocket.connect(to: address)
        var accepted: Int32?
        for _ in 0..<1000 where accepted == nil {
            if let socket = try TCPSocket.accept(from: listener) { accepted = socket.relinquish() } else { usleep(1000) }
        }
        let peer = try #require(accepted)  // never read: the queue fills
        defer { Posix.close(peer) }
        let epoll = try Epoll()
        let connection = try Connection<TCP>(
            descriptor: Descriptor(owning: client, owner: "a test's socket"), token: 1, epoll: epoll, role: .client,
            settings: TransportSettings(maximumFrameSize: 64 << 10), maximumQueuedBytes: 64 << 10)
        defer { connection.close() }
        // Filled with messages to their limit: what the protocol owes still goes (backpressure on messages is no reason
        // to leave its state apart from the server's).
        var outcome = Connection<TCP>.SendOutcome.written
        var filler = [UInt8](repeating: 0x78, count: 16 << 10)
        for _ in 0..<100_000 where outcome != .dropped {
            outcome = try filler.withUnsafeMutableBytes { try connection.send($0) }
        }
        #expect(outcome == .dropped, "the messages' limit is reached")
        let mqtt = ServerProtocol.MQTTSettings(topic: "full", qos: 0, keepAlive: 0, username: nil, password: nil, clientIDPrefix: "b-")
        try ProtocolSession(.mqtt(mqtt), role: .subscriber, maximumMessageSize: 1 << 10).open(on: connection, name: "0")
        // Filled to the hard cap, to the byte: what the protocol owes then fails the connection with why.
        for size in [16 << 10, 1 << 10, 64, 1] {
            filler = [UInt8](repeating: 0x78, count: size)
            outcome = .written
            for _ in 0..<100_000 where outcome != .dropped {
                outcome = try filler.withUnsafeMutableBytes { try connection.sendOwed($0) }
            }
        }
        #expect(outcome == .dropped, "the queue is full to its hard cap")
        let session = ProtocolSession(.mqtt(mqtt), role: .subscriber, maximumMessageSize: 1 << 10)  // CONNECT and SUBSCRIBE
        #expect {
            try session.open(on: connection, name: "0")
        } throws: { error in
            "\(error)".contains("the server takes no more bytes (twice --max-queue waits): what the protocol owed it could not be sent")
        }
    }
}
