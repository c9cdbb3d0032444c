@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// `bench fanout|roundtrip --target grpc://…` against a real gRPC server (Tests/Fixtures/grpc_relay_server.py:
/// Debian's python3-grpcio, generic handlers on raw bytes, no generated code) over cleartext HTTP/2: every message
/// measured, with the clients on two threads of this process and in two agents; a method the server refuses stops the
/// setup in the server's words. (Its restart and SIGSTOP are `TargetRestartTests`'.)
/// Serialized, as the other real servers' tests: two runs at once would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct GRPCInteropTests {
    static let hasGRPC: Bool = {
        guard let check = try? Process.run(URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", "import grpc"]) else {
            return false
        }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    static let installed = ConditionTrait.enabled(if: hasGRPC, "python3-grpcio is not installed: apt-get install -y python3-grpcio")

    /// A fan-out configuration made the relay's: each subscriber calls Subscribe with a room, the publisher calls
    /// Publish with the room and the marker in field 2.
    static func relay(_ configuration: inout RunConfiguration) throws {
        try configuration.changeTarget {
            $0.subscribeText = #"1: "deploy""#
            $0.publishMethod = "/bench.Relay/Publish"
            $0.publishTemplate = try PublishTemplate(#"1: "deploy" 2: "{marker}{padding}" 3 { 1: 7 }"#)
        }
    }

    @Test(installed, arguments: TargetPlacementMatrixTests.Placement.allCases)
    func fanoutThroughAGRPCServerStreamDeliversEveryBroadcast(_ placement: TargetPlacementMatrixTests.Placement) throws {
        let server = try ExternalServer.python("grpc_relay_server.py")
        defer { server.stop() }
        let target = "grpc://127.0.0.1:\(server.port)/bench.Relay/Subscribe"
        var configuration = try TargetServerTests.fanout(target, subscribers: 6, broadcasts: 20)
        try Self.relay(&configuration)
        let recording = try Self.run(configuration, placement)
        let files = try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        let phases = try files.table("connections.csv")
        #expect(phases.count == 6 && phases.allSatisfy { ($0.int("subscribe_ns") ?? 0) > 0 },
            "the call's response headers are its subscribe phase: \(phases)")
    }

    @Test(installed, arguments: TargetPlacementMatrixTests.Placement.allCases)
    func roundtripThroughABidirectionalStreamEchoesEveryMessage(_ placement: TargetPlacementMatrixTests.Placement) throws {
        let server = try ExternalServer.python("grpc_relay_server.py")
        defer { server.stop() }
        let target = "grpc://127.0.0.1:\(server.port)/bench.Relay/Echo"
        var configuration = try TargetServerTests.roundtrip(target, clients: 6, messages: 20)
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"2: "{marker}{padding}""#) }
        _ = try TargetServerTests.expectEveryMessageEchoed(try Self.run(configuration, placement), target: target)
    }

    /// A method the server does not have, and one that refuses: the run fails with the server's status and words. A
    /// server that answers the call's PING before its refusal has the subscribers ready (a server that holds its headers
    /// back until its first message is read so): the refusal then ends every call and the run, in the same words.
    @Test(installed, arguments: [
        ("Nope", "grpc-status 12 UNIMPLEMENTED: Method not found!"),
        ("Refuse", "grpc-status 7 PERMISSION_DENIED: no entry for bench"),
    ])
    func aCallTheServerRefusesFailsTheRunInItsWords(method: String, words: String) throws {
        let server = try ExternalServer.python("grpc_relay_server.py")
        defer { server.stop() }
        var configuration = try TargetServerTests.fanout("grpc://127.0.0.1:\(server.port)/bench.Relay/\(method)", subscribers: 2, broadcasts: 5)
        try Self.relay(&configuration)
        do {
            let recording = try ScenarioRunner.run(configuration, control: RunControl())
            #expect(recording.status == .failed)
            #expect(recording.statusReason?.contains("/bench.Relay/\(method): \(words)") == true, "\(recording.statusReason ?? "")")
        } catch {
            #expect("\(error)".contains("/bench.Relay/\(method): \(words)"), "\(error)")
        }
    }

    static func run(_ configuration: RunConfiguration, _ placement: TargetPlacementMatrixTests.Placement) throws -> RunRecording {
        var configuration = configuration
        switch placement {
        case .twoThreads:
            configuration.clientThreads = 2
            return try ScenarioRunner.run(configuration, control: RunControl())
        case .twoAgents:
            let (run, agents) = try BackgroundRun.withAgents(configuration, agents: 2, clientsEach: 3, token: "grpc")
            let recording = try run.finish()
            for agent in agents { #expect(throws: Never.self) { _ = try agent.join().get() } }
            #expect(recording.agents.map(\.clients) == [3, 3])
            return recording
        }
    }
}

extension GRPCInteropTests {
    /// Chat through gRPC: each member subscribes to its room (`{room}` in the server-streaming call's request) and sends
    /// each of its messages by a unary call of its own on the same connection; every message reaches every other
    /// member of its room and nobody else (the relay sends the sender its copy too: left alone, as the scheme does not
    /// promise one).
    @Test(installed)
    func chatThroughGRPCReachesEveryOtherMemberOfEachRoom() throws {
        let server = try ExternalServer.python("grpc_relay_server.py")
        defer { server.stop() }
        var configuration = try ChatTargetTests.chat("grpc://127.0.0.1:\(server.port)/bench.Relay/Subscribe")
        try configuration.changeTarget {
            $0.subscribeText = #"1: "room-{room}""#
            $0.publishMethod = "/bench.Relay/Publish"
            $0.publishTemplate = try PublishTemplate(#"1: "room-{room}" 2: "{marker}{padding}""#)
        }
        try ChatTargetTests.expectEveryMessageReachedItsRoom(try ScenarioRunner.run(configuration, control: RunControl()))
    }
}

extension GRPCInteropTests {
    /// `--streams-per-connection 3`: seven subscribers on two threads, their shares cut between connections (three,
    /// and four: connections of three, three and one); and in
    /// two agents, which learn it from their client spec. Every broadcast reaches every subscriber, and the subscribers
    /// a connection carries share its connect time (one connect, one TLS-less handshake: the same number).
    @Test(installed, arguments: TargetPlacementMatrixTests.Placement.allCases)
    func subscribersThatShareAConnectionEachGetEveryBroadcast(_ placement: TargetPlacementMatrixTests.Placement) throws {
        let server = try ExternalServer.python("grpc_relay_server.py")
        defer { server.stop() }
        let target = "grpc://127.0.0.1:\(server.port)/bench.Relay/Subscribe"
        var configuration = try TargetServerTests.fanout(target, subscribers: placement == .twoThreads ? 7 : 6, broadcasts: 20)
        try Self.relay(&configuration)
        configuration.changeTarget { $0.streamsPerConnection = 3 }
        let recording = try Self.run(configuration, placement)
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        // Each thread's or agent's share of the ids, cut into connections of three (the last of a share what is left).
        let shares = placement == .twoThreads ? ClientThreadSet<Void>.shares(of: 0..<7, threads: 2, perConnection: 3) : [0..<3, 3..<6]
        #expect(placement == .twoAgents || shares == [0..<3, 3..<7], "cut between connections, not into 4 and 3")
        let connections = shares.flatMap { share in
            stride(from: share.lowerBound, to: share.upperBound, by: 3).map { $0..<min($0 + 3, share.upperBound) }
        }
        #expect(connections.count == (placement == .twoThreads ? 3 : 2))
        for clients in connections {
            let times = Set(clients.map { recording.connectTimes[$0] })
            #expect(times.count == 1, "subscribers \(clients) share one connect: \(clients.map { recording.connectTimes[$0] })")
        }
        #expect(Set(recording.connectTimes).count == connections.count, "one connect per connection: \(recording.connectTimes)")
    }

    /// The server restarted under subscribers that share connections (three each): every connection's drop is each
    /// of its subscribers' outage, its return each one's return, and the broadcasts after the returns reach everyone.
    @Test(installed)
    func subscribersThatShareAConnectionComeBackTogetherAfterARestart() throws {
        var (external, target) = try TargetRestartTests.start(.grpcRelay)
        defer { external.stop() }
        var configuration = try TargetRestartTests.fanout(.grpcRelay, target, broadcasts: 400)
        configuration.changeTarget { $0.streamsPerConnection = 3 }
        let (run, _) = try TargetRestartTests.begin(configuration, .twoThreads)
        run.waitUntilDispatched(30 * TargetRestartTests.subscribers)
        try TargetRestartTests.restart(&external)
        let recording = try run.finish()
        let events = recording.connectionEvents.map(\.reason)
        #expect(recording.status == .complete, "\(recording.statusReason ?? ""): \(events.prefix(8))")
        #expect(recording.outages.count == TargetRestartTests.subscribers && recording.outagesBack == TargetRestartTests.subscribers,
            "\(events.prefix(8))")
        let files = try RunFiles.write(recording)
        let afterwards = try TargetRestartTests.broadcastsAfterEveryReturn(recording, files)
        #expect(afterwards.count >= 20, "the run went on after the returns")
        #expect(afterwards.allSatisfy { $0.int("delivered") == TargetRestartTests.subscribers }, "\(afterwards.prefix(3))")
    }
}

extension GRPCInteropTests {
    /// Child processes' shares are cut between connections as threads' are: seven subscribers three to a connection
    /// among two children are three and four, never a connection split across two processes.
    @Test func childProcessesSharesAreCutBetweenConnections() {
        #expect(ChildProcesses.shares(of: 7, among: 2, perConnection: 3) == [3, 4])
        #expect(ChildProcesses.shares(of: 7, among: 2) == [3, 4])
        #expect(ChildProcesses.shares(of: 100, among: 3, perConnection: 100) == [0, 0, 100])
        #expect(ChildProcesses.shares(of: 250, among: 2, perConnection: 100) == [100, 150])
        #expect(ChildProcesses.idShares(of: 7, among: 2, perConnection: 3) == [0..<3, 3..<7], "the ids the channels are told")
    }
}
