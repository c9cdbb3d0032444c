@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Glibc
import Testing
import BenchProtocols

@testable import BenchScenarios

/// `bench fanout --target sse://… --publish-url http://…` against a real SSE server (Tests/Fixtures/sse_server.py,
/// Python's standard library): chunked and plain streams, subscribers on one thread and on two. Serialized, as the
/// other real servers' tests.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SSEInteropTests {
    @Test(
        .enabled(if: TargetServerTests.hasPython, "python3 is not installed: apt-get install -y python3"),
        arguments: [("chunked", 1), ("plain", 2)])
    func fanoutThroughAnSSEServerDeliversEveryBroadcast(encoding: String, threads: Int) throws {
        let (server, port) = try Self.start(encoding)
        defer {  // SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let target = "sse://127.0.0.1:\(port)/events"
        var configuration = try TargetServerTests.fanout(target, subscribers: 100, broadcasts: 30)
        try configuration.changeTarget { $0.publishURL = try TargetURL("http://127.0.0.1:\(port)/publish") }
        configuration.clientThreads = threads
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        try TargetServerTests.expectEveryBroadcastDelivered(recording, target: target)
    }

    @Test(.enabled(if: TargetServerTests.hasPython, "python3 is not installed: apt-get install -y python3"))
    func aStreamPathTheServerDoesNotHaveFailsTheSetupWithItsStatus() throws {
        let (server, port) = try Self.start("plain")
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        var configuration = try TargetServerTests.fanout("sse://127.0.0.1:\(port)/nothing", subscribers: 2, broadcasts: 5)
        try configuration.changeTarget { $0.publishURL = try TargetURL("http://127.0.0.1:\(port)/publish") }
        let control = try RunControl()
        do throws(RunError) {
            _ = try ScenarioRunner.run(configuration, control: control)
            Issue.record("a missing stream did not fail the setup")
        } catch {
            #expect("\(error)".contains("404 Not Found"), "\(error)")
        }
    }

    /// The fixture on a free port of its own choosing, streams `encoding` (chunked or plain).
    static func start(_ encoding: String) throws -> (Process, Int) {
        try PortFileFixture.start("sse_server.py", [encoding])
    }
}
