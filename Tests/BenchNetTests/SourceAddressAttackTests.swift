import Glibc
import Testing

@testable import BenchNet

/// `--source-addresses` that cannot work must say which address is at fault (the run's setup failure shows it).
@Suite(.timeLimit(.minutes(10))) struct SourceAddressAttackTests {
    @Test(arguments: [("127.0.0.1", "10.99.99.99"), ("::1", "127.0.0.2")])
    func aSourceThatCannotBeBoundIsNamed(server: String, source: String) throws {
        let to = try #require(SocketAddress(host: server, port: 9))
        let from = try #require(SocketAddress(host: source, port: 0))
        do {
            try TCPSocket.startConnecting(to: to, from: from).close()
            Issue.record("connecting from \(source) to \(server) should fail")
        } catch {
            #expect("\(error)".contains(source), "\(error)")
        }
    }
}
