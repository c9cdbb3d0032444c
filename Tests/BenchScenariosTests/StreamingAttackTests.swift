import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// Streamed runs pushed where the ring and the timetable meet their edges.
@Suite struct StreamingAttackTests {
    /// Runs `configuration` with a stream and returns the recording and every entry the writer would have taken.
    private func streamedRun(_ configuration: RunConfiguration) throws -> (RunRecording, [SettledMessage]) {
        let queue = SettledQueue()
        let consumer = try NativeThread.spawn(name: "test-writer") { () -> [SettledMessage] in
            var entries: [SettledMessage] = []
            let deadline = MonotonicClock.now() + 60_000_000_000
            while MonotonicClock.now() < deadline {
                guard let entry = queue.pop() else {
                    Posix.sleep(nanoseconds: 1_000_000)
                    continue
                }
                entries.append(entry)
                if entry.kind == .end { break }
            }
            return entries
        }
        let control = try RunControl()
        let recording = try ScenarioRunner.run(configuration, control: control, stream: queue)
        return (recording, consumer.join())
    }

    /// An open-loop `--duration` run that falls behind its timetable sends every send the timetable has (all due
    /// before the duration), late, as a `--count` run does: the lateness shows as lag. It used to stop at the first
    /// moment after the duration when nothing was in flight, dropping the backlog silently (neither sent nor lost),
    /// so how many messages a run measured depended on a race.
    @Test func aDurationRunBehindItsTimetableSendsTheWholeTimetable() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 7)
        configuration.clients = 1
        configuration.interval = 2_000  // 500,000 sends a second: far more than a debug build keeps up with
        configuration.arrival = .fixed
        configuration.duration = 60_000_000
        configuration.warmup = 0
        configuration.timestamps = .user
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        var plan = SendPlan(configuration: configuration)
        var due = 0
        while plan.next != nil {
            due += 1
            plan.advance()
        }
        #expect(due == 30_000)
        let (recording, entries) = try streamedRun(configuration)
        #expect(recording.status == .complete)
        let messages = entries.filter { $0.kind == .message }
        #expect(messages.count == due, "every send of the timetable was made and streamed")
        #expect(Set(messages.map(\.sequence)).count == due)
    }
}
