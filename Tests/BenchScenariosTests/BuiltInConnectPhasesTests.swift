@testable import BenchClients
import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// The built-in server's clients over tls, ws and wss time their connect in phases, as a target's clients do: the TCP
/// connect, the TLS handshake, the WebSocket upgrade. Each is a metric of its own, a column of connections.csv, and
/// they add up to the client's `connect`; over plain tcp the connect is its TCP connect, with no phases.
@Suite(.timeLimit(.minutes(10))) struct BuiltInConnectPhasesTests {
    static func transports() -> [TransportKind] {
        [.ws, .tcp] + (TLSTools.openSSLLoads ? [.tls, .wss] : [])
    }

    @Test(arguments: transports())
    func aBuiltInClientsConnectIsSplitIntoItsTransportsPhases(_ transport: TransportKind) throws {
        let configuration = TLSTransportTests.configuration(transport, .fanout, clients: 4, messages: 5)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        let files = try RunFiles.write(recording)
        let expected = (transport == .tcp ? [] : ["connect_tcp"]) + (transport.usesTLS ? ["connect_tls"] : [])
            + (transport.isWebSocket ? ["connect_ws"] : [])
        let absent = Set(["connect_tcp", "connect_tls", "connect_ws", "subscribe"]).subtracting(expected)
        for metric in expected { #expect(files.summary[metric]?.int("count") == 4, "\(transport): \(metric)") }
        for metric in absent { #expect(files.summary[metric] == nil, "\(transport): \(metric)") }
        let rows = try files.table("connections.csv")
        #expect(rows.count == 4)
        for row in rows {
            let connect = try #require(row.int("connect_ns"))
            let phases = expected.map { row.int($0 + "_ns") }
            #expect(phases.allSatisfy { $0 != nil }, "\(row)")
            if transport != .tcp {
                #expect(phases.compactMap { $0 }.reduce(0, +) == connect, "the phases add up to the connect: \(row)")
            }
            #expect(row["connect_tls_ns"] == nil || transport.usesTLS, "\(row)")
        }
    }
}
