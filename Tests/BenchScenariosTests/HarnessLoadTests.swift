@testable import BenchClients
import BenchCore
import BenchNet
import Testing
import BenchProtocols

@testable import BenchScenarios

/// Whose limit a slipped timetable was (issue 42): the harness's when it was busy or waited for its own writer, the
/// server's when the harness had time to spare and its sends waited for earlier messages still in flight.
@Suite struct HarnessLoadTests {
    /// A roundtrip of 100 messages every 625 µs whose lag p99 reached 1.53 ms, sending for 1 s.
    private func recording(
        measuringCPU: UInt64, windowWaits: Int, writerWaits: Int, runQueueWait: UInt64? = 10_000_000,
        target: Bool = true
    ) -> RunRecording {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 1)
        configuration.clients = 1
        configuration.messages = 100
        configuration.interval = 625_000
        if target { configuration.role = .target(TargetSettings(try! TargetURL("tcp://127.0.0.1:9")), agentToken: nil) }
        var recording = RunRecording(configuration: configuration)
        recording.measuringThreadRunQueueWait = runQueueWait
        recording.startNanoseconds = 1_000_000_000
        recording.endNanoseconds = 2_000_000_000
        recording.measuringThreadCPU = measuringCPU
        recording.windowWaits = windowWaits
        recording.writerWaits = writerWaits
        return recording
    }

    /// On the old code this was "the harness was saturated", with the harness 4.7% busy.
    @Test func aTimetableThatWaitedForTheServersAnswersIsTheServersLimit() {
        let load = HarnessLoad(recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 0), lagP99: 1_530_000)
        #expect(load.saturation == nil)
        let backpressure = load.serverBackpressure ?? ""
        #expect(backpressure.contains("the server did not keep up") && backpressure.contains("80 sends waited"), "\(backpressure)")
        #expect(backpressure.contains("5% busy"), "the busy share measured: \(backpressure)")
    }

    @Test func aTimetableThatSlippedWhileTheHarnessWasBusyIsTheHarnesss() {
        let busy = HarnessLoad(recording: recording(measuringCPU: 950_000_000, windowWaits: 80, writerWaits: 0), lagP99: 1_530_000)
        #expect(busy.serverBackpressure == nil)
        #expect(busy.saturation?.contains("busy 95%") == true && busy.saturation?.contains("slipped") == true)
        let writer = HarnessLoad(recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 3), lagP99: 1_530_000)
        #expect(writer.serverBackpressure == nil && writer.saturation?.contains("slipped") == true, "its own writer held it")
        let unexplained = HarnessLoad(recording: recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0), lagP99: 1_530_000)
        #expect(unexplained.serverBackpressure == nil && unexplained.saturation != nil, "not shown to be the server's")
    }

    /// A measuring thread kept off the CPU by other work (a run-queue wait of a tenth of the run or more) waits for
    /// nothing of the server's: its slipped timetable is the machine's, so the harness's; and the built-in server is
    /// the harness's own.
    @Test func aStarvedHarnessOrTheBuiltInServerIsNeverTheServersBackpressure() {
        let starved = HarnessLoad(
            recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 0, runQueueWait: 300_000_000),
            lagP99: 1_530_000)
        #expect(starved.serverBackpressure == nil && starved.saturation?.contains("slipped") == true)
        let unknown = HarnessLoad(
            recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 0, runQueueWait: nil),
            lagP99: 1_530_000)
        #expect(unknown.serverBackpressure == nil, "not known to be the server's")
        let builtIn = HarnessLoad(
            recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 0, target: false),
            lagP99: 1_530_000)
        #expect(builtIn.serverBackpressure == nil && builtIn.saturation != nil)
    }

    @Test func aTimetableThatKeptUpIsNeither() {
        let load = HarnessLoad(recording: recording(measuringCPU: 47_000_000, windowWaits: 80, writerWaits: 0), lagP99: 100_000)
        #expect(load.saturation == nil && load.serverBackpressure == nil)
    }

    /// 100,000 clients every 2 s on two CPUs with io_uring: each process's threads were ~10% busy and the timetable
    /// held, but the kernel's loopback work left 4% of the messages timed out: the built-in server's run said nothing.
    @Test func messagesTimedOutOnTheBuiltInServerOverLoopbackAreTheHarnessesLimit() {
        let idle = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0, target: false)
        #expect(HarnessLoad(recording: idle, lagP99: 100_000, timedOut: 132_676).saturation?.contains("132676 messages") == true)
        #expect(HarnessLoad(recording: idle, lagP99: 100_000, timedOut: 0).saturation == nil)
        let target = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0)
        #expect(HarnessLoad(recording: target, lagP99: 100_000, timedOut: 9).saturation == nil, "a user's server's timeouts are its own")
    }

    /// `bench suite Benchmarks/ci.suite` beside a compile: "the harness was saturated" while run.csv said its busiest
    /// thread was 6% busy. A timetable that slipped while the harness was idle and other processes took the machine
    /// is the machine's disturbance, not the harness's saturation (which it was on the old code).
    @Test func aTimetableThatSlippedWhileOtherWorkTookTheMachineIsADisturbance() {
        var starved = recording(measuringCPU: 63_000_000, windowWaits: 0, writerWaits: 0, runQueueWait: 300_000_000)
        starved.machine = MachineShare(othersCPU: 0.93, serverCPU: nil, stealPercent: 0, cpus: 2)
        let load = HarnessLoad(recording: starved, lagP99: 30_890_000)
        #expect(load.saturation == nil && load.serverBackpressure == nil)
        let disturbance = load.disturbance ?? ""
        #expect(disturbance.hasPrefix("the machine was busy with other work: its timetable slipped"), "\(disturbance)")
        #expect(disturbance.contains("other processes used 93% of a CPU"), "\(disturbance)")
        // A quiet machine: the slip stays the harness's.
        var quiet = starved
        quiet.machine = MachineShare(othersCPU: 0.02, serverCPU: nil, stealPercent: 0, cpus: 2)
        #expect(HarnessLoad(recording: quiet, lagP99: 30_890_000).disturbance == nil)
        // A harness busy half the run or more may have been the limit itself: saturated, whatever else ran.
        var busy = recording(measuringCPU: 600_000_000, windowWaits: 0, writerWaits: 0, runQueueWait: 300_000_000)
        busy.machine = starved.machine
        let busyLoad = HarnessLoad(recording: busy, lagP99: 30_890_000)
        #expect(busyLoad.disturbance == nil && busyLoad.saturation != nil)
        // A thread that ran a third of the time and waited for a CPU the rest wanted a whole one: a timetable no
        // machine keeps (a broadcast every microsecond) is the harness's, however busy the machine was.
        var flood = recording(measuringCPU: 330_000_000, windowWaits: 0, writerWaits: 0, runQueueWait: 640_000_000)
        flood.machine = starved.machine
        let floodLoad = HarnessLoad(recording: flood, lagP99: 30_890_000)
        #expect(floodLoad.disturbance == nil && floodLoad.saturation != nil)
    }

    /// An echo server on this machine that takes 1 ms a message, asked for one every 625 µs: its process busy a whole
    /// CPU while the harness's measuring thread waited for a CPU (both on two CPUs). The old code said "the harness
    /// was saturated … other processes used 49%": the other process was the server under test.
    @Test func aTimetableThatSlippedWhileTheServersProcessWasBusyIsTheServersLimit() {
        var run = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0, runQueueWait: 300_000_000)
        run.machine = MachineShare(othersCPU: 0.05, serverCPU: 0.99, stealPercent: 0, cpus: 2)
        let load = HarnessLoad(recording: run, lagP99: 1_610_000)
        #expect(load.saturation == nil && load.disturbance == nil)
        let backpressure = load.serverBackpressure ?? ""
        #expect(backpressure.contains("the server did not keep up") && backpressure.contains("used 99% of a CPU"), "\(backpressure)")
        // The built-in server is the harness's own: never the server's limit.
        var builtIn = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0, target: false)
        builtIn.machine = run.machine
        #expect(HarnessLoad(recording: builtIn, lagP99: 1_610_000).serverBackpressure == nil)
    }

    /// 10,000 phones behind one link thread (issue 64; the link is in the client threads now): LTE's deliveries were 147 ms at the median where its link has
    /// 50 ms, and the run said nothing of it. The link's own lateness, measured on each write out of it, now says so
    /// when it was late for most of what it carried; a link on time at the median (p99 late alone, a hiccup) is not.
    @Test func aLinkBehindItsModelAtTheMedianIsTheHarnesssLimit() {
        var late = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0)
        late.linkWasLate(LinkLateness(writes: 10_000, p50: 300_000, p99: 2_000_000, maximum: 9_000_000))
        #expect(HarnessLoad(recording: late, lagP99: nil).saturation == nil, "on time at the median")
        late.linkWasLate(LinkLateness(writes: 5_000, p50: 96_000_000, p99: 180_000_000, maximum: 250_000_000))
        #expect(late.linkLateness?.p50 == 96_000_000 && late.linkLateness?.writes == 15_000)
        let saturation = HarnessLoad(recording: late, lagP99: nil).saturation ?? ""
        #expect(saturation.contains("its emulated link let bytes out after the model's time: p50 96.00ms late"), "\(saturation)")
        let advice = HarnessLoad(recording: late, lagP99: nil).advice
        #expect(advice.contains("whatever the timetable: fewer clients behind each thread"), "\(advice)")
        // One child's link late for a handful of what the run's links carried is not the run's saturation.
        var handful = recording(measuringCPU: 47_000_000, windowWaits: 0, writerWaits: 0)
        handful.linkWasLate(LinkLateness(writes: 100_000, p50: 80_000, p99: 900_000, maximum: 4_000_000))
        handful.linkWasLate(LinkLateness(writes: 12, p50: 5_000_000, p99: 9_000_000, maximum: 9_000_000))
        #expect(HarnessLoad(recording: handful, lagP99: nil).saturation == nil)
    }

    /// A child's or an agent's link lateness comes over a channel: what does not read is refused, never trapped on.
    @Test func aLinksLatenessReadsBackAndNothingElseDoes() {
        let lateness = LinkLateness(writes: 12, p50: 40_000, p99: 90_000, maximum: 90_001)
        #expect(LinkLateness(text: lateness.text) == lateness)
        for text in ["", "1 2 3", "1 2 3 4 5", "1 3 2 4", "a 1 2 3", "1 2 3 99999999999999999999999", "1  2 3", "-1 2 3 4"] {
            #expect(LinkLateness(text: text) == nil, "\(text)")
        }
    }
}
