@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing

@testable import BenchScenarios

/// `bench fanout --target socketio://…` against a real Socket.IO server (Tests/Fixtures/socketio_server.py, Debian's
/// python3-socketio and python3-aiohttp) that pings every second and drops a client silent for as long again: a run
/// across several pings, on one subscriber thread and on two.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SocketIOInteropTests {
    static let hasSocketIO: Bool = {
        guard let check = try? Process.run(
            URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", "import socketio, aiohttp"])
        else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    @Test(
        .enabled(if: hasSocketIO, "python3-socketio or python3-aiohttp is not installed: apt-get install -y python3-socketio python3-aiohttp"),
        arguments: [1, 2])
    func fanoutThroughASocketIOServerAcrossSeveralPingsDeliversEveryBroadcast(threads: Int) throws {
        let (server, port) = try Self.start()
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let target = "socketio://127.0.0.1:\(port)/chat"
        var configuration = try TargetServerTests.fanout(target, subscribers: 20, broadcasts: 6)
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"["chat","{marker}{padding}"]"#) }
        configuration.changeTarget { $0.subscribeText = #"["join","room1"]"# }
        configuration.interval = 500_000_000  // 4 s with the warmup: four of the server's pings
        configuration.clientThreads = threads
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
        #expect(recording.endNanoseconds - recording.startNanoseconds > 3_000_000_000)
    }

    /// Roundtrip: each client emits an "echo" event that the server emits back to it alone; over four of the server's
    /// pings, every message comes back, on one client thread and on two.
    @Test(
        .enabled(if: hasSocketIO, "python3-socketio or python3-aiohttp is not installed: apt-get install -y python3-socketio python3-aiohttp"),
        arguments: [1, 2])
    func roundtripThroughASocketIOServerAcrossSeveralPingsEchoesEveryMessage(threads: Int) throws {
        let (server, port) = try Self.start()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let target = "socketio://127.0.0.1:\(port)/chat"
        var configuration = try TargetServerTests.roundtrip(target, clients: 6, messages: 8)
        try configuration.changeTarget { $0.publishTemplate = try PublishTemplate(#"["echo","{marker}{padding}"]"#) }
        configuration.interval = 500_000_000  // 4 s: four of the server's pings
        configuration.clientThreads = threads
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        _ = try TargetServerTests.expectEveryMessageEchoed(recording, target: target)
        #expect(recording.endNanoseconds - recording.startNanoseconds > 3_000_000_000)
    }

    /// The fixture on a free port of its own choosing, pinging every second.
    static func start() throws -> (Process, Int) {
        try PortFileFixture.start("socketio_server.py", ["1"])
    }
}
