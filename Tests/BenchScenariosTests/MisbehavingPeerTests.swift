@testable import BenchClients
import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// Peers that misbehave while a run goes on: the run completes, the others are unaffected, and the reason is
/// recorded.
@Suite(.timeLimit(.minutes(10))) struct MisbehavingPeerTests {
    @Test func aClientThatStopsReadingIsReportedSlowAndDoesNotDelayTheOthers() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 4)
        configuration.clients = 20
        configuration.localClientRange = 0..<19  // client 19 is the test's socket, which never reads
        configuration.messages = 100
        configuration.warmup = 0
        configuration.interval = 5_000_000
        configuration.arrival = .fixed
        configuration.payload = 64 << 10  // 6.4 MB in all: more than the kernel buffers take (tcp_wmem max 4 MiB)
        configuration.maximumQueuedBytes = 256 << 10
        configuration.timeout = 120_000_000_000  // no echo is late short of a hang, however busy the machine
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let stalled = try RawPeer(port: try run.port(), receiveBuffer: 4096)
        defer { stalled.close() }
        stalled.sayHello(as: 19, token: configuration.token)
        // Once every broadcast went out, the stalled client leaves: what it was owed is lost with its connection
        // rather than at the end of the long timeout.
        run.waitUntilDispatched(configuration.messages * configuration.clients)
        shutdown(stalled.fd, Int32(SHUT_RDWR))
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.slowClients.map(\.client) == [19])
        #expect(recording.queueFullDrops[19] > 0)
        #expect(recording.server.peakQueuedBytes <= configuration.maximumQueuedBytes, "memory stays bounded")

        // The other 19 got every broadcast while the stalled client's queue overflowed: the server never waited for
        // it (a server that did would never finish, since the stalled client never reads).
        for sequence in 0..<configuration.messages {
            let received = (0..<19).map { recording.ledger.received[recording.ledger.messageIndex(sequence: sequence, client: $0)] }
            #expect(received.allSatisfy { $0 != 0 })
            let stalledIndex = recording.ledger.messageIndex(sequence: sequence, client: 19)
            #expect(recording.delivery(ofMessage: stalledIndex) == nil, "nothing reached the stalled client")
        }

        let analysis = RunAnalysis(recording: recording)
        #expect(analysis.summary(of: .delivery)?.lost == configuration.messages, "only the stalled client's")
        #expect(analysis.summary(of: .spread)?.count == 0, "every broadcast missed client 19: none is complete")
    }

    @Test func garbageAbsurdLengthsUnknownKindsAndHalfFramesCloseOnlyThatConnection() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 5)
        configuration.clients = 5
        configuration.messages = 100
        configuration.warmup = 0
        configuration.interval = 10_000_000
        configuration.arrival = .fixed
        configuration.timeout = 120_000_000_000
        configuration.localClientRange = 0..<4  // client 4 is the test's socket: it echoes once the attacks are over
        let run = try BackgroundRun(configuration)
        let port = try run.port()
        let lastClient = try RawPeer(port: port)
        defer { lastClient.close() }
        lastClient.sayHello(as: 4, token: configuration.token)
        run.waitUntilRunning()

        let attacks: [(bytes: [UInt8], closeFirst: Bool, reason: String)] = [
            (Array("GET / HTTP/1.1\r\nHost: bench\r\n\r\n".utf8), false, "bytes announced, more than the limit of 64 bytes"),
            ([0x7F, 0xFF, 0xFF, 0xFF, FrameKind.data.rawValue], false, "frame of 2147483651 bytes announced"),
            ([0, 0, 0, 28, 0x63], false, "unknown frame kind 99"),
            ([0, 0, 0, 16, FrameKind.hello.rawValue, WireFormat.version, 0], true, "closed in the middle of a frame (7 bytes of it came)"),
            (dataFrame(), false, "sent a data frame before its hello"),
        ]
        for attack in attacks {
            let peer = try RawPeer(port: port)
            peer.send(attack.bytes)
            if !attack.closeFirst {  // (a half frame and then the close arrive in that order, so no wait between)
                #expect(peer.serverCloses(), "the server closes a connection that sent \(attack.reason)")
            }
            peer.close()
        }
        let hellos: [(version: UInt8, client: UInt32, token: UInt64)] = [
            (WireFormat.version + 1, 0, configuration.token), (WireFormat.version, 42, configuration.token),
            (WireFormat.version, 3, configuration.token), (WireFormat.version, 2, configuration.token ^ 1),
        ]
        for (version, client, token) in hellos {
            let peer = try RawPeer(port: port)
            peer.sayHello(as: client, token: token, version: version)
            #expect(peer.serverCloses())
            peer.close()
        }
        // The run cannot end before this: client 4's broadcasts wait for their echoes.
        for _ in 0..<configuration.messages {
            let frame = try #require(lastClient.receiveFrame(size: configuration.payload))
            lastClient.echo(frame, received: { $0 + 1 })
        }
        let recording = try run.finish()

        #expect(recording.status == .complete)
        let reasons = recording.connectionEvents.filter { $0.side == .server }.map(\.reason)
        for expected in attacks.map(\.reason) + [
            "speaks protocol version \(WireFormat.version + 1)", "said hello as client 42; this run has clients 0 to 4",
            "said hello as client 3, which is already connected",
            "said hello as client 2 without this run's token",
        ] {
            #expect(reasons.contains { $0.contains(expected) }, "recorded: \(expected); got \(reasons)")
        }
        let analysis = RunAnalysis(recording: recording)
        #expect(analysis.summary(of: .delivery)?.lost == 0, "the real clients lost nothing")
        #expect(analysis.summary(of: .delivery)?.count == 500)
    }

    @Test func aClientThatGoesSilentIsTakenForDeadAndWhatItIsOwedIsLost() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 6)
        configuration.clients = 2
        configuration.localClientRange = 0..<1  // client 1 says hello, then nothing
        configuration.messages = 50
        configuration.warmup = 0
        configuration.interval = 20_000_000
        configuration.arrival = .fixed
        configuration.heartbeat = 0
        configuration.deadAfter = 200_000_000
        configuration.timeout = 2_000_000_000
        let run = try BackgroundRun(configuration)
        let silent = try RawPeer(port: try run.port())
        defer { silent.close() }
        silent.sayHello(as: 1, token: configuration.token)
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.server.deadClients == [1])
        #expect(recording.connectionEvents.contains { $0.client == 1 && $0.reason.contains("taken for dead") })
        let lostByClient = (0..<2).map { client in
            (0..<50).filter { recording.roundTrip(ofMessage: recording.ledger.messageIndex(sequence: $0, client: client)) == nil }.count
        }
        #expect(lostByClient == [0, 50])
    }

    @Test func heartbeatsKeepIdleClientsAliveAndAreNotSamples() throws {
        for (scenario, clients) in [(Scenario.fanout, 3), (.roundtrip, 1)] {
            var configuration = RunConfiguration(scenario: scenario, seed: 7)
            configuration.clients = clients
            configuration.messages = 3
            configuration.warmup = 0
            configuration.interval = 500_000_000  // idle far longer than dead-after between messages
            configuration.arrival = .fixed
            configuration.heartbeat = 50_000_000
            configuration.deadAfter = 250_000_000
            let recording = try ScenarioRunner.run(configuration, control: RunControl())

            #expect(recording.status == .complete, "\(scenario)")
            #expect(recording.server.deadClients.isEmpty, "\(scenario)")
            #expect(recording.server.heartbeatsReceived >= clients * 10, "\(scenario): about 20 per client in 1 s")
            #expect(recording.clientThreads.heartbeatsSent >= recording.server.heartbeatsReceived)
            let analysis = RunAnalysis(recording: recording)
            #expect(analysis.summary(of: .rtt)?.count == 3 * clients, "\(scenario): heartbeats are not samples")
        }
    }

    @Test func withoutHeartbeatsIdleClientsAreTakenForDead() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 8)
        configuration.clients = 3
        configuration.messages = 3
        configuration.warmup = 0
        configuration.interval = 500_000_000
        configuration.arrival = .fixed
        configuration.heartbeat = 0
        configuration.deadAfter = 250_000_000
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.server.deadClients.sorted() == [0, 1, 2])
        #expect(recording.status == .failed)
        #expect(recording.statusReason == "every client disconnected")
    }

    private func dataFrame() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeMutableBytes { _ = Frame.encodeMessage(into: $0, sequence: 0, client: 0, sentNanoseconds: 1) }
        return bytes
    }
}

/// A harness that cannot keep up with its timetable still hears a stop request and still reads echoes.
@Suite(.timeLimit(.minutes(10))) struct OverloadTests {
    @Test func aStopIsHeardEvenWhenBroadcastsTakeLongerThanTheInterval() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 10)
        configuration.clients = 500
        configuration.messages = 4_000  // 500 writes per broadcast every 0.5 ms: far behind from the start
        configuration.warmup = 0
        configuration.interval = 500_000
        configuration.arrival = .fixed
        let run = try BackgroundRun(configuration)
        run.waitUntilDispatched(50 * configuration.clients)  // 50 broadcasts: already behind
        run.control.requestStop()
        let recording = try run.finish()

        #expect(recording.status == .interrupted)
        let analysis = RunAnalysis(recording: recording)
        #expect(analysis.broadcasts.count < 4_000, "stopped, not after the whole timetable (over 10 s of writes)")
        #expect(analysis.summary(of: .delivery)?.lost == 0, "echoes were read while it caught up")
        #expect((analysis.summary(of: .lag)?.max ?? 0) > 1_000_000, "falling behind shows as lag")
        #expect(recording.connectionEvents.isEmpty, "the teardown is not an event of the run")
    }
}
