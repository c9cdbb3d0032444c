@testable import BenchClients
import BenchCore
import BenchNet
import Testing

@testable import BenchScenarios

/// `--timestamps kernel|both`: the kernel's software stamps, on the run's clock, where the harness's own reads and
/// writes would add their wake-ups.
@Suite(.timeLimit(.minutes(10))) struct KernelTimestampTests {
    /// Every stamp of an echoed message, in the order the bytes went: the server's write call, the kernel handing
    /// it on, the kernel receiving it at the client, the client's read, the kernel receiving the echo, the
    /// server's read. Kernel and user-space times are compared within the clock conversion's uncertainty.
    private func expectOrdered(_ recording: RunRecording, _ index: Int, scenario: String) {
        let slack = 2 * (recording.kernelClockAtStart?.uncertainty ?? 0)
        let (wu, wk, rk, ru, ek, eu) = (
            recording.ledger.written[index], recording.ledger.writtenKernel[index], recording.ledger.receivedKernel[index],
            recording.ledger.received[index], recording.ledger.echoedKernel[index], recording.ledger.echoed[index]
        )
        #expect(rk != 0 && ek != 0, "\(scenario): message \(index) has its kernel receive stamps")
        if wk != 0 {
            #expect(wu <= wk + slack, "\(scenario): write call before the kernel sent it")
            #expect(wk <= rk, "\(scenario): sent before received (both kernel stamps)")
        }
        #expect(rk <= ru + slack, "\(scenario): the kernel received it before the client's read returned")
        #expect(ru <= ek + slack, "\(scenario): the client read it before its echo arrived")
        #expect(ek <= eu + slack, "\(scenario): the echo arrived before the server's read returned")
    }

    @Test(arguments: [(Scenario.fanout, 4, 5_000_000 as UInt64), (.roundtrip, 2, 2_000_000), (.roundtrip, 1, 0)])
    func everyStampIsPresentAndInTheOrderTheBytesWent(scenario: Scenario, clients: Int, interval: UInt64) throws {
        var configuration = RunConfiguration(scenario: scenario, seed: 31)
        configuration.clients = clients
        configuration.messages = 30
        configuration.warmup = 2
        configuration.interval = interval
        configuration.timestamps = .both
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        let name = "\(scenario) \(clients) clients, interval \(interval)"

        #expect(recording.status == .complete, "\(name)")
        for index in recording.ledger.outcome.indices where recording.ledger.outcome[index] == .echoed {
            expectOrdered(recording, index, scenario: name)
        }
        #expect(recording.missingKernelStamps == (0, 0), "\(name)")
        let transmitStamps = recording.ledger.writtenKernel.filter { $0 != 0 }.count
        let expected = scenario == .fanout ? configuration.sequencesPerClient : recording.ledger.written.count
        #expect(transmitStamps == expected, "\(name): one transmit stamp per message, per broadcast in fanout")
        let clock = try #require(recording.kernelClockAtStart)
        #expect(clock.uncertainty < 10_000, "\(name): the clocks were read within 10 µs of each other")

        let analysis = RunAnalysis(recording: recording)
        let rtt = try #require(analysis.summary(of: .rtt))
        #expect(rtt.count == clients * 30 && rtt.lost == 0)
        // The kernel's round trip leaves out the server's own wake-ups, so it is shorter than the user-space one.
        let userRoundTrips = recording.ledger.outcome.indices.filter { recording.ledger.isMeasured(message: $0) }
            .map { recording.ledger.echoed[$0] - recording.ledger.written[$0] }
        #expect(rtt.max! <= userRoundTrips.max()!)
        let stack = try #require(analysis.summary(of: .stack), "--timestamps both reports stack")
        #expect(stack.count == clients * 30)
    }

    @Test func aClientWithoutKernelStampsFallsBackToItsOwnReadsAndIsCounted() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 32)
        configuration.clients = 3
        configuration.localClientRange = 0..<2  // client 2 is the test's socket: it echoes no kernel stamp
        configuration.messages = 10
        configuration.warmup = 0
        configuration.interval = 5_000_000
        configuration.arrival = .fixed
        configuration.timestamps = .kernel
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let peer = try RawPeer(port: try run.port())
        defer { peer.close() }
        peer.sayHello(as: 2, token: configuration.token)
        for _ in 0..<configuration.messages {
            let frame = try #require(peer.receiveFrame(size: configuration.payload))
            peer.echo(frame, received: { _ in MonotonicClock.now() })
        }
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.missingKernelStamps == (send: 0, receive: 10), "the peer's 10 receive stamps")
        let analysis = RunAnalysis(recording: recording)
        #expect(analysis.summary(of: .delivery)?.lost == 0, "a missing stamp is not a lost message")
        for sequence in 0..<10 {
            let index = recording.ledger.messageIndex(sequence: sequence, client: 2)
            #expect(recording.receiveTime(ofMessage: index) == recording.ledger.received[index], "its own read stands in")
        }
    }

    @Test func aKernelReceiveStampOutsideTheWriteAndTheReadIsNotAMeasurement() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 33)
        configuration.clients = 1
        configuration.localClientRange = 0..<0
        configuration.messages = 3
        configuration.warmup = 0
        configuration.interval = 5_000_000
        configuration.timestamps = .kernel
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let peer = try RawPeer(port: try run.port())
        defer { peer.close() }
        peer.sayHello(as: 0, token: configuration.token)
        let frame = try #require(peer.receiveFrame(size: configuration.payload))
        peer.echo(frame, received: { $0 + 1 }, receivedKernel: { _ in 1 })  // a kernel stamp long before the write
        #expect(peer.serverCloses())
        let recording = try run.finish()
        #expect(recording.ledger.outcome[0] == .invalidTimestamp)
        #expect(recording.connectionEvents.contains { $0.reason.contains("(kernel: 1 ns)") })
    }
}
