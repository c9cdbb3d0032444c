@testable import BenchClients
import BenchCore
import BenchNet
import BenchReports
import Foundation
import Testing

@testable import BenchScenarios

/// Streamed runs pushed where the ring and the timetable meet their edges.
@Suite(.timeLimit(.minutes(10))) struct StreamingAttackTests {
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

    /// A run whose last rows were handed on at the housekeeping tick that also ended a report interval, and which ended
    /// right after (its last message lost, so it waited for that tick): its final interval holds nothing, and its last
    /// rows are those of the interval before, which ends at its own end, not the run's. `bench report`
    /// gave that interval the run's end, so the page it rebuilt was not the run's.
    @Test func aRunWhoseFinalIntervalIsEmptyIsRebuiltByteForByte() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 3)
        configuration.clients = 1
        configuration.messages = 5
        configuration.warmup = 0
        configuration.interval = 10_000_000
        configuration.timeout = 5_000_000
        configuration.reportEvery = 75_000_000
        var recording = RunRecording(configuration: configuration, window: 5)
        let start: UInt64 = 1_000_000_000
        recording.startNanoseconds = start
        for (sequence, offset) in [0, 10, 20, 190, 200].enumerated() {
            let index = recording.ledger.messageIndex(sequence: sequence, client: 0)
            let due = start + UInt64(offset) * 1_000_000
            recording.send(message: index, due: due, at: due + 1_000)
            if sequence != 4 { recording.echo(message: index, received: due + 20_000, echoed: due + 40_000) }
        }
        // Ticks every 50 ms: the first three rows go at 50 ms (interval 0), the fourth at 200 ms (interval 2, 150–225
        // ms); the last message times out at 205 ms and its row goes at the 250 ms tick, still in interval 2, which that
        // tick then ends; the run ends at that tick (it waited for the lost message's timeout): interval 3, 225–250.4
        // ms, is empty.
        var entries = [recording.startEntry]
        for tick in stride(from: 50, through: 250, by: 50) {
            let now = start + UInt64(tick) * 1_000_000
            recording.ledger.flush(at: now, ending: false) { entries.append($0) }
            recording.endIntervals(at: now) { entries.append($0) }
        }
        recording.endNanoseconds = start + 250_400_000
        recording.finishStream { entries.append($0) }

        let parent = NSTemporaryDirectory() + "bench-tests-\(UUID().uuidString)"
        let folder = try RunFolder.prepare(in: parent)
        var writer = try RunStream.Writer(configuration: configuration, folder: folder.temporaryPath)
        for entry in entries { try writer.consume(entry) }
        let analysis = writer.collector.analysis(of: recording)
        #expect(analysis.timeline.map(\.interval) == [0, 0, 2, 2], "the final interval holds nothing")
        let metadata = RunMetadata(commandLine: "test", version: "test", cpus: 2)
        let path = try RunReport.write(analysis, metadata: metadata, into: folder, streamed: true)
        let page = try String(contentsOfFile: path + "/" + HTMLRunReport.fileName, encoding: .utf8)
        let saved = try SavedRun(folder: path)
        #expect(saved.results.timeline.map(\.end) == analysis.timeline.map(\.end), "interval 2 ends at 225 ms")
        #expect(HTMLRunReport.render(saved.results) == page)
    }
}
