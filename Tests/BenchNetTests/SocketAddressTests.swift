import Testing

@testable import BenchNet

@Suite(.timeLimit(.minutes(10))) struct SocketAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1:8080"), ("localhost", "127.0.0.1:8080"), ("::1", "[::1]:8080"),
        ("0.0.0.0", "0.0.0.0:8080"), ("fe80::1", "[fe80::1]:8080"),
    ])
    func numericAddressesParseAndPrint(host: String, expected: String) throws {
        let address = try #require(SocketAddress(host: host, port: 8080))
        #expect(address.description == expected)
        #expect(address.port == 8080)
    }

    @Test(arguments: ["example.com", "1.2.3", "", "127.0.0.1:80", "::g"])
    func namesAndMalformedAddressesAreRefused(host: String) {
        #expect(SocketAddress(host: host, port: 1) == nil)
    }

    @Test func aListenerOnPortZeroReportsThePortItGot() throws {
        let (listener, bound) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        #expect(bound.host == "127.0.0.1")
        #expect(bound.port != 0)
        #expect(try SocketAddress(boundTo: listener) == bound)
    }

    @Test func listeningOnAPortInUseFailsWithTheCallAndErrno() throws {
        let (first, taken) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(first) }
        #expect(throws: SystemError("bind", errno: EADDRINUSE)) {
            _ = try TCPSocket.listen(on: taken)
        }
        #expect(SystemError("bind", errno: EADDRINUSE).description == "bind: Address already in use (errno: 98)")
    }
}

import Glibc
