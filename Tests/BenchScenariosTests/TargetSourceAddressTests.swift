import BenchClients
import Foundation
import Testing

@testable import BenchScenarios

/// `--source-addresses` against a user's server, as against the built-in one: each subscriber's connection leaves from
/// the addresses given, in turn, as the server itself logs its peers (nats-server's debug log), and is measured like
/// any. The children's placement is `TargetSourceAddressCLITests`.
@Suite(.timeLimit(.minutes(10))) struct TargetSourceAddressTests {
    @Test(.enabled(if: TargetServerTests.hasNATS, "nats-server is not installed: apt-get install -y nats-server"))
    func aTargetsSubscribersLeaveFromTheSourceAddressesGiven() throws {
        let server = try ExternalServer.start(name: "nats") { port in
            (TargetServerTests.natsServer!, ["-a", "127.0.0.1", "-p", "\(port)", "-D"])
        }
        defer { server.stop() }
        let target = "nats://127.0.0.1:\(server.port)/news"
        var configuration = try TargetServerTests.fanout(target, subscribers: 4, broadcasts: 5)
        configuration.sourceAddresses = ["127.0.0.2", "127.0.0.3"]
        configuration.clientThreads = 2
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let peers = try Self.peers(inLogOf: server.logPath)
        #expect(peers["127.0.0.2"] == 2 && peers["127.0.0.3"] == 2, "\(peers)")
        #expect(Set(peers.keys).isSubset(of: ["127.0.0.1", "127.0.0.2", "127.0.0.3"]), "\(peers)")
    }

    /// Sources of the other address family than the server's are refused before anything starts (the run cannot run),
    /// saying which: each client's connect failed with EAFNOSUPPORT, read as the server refusing it.
    @Test(arguments: [("127.0.0.1", nil as String?, ["127.0.0.2", "::1"], "::1"), ("127.0.0.1", "nats://[::1]:1/x", ["127.0.0.2"], "127.0.0.2")])
    func sourcesOfAnotherFamilyThanTheServersAreRefusedBeforeTheRun(
        host: String, target: String?, sources: [String], refused: String
    ) throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 1)
        configuration.clients = 2
        configuration.host = host
        if let target { configuration = try TargetServerTests.fanout(target, subscribers: 2, broadcasts: 1) }
        configuration.sourceAddresses = sources
        #expect {
            try ScenarioRunner.run(configuration, control: RunControl())
        } throws: { error in
            guard case .setupFailed(let reason) = error as? RunError else { return false }
            return reason.contains("--source-addresses \(refused) cannot reach") && reason.contains("another address family")
        }
    }

    /// The addresses nats-server's debug log says its clients connected from, with how many (the publisher's, and the
    /// test's own look at whether the port accepts, are the kernel's choice: 127.0.0.1).
    static func peers(inLogOf path: String) throws -> [String: Int] {
        let log = try String(contentsOfFile: path, encoding: .utf8)
        var peers: [String: Int] = [:]
        for line in log.split(separator: "\n") where line.contains("Client connection created") {
            guard let field = line.split(separator: " ").first(where: { $0.hasPrefix("127.") }),
                let host = field.split(separator: ":").first
            else { continue }
            peers[String(host), default: 0] += 1
        }
        return peers
    }
}
