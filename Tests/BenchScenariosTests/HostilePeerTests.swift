@testable import BenchClients
import BenchCore
import BenchNet
import BenchReports
import Foundation
import Testing

@testable import BenchScenarios

/// Peers that speak the protocol perfectly and lie: every value that comes from the network is checked before it
/// becomes a measurement, and the run folder is always written.
@Suite(.timeLimit(.minutes(10))) struct HostilePeerTests {
    @Test func echoesWithImpossibleReceiveTimesAreNotMeasurementsAndTheRunFolderIsWritten() throws {
        let lies: [(name: String, received: @Sendable (UInt64) -> UInt64)] = [
            ("2^64-1", { _ in .max }), ("2^63", { _ in 1 << 63 }), ("0", { _ in 0 }), ("before the send", { $0 - 1 }),
        ]
        var configuration = RunConfiguration(scenario: .fanout, seed: 11)
        configuration.clients = 2 + lies.count
        configuration.localClientRange = 0..<2  // clients 2... are the liars
        configuration.messages = 20
        configuration.warmup = 0
        configuration.interval = 5_000_000
        configuration.arrival = .fixed
        configuration.timeout = 1_000_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let port = try run.port()
        let liars = try lies.indices.map { _ in try RawPeer(port: port) }
        defer { for liar in liars { liar.close() } }
        for (offset, liar) in liars.enumerated() { liar.sayHello(as: UInt32(2 + offset), token: configuration.token) }
        for (liar, lie) in zip(liars, lies) {
            let frame = try #require(liar.receiveFrame(size: configuration.payload))
            liar.echo(frame, received: lie.received)
            #expect(liar.serverCloses(), "the server closes the connection that said \(lie.name)")
        }
        let recording = try run.finish()
        #expect(recording.status == .complete)

        let files = try RunFiles.write(recording)
        let reasons = files.events.map { $0["reason"] ?? "" }
        #expect(reasons.filter { $0.contains("not a measurement") }.count == lies.count, "\(reasons)")
        for row in files.samples where row.int("client")! >= 2 {
            #expect(row["lost"] == "1")
            #expect(row["delivery_ns"] == "" && row["rtt_ns"] == "" && row["recv_ns"] == "")
            let expected = row.int("broadcast") == 0 ? "invalid_timestamp" : "dropped_closed"
            #expect(row["outcome"] == expected, "\(row)")
        }
        for row in files.samples where row.int("client")! < 2 {
            #expect(row["outcome"] == "echoed" && row["lost"] == "0")
        }
        #expect(files.summary["delivery"]?.int("count") == 2 * 20)
        #expect(files.summary["delivery"]?.int("lost") == lies.count * 20)
        #expect(files.summary["spread"]?.int("count") == 0, "no broadcast reached every client")
    }

    @Test func anEchoAfterItsTimeoutIsLateAndASecondOneIsADuplicateThatChangesNothing() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 12)
        configuration.clients = 1
        configuration.localClientRange = 0..<0  // the test's socket is the only client
        configuration.messages = 2
        configuration.warmup = 0
        configuration.interval = 0  // closed loop: message 0 times out, then message 1 goes
        configuration.timeout = 100_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let peer = try RawPeer(port: try run.port())
        defer { peer.close() }
        peer.sayHello(as: 0, token: configuration.token)
        let first = try #require(peer.receiveFrame(size: configuration.payload))
        let second = try #require(peer.receiveFrame(size: configuration.payload), "sent once the first timed out")
        // The two echoes of message 0 claim different receive times (+1 and +2 ns), so which one was kept shows
        // in the recording whether the server reads them in one go or two.
        peer.echo(first, received: { $0 + 1 })
        peer.echo(first, received: { $0 + 2 })
        peer.echo(second, received: { $0 + 1 })
        let recording = try run.finish()

        #expect(recording.ledger.outcome[0] == .late)
        #expect(recording.ledger.outcome[1] == .echoed)
        #expect(recording.ledger.duplicateEchoes == 1)
        #expect(recording.ledger.received[0] == recording.ledger.written[0] + 1, "the first echo's receive time is kept")
        #expect(recording.ledger.echoed[0] != 0 && recording.ledger.echoed[0] <= recording.ledger.echoed[1], "and its arrival")
        #expect(recording.roundTrip(ofMessage: 0) == nil, "a late echo is lost for the metric")
    }

    @Test func aConnectionWithoutTheRunsTokenCannotTakeAClientId() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 13)
        configuration.clients = 2
        configuration.localClientRange = 0..<1  // client 1 is the test's socket
        configuration.messages = 5
        configuration.warmup = 0
        configuration.interval = 2_000_000
        configuration.arrival = .fixed
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let port = try run.port()
        let stranger = try RawPeer(port: port)
        defer { stranger.close() }
        stranger.sayHello(as: 1, token: configuration.token &+ 1)
        #expect(stranger.serverCloses())
        let client = try RawPeer(port: port)
        defer { client.close() }
        client.sayHello(as: 1, token: configuration.token)
        for _ in 0..<configuration.messages {
            let frame = try #require(client.receiveFrame(size: configuration.payload))
            client.echo(frame, received: { $0 + 1 })
        }
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.map(\.reason) == ["said hello as client 1 without this run's token"])
        #expect(RunAnalysis(recording: recording).summary(of: .rtt)?.lost == 0, "the real client 1 took its id")
    }
}

/// A flood of connections that never say hello: memory and events.csv stay bounded, and the count stays true.
///
/// The run's only client is the test's own socket, echoing only after the flood, with a timeout no healthy run
/// reaches: the run cannot end before the flood is over, however slowly a loaded machine connects (it used to be a
/// 1 s timetable that could end mid-flood, refusing the rest). Open loop, since a closed loop of one client is a
/// blocking ping-pong that accepts nothing more.
@Suite(.timeLimit(.minutes(10))) struct ConnectionFloodTests {
    @Test func strayConnectionsReuseTheirSlotsAndEventsStopAtTheirLimitButAreCounted() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 14)
        configuration.clients = 1
        configuration.localClientRange = 0..<0  // the test's socket is the client
        configuration.messages = 5
        configuration.warmup = 0
        configuration.interval = 1_000_000
        configuration.arrival = .fixed
        configuration.timeout = 120_000_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let port = try run.port()
        let client = try RawPeer(port: port)
        defer { client.close() }
        client.sayHello(as: 0, token: configuration.token)
        let first = try #require(client.receiveFrame(size: configuration.payload), "sending began")
        let strays = RunRecording.maximumEvents + 500
        for _ in 0..<strays {
            let stray = try RawPeer(port: port)
            stray.close()
        }
        // A last connection says hello without the run's token: once the server has closed it, it has accepted every
        // stray before it (the backlog is first in, first out), and their closes were ready before the echoes below.
        let sentinel = try RawPeer(port: port)
        defer { sentinel.close() }
        sentinel.sayHello(as: 0, token: configuration.token &+ 1)
        #expect(sentinel.serverCloses(within: 60))
        client.echo(first, received: { $0 + 1 })
        for _ in 1..<configuration.messages {
            let frame = try #require(client.receiveFrame(size: configuration.payload))
            client.echo(frame, received: { $0 + 1 })
        }
        let recording = try run.finish()

        #expect(recording.status == .complete)
        #expect(recording.connectionEvents.count == RunRecording.maximumEvents)
        #expect(recording.connectionsClosedEarly == recording.connectionEvents.count + recording.eventsNotRecorded)
        #expect(recording.connectionsClosedEarly >= strays, "each stray counted")
        #expect(RunAnalysis(recording: recording).summary(of: .rtt)?.lost == 0)
    }
}
