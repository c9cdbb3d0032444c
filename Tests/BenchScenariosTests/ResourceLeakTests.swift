@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// Runs leave no descriptor and no thread behind: what a long-lived process (or a suite of many runs) needs.
///
/// Other tests open sockets in this process at the same time, so the check runs alone in a child process:
/// this test binary again, filtered to this one test, with BENCH_RESOURCE_CHECK set.
@Suite(.timeLimit(.minutes(10))) struct ResourceLeakTests {
    @Test func runsLeaveNoDescriptorsOrThreadsBehind() throws {
        if ProcessInfo.processInfo.environment["BENCH_RESOURCE_CHECK"] == "1" {
            try checkAloneInThisProcess()
            return
        }
        let log = NSTemporaryDirectory() + "bench-resource-check-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["--testing-library", "swift-testing", "--filter", "ResourceLeakTests"]
        child.environment = ProcessInfo.processInfo.environment.merging(["BENCH_RESOURCE_CHECK": "1"]) { $1 }
        child.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        child.standardError = child.standardOutput
        try child.run()
        child.waitUntilExit()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: log)
        #expect(child.terminationStatus == 0, "the check in the child process failed:\n\(output)")
        #expect(output.contains("passed"))
    }

    private func checkAloneInThisProcess() throws {
        func threads() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count }
        // A first run warms up what the process keeps for good (the runtime's own threads, caches).
        _ = try ScenarioRunner.run(small(.roundtrip), control: RunControl())
        let descriptors = DescriptorLimit.openCount()
        let threadCount = try threads()

        _ = try ScenarioRunner.run(small(.fanout), control: RunControl())
        var threaded = small(.fanout)
        (threaded.serverThreads, threaded.clientThreads, threaded.timestamps) = (3, 2, .both)
        _ = try ScenarioRunner.run(threaded, control: RunControl())
        var closedLoop = small(.roundtrip)
        closedLoop.interval = 0
        _ = try ScenarioRunner.run(closedLoop, control: RunControl())
        try runInterrupted()
        var unbindable = small(.fanout)
        unbindable.host = "192.0.2.1"
        #expect(throws: RunError.self) { try ScenarioRunner.run(unbindable, control: RunControl()) }

        #expect(DescriptorLimit.openCount() == descriptors, "descriptors left open")
        #expect(try threads() == threadCount, "threads left running")
    }

    /// A run stopped from another thread, as Ctrl-C does; its control (and eventfds) is gone on return.
    private func runInterrupted() throws {
        var interrupted = small(.fanout)
        interrupted.messages = 100_000
        interrupted.serverThreads = 2
        let control = try RunControl()
        let stopper = try NativeThread.spawn(name: "stopper") { () -> Bool in
            usleep(300_000)
            control.requestStop()
            return true
        }
        #expect(try ScenarioRunner.run(interrupted, control: control).status == .interrupted)
        _ = stopper.join()
    }

    private func small(_ scenario: Scenario) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: scenario, seed: 9)
        configuration.clients = scenario == .fanout ? 8 : 2
        configuration.messages = 20
        configuration.warmup = 2
        configuration.interval = 1_000_000
        return configuration
    }
}
