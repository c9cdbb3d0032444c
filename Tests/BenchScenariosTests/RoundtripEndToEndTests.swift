import BenchClients
import BenchCore
import BenchNet
import Glibc
import BenchScenarios
import Testing

@Suite(.timeLimit(.minutes(10))) struct RoundtripEndToEndTests {
    @Test func closedLoopEchoesEveryMessageInOrder() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 1)
        configuration.clients = 3
        configuration.messages = 100
        configuration.interval = 0
        let files = try RunFiles.run(configuration)

        #expect(files.settings["status"] == "complete")
        #expect(files.settings["arrival"] == "closed-loop")
        #expect(files.samples.count == 300)
        for client in 0..<3 {
            let rows = files.samples.filter { $0.int("client") == client }
            #expect(rows.map { $0.int("seq")! } == Array(0..<100))
            for (previous, next) in zip(rows, rows.dropFirst()) {
                #expect(next.int("sent_ns")! >= previous.int("echo_ns")!, "one message in flight per client")
            }
        }
        for row in files.samples {
            #expect(row["lost"] == "0")
            #expect(row.int("rtt_ns") == row.int("echo_ns")! - row.int("sent_ns")!)
        }
        let rtts = files.samples.map { $0.int("rtt_ns")! }.sorted()
        let summary = try #require(files.summary["rtt"])
        #expect(summary.int("count") == 300)
        #expect(summary.double("p50_us") == Double(exactPercentile(rtts, 50)) / 1000)
        #expect(summary.double("p99_us") == Double(exactPercentile(rtts, 99)) / 1000)
    }

    @Test func theSameSeedGivesTheSameTimetable() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 99)
        configuration.clients = 2
        configuration.messages = 30
        configuration.warmup = 2
        configuration.interval = 1_000_000
        let first = try RunFiles.run(configuration)
        let second = try RunFiles.run(configuration)
        let timetable = { (files: RunFiles) in files.samples.map { $0.int("scheduled_ns")! } }
        #expect(timetable(first) == timetable(second))
        #expect(Set(timetable(first)).count > 50, "poisson gaps, two clients with their own phases")

        configuration.seed = 100
        #expect(try timetable(RunFiles.run(configuration)) != timetable(first))
    }
}

/// The single-client closed loop, where both ends block in read instead of epoll_wait.
@Suite(.timeLimit(.minutes(10))) struct PingPongEndToEndTests {
    @Test func aSingleClientPingPongEchoesEveryMessage() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 2)
        configuration.messages = 2_000
        configuration.interval = 0
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let rtt = try #require(RunAnalysis(recording: recording).summary(of: .rtt))
        #expect(recording.status == .complete)
        #expect((rtt.count, rtt.lost) == (2_000, 0))
        #expect(recording.server.cpus.isEmpty == false)
        #expect(recording.clientThreads.cpus.isEmpty == false, "the blocking single client records its CPU too")
    }

    /// Small on purpose: each case spins two threads for its whole run (100 × 2 ms at most), beside other suites.
    @Test(arguments: [(Scenario.roundtrip, 1, UInt64(0)), (.roundtrip, 3, 1_000_000), (.fanout, 4, 2_000_000)])
    func busyPollingSpinsWithoutLosingAnything(scenario: Scenario, clients: Int, interval: UInt64) throws {
        var configuration = RunConfiguration(scenario: scenario, seed: 9)
        configuration.clients = clients
        configuration.messages = 100
        configuration.interval = interval
        configuration.busyPoll = true
        configuration.heartbeat = 100_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let rtt = try #require(RunAnalysis(recording: recording).summary(of: .rtt))
        #expect(recording.status == .complete)
        #expect((rtt.count, rtt.lost) == (100 * clients, 0))
    }

    @Test func aStopRequestEndsAPingPongPromptly() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 3)
        configuration.messages = 1_000_000  // far more than it has time to send
        configuration.interval = 0
        let run = try BackgroundRun(configuration)
        run.waitUntilRunning()
        for _ in 0..<1_000 where run.control.echoedMessages.load(ordering: .relaxed) < 1_000 { usleep(10_000) }
        run.control.requestStop()
        let recording = try run.finish()
        #expect(recording.status == .interrupted, "stopped at the next housekeeping, not at the end")
        let rtt = try #require(RunAnalysis(recording: recording).summary(of: .rtt))
        #expect(rtt.count >= 1_000 && rtt.count < configuration.messages)
        #expect(rtt.lost == 0, "the message in flight got its echo")
    }
}
