import Foundation
import Testing

/// Issue 64's "the handshake through the link": a connect behind `--link` takes its round trips, as a phone's does.
/// The kernel completes a TCP handshake on loopback at once; through the link, a client's connect ends once its SYN
/// went up and the SYN-ACK came down, and every handshake after it (TLS, the WebSocket upgrade, a protocol's login)
/// takes its own round trips through the link's bytes. Each bound below is what the link's delays alone make, so a
/// busy machine can only add to it; before the change, the TCP phase read as loopback's (a fraction of a millisecond).
@Suite(.timeLimit(.minutes(10))) struct LinkHandshakeTests {
    private func folder(_ result: BenchProcess) -> String {
        String(result.standardOutput.split(separator: "\n").last { $0.hasPrefix("run folder: ") }?.dropFirst(12) ?? "")
    }

    /// The built-in server's clients over wss behind 50 ms each way: the TCP connect, the TLS handshake and the
    /// WebSocket upgrade each take at least one round trip (100 ms), split as without a link, and the connect metric's
    /// median at least their sum.
    @Test func aConnectOverWSSTakesARoundTripPerHandshake() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "4", "--messages", "3", "--transport", "wss", "--link", "delay=50ms",
            "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let connections = try csvRows(folder(result) + "/connections.csv")
        #expect(connections.count == 4, "\(connections)")
        for row in connections {
            let (tcp, tls, ws) = (Int(row["connect_tcp_ns"] ?? "") ?? 0, Int(row["connect_tls_ns"] ?? "") ?? 0,
                Int(row["connect_ws_ns"] ?? "") ?? 0)
            #expect(tcp >= 100_000_000 && tls >= 100_000_000 && ws >= 100_000_000, "each phase a round trip: \(row)")
            #expect((Int(row["connect_ns"] ?? "") ?? 0) >= tcp + tls + ws - 1, "the phases add up: \(row)")
        }
        let connect = try #require(try csvRows(folder(result) + "/summary.csv").first { $0["metric"] == "connect" })
        #expect((Double(connect["p50_us"] ?? "") ?? 0) >= 300_000, "\(connect)")
    }

    /// A chat through the built-in relay takes a target's path (the clients speak its protocol on the other engine
    /// role): each member's connect through 3G (100 ms each way) takes at least its TCP round trip; and child processes
    /// (`--client-procs`) put their connects behind their own link alike.
    @Test(arguments: ["0", "2"]) func aTargetPathsConnectTakesTheLinksRoundTrip(procs: String) throws {
        let result = try BenchProcess.run([
            "chat", "--link", "3g", "--clients", "4", "--room-size", "2", "--count", "3", "--rate", "10/s",
            "--client-procs", procs, "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let connects = try csvRows(folder(result) + "/connections.csv").compactMap { Int($0["connect_ns"] ?? "") }
        #expect(connects.count == 4 && connects.allSatisfy { $0 >= 200_000_000 }, "\(connects)")
    }

    /// A reconnect redoes the handshake through the link too: with a 1 ms backoff, each return behind 50 ms each way
    /// takes at least its connect's round trip and its hello's way up (150 ms).
    @Test func aReconnectTakesTheLinksRoundTripAgain() throws {
        let result = try BenchProcess.run([
            "fanout", "--clients", "3", "--duration", "2s", "--drop-connections-at", "1s", "--reconnect",
            "--reconnect-base", "1ms", "--link", "delay=50ms", "--out", temporaryFolderPath(),
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let returns = try csvRows(folder(result) + "/reconnects.csv").compactMap { Int($0["reconnect_ns"] ?? "") }
        #expect(returns.count == 3 && returns.allSatisfy { $0 >= 150_000_000 }, "\(returns)")
    }
}
