@testable import BenchClients
import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// `--drop-connections-at` and `--reconnect`: real server, real clients on 127.0.0.1, the outage read back from the
/// run's own files and checked against what its samples imply.
@Suite(.timeLimit(.minutes(10))) struct ReconnectTests {
    private static let backoff = ReconnectBackoff(base: 20_000_000, maximum: 200_000_000, tries: 10)

    private static func fanout(clients: Int) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: .fanout, seed: 11)
        configuration.clients = clients
        configuration.messages = 40
        configuration.warmup = 0
        configuration.interval = 20_000_000
        configuration.arrival = .fixed
        configuration.dropConnectionsAt = 300_000_000
        configuration.reconnect = backoff
        return configuration
    }

    /// Every client is away when the timetable runs out: the run waits for them to come back, as their outages are
    /// measured too, instead of ending failed with every outage counted lost. (The measuring core's first version ended
    /// it there: nothing was in flight any more.)
    @Test func aRunWhoseTimetableEndsWhileEveryClientIsAwayWaitsForThemToComeBack() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 12)
        configuration.clients = 3
        configuration.messages = 30
        configuration.warmup = 0
        configuration.interval = 5_000_000  // sends at 0…145 ms
        configuration.arrival = .fixed
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        configuration.timeout = 30_000_000_000  // the grace for returns: only a hang reaches it
        // Dropped at the housekeeping tick of 100 ms; back 50–100 ms later, after the last send is due.
        configuration.dropConnectionsAt = 60_000_000
        configuration.reconnect = ReconnectBackoff(base: 100_000_000, maximum: 100_000_000, tries: 10)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete, "\(recording.statusReason ?? "")")
        // It waits while nobody is back; once one is, nothing is left to send or settle, and the run ends.
        #expect(recording.outages.count == 3 && recording.outages.contains { $0.back > $0.closed },
                "a client came back before the end: \(recording.outages)")
    }

    @Test func droppedClientsComeBackAndTheReportShowsTheOutage() throws {
        let clients = 20
        let files = try RunFiles.run(Self.fanout(clients: clients))
        #expect(files.settings["status"] == "complete")
        #expect(files.settings["connections_dropped"] == "1")
        #expect(files.settings["client_outages"] == "\(clients)")
        #expect(files.settings["client_outages_back"] == "\(clients)")
        // Each client said hello again once: none came back after the server's goodbye at the end.
        #expect(files.settings["client_reconnects"] == "\(clients)")
        #expect(files.settings["clients_gave_up"] == "0")

        let outages = try files.table("reconnects.csv")
        #expect(outages.map { $0.int("client")! }.sorted() == Array(0..<clients))
        let closed = outages.map { $0.int("closed_ns")! }
        // All closed at once, at the housekeeping tick after 300 ms.
        #expect(closed.min()! >= 300_000_000 && closed.max()! - closed.min()! < 20_000_000)
        let times = outages.map { $0.int("reconnect_ns")! }.sorted()
        // The first try waits half to all of the 20 ms base; on loopback it succeeds.
        #expect(times.allSatisfy { $0 >= 10_000_000 && $0 < 1_000_000_000 }, "\(times)")
        let summary = try #require(files.summary["reconnect"])
        #expect(summary.int("count") == clients && summary.int("lost") == 0)
        #expect(summary.double("p50_us").map { Int(($0 * 1_000).rounded()) } == exactPercentile(times, 50))

        // Messages: lost only while a client was away; every one written after its return was delivered.
        var back: [Int: (closed: Int, back: Int)] = [:]
        for row in outages {
            back[row.int("client")!] = (row.int("closed_ns")!, row.int("closed_ns")! + row.int("reconnect_ns")!)
        }
        var lostDuringOutage = 0
        for row in files.samples {
            let client = row.int("client")!
            let t0 = row.int("t0_ns")!  // from the start of sending, as closed_ns
            let window = back[client]!
            if row["lost"] == "1" {
                #expect(t0 >= window.closed - 30_000_000 && t0 <= window.back, "lost outside the outage: \(row)")
                lostDuringOutage += 1
            } else if t0 > window.back {
                #expect(row.int("delivery_ns") != nil)
            }
        }
        #expect(lostDuringOutage > 0)
        #expect(files.samples.count == clients * 40)
        let events = files.events.filter { $0["reason"]?.hasPrefix("closed by --drop-connections-at 300ms") == true }
        #expect(events.count == clients)
    }

    @Test func clientsThatDoNotReconnectAreLostAndTheRunEndsOnceDeadAfterPassed() throws {
        var configuration = Self.fanout(clients: 5)
        configuration.reconnect = nil
        configuration.heartbeat = 0
        configuration.deadAfter = 400_000_000
        configuration.messages = 1_000  // 20 s of sending: the run ends long before, for want of clients
        let started = MonotonicClock.now()
        let files = try RunFiles.run(configuration)
        #expect(MonotonicClock.now() - started < 5_000_000_000)
        #expect(files.settings["status"] == "failed")
        #expect(files.settings["status_reason"] == "every client disconnected")
        let outages = try files.table("reconnects.csv")
        #expect(outages.count == 5 && outages.allSatisfy { $0["reconnect_ns"] == "" })
        let summary = try #require(files.summary["reconnect"])
        #expect(summary.int("count") == 0 && summary.int("lost") == 5)
    }

    @Test func closedLoopRoundtripClientsPickUpWhereTheyLeftOff() throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 3)
        configuration.clients = 3
        configuration.interval = 0
        configuration.duration = 1_200_000_000
        configuration.warmup = 0
        configuration.dropConnectionsAt = 400_000_000
        configuration.reconnect = Self.backoff
        let (recording, entries) = try streamedRun(configuration)
        #expect(recording.status == .complete)
        #expect(recording.outages.count == 3 && recording.outages.allSatisfy { $0.back > $0.closed })
        let messages = entries.filter { $0.kind == .message }
        for outage in recording.outages {
            let after = messages.filter { $0.client == outage.client && $0.written > outage.back }
            #expect(after.count > 10 && after.allSatisfy { $0.outcome == .echoed }, "client \(outage.client) after its return")
            // Parked while away: nothing was due to it between the drop and its return.
            #expect(!messages.contains { $0.client == outage.client && $0.scheduled > outage.closed && $0.scheduled < outage.back })
        }
        // Closed loop: at most the one message each client waited for was lost in the drop.
        #expect(messages.filter { $0.outcome != .echoed }.count <= 3)
    }

    /// Open-loop roundtrip: without `--offline-queue` the messages due while a client is away are lost; with it they
    /// wait, go when it is back, and their rtt counts from when they fell due (the wait included).
    @Test(arguments: [false, true])
    func messagesDueWhileAwayAreLostOrWaitWithTheOfflineQueue(offlineQueue: Bool) throws {
        var configuration = RunConfiguration(scenario: .roundtrip, seed: 9)
        configuration.clients = 3
        configuration.messages = 200
        configuration.warmup = 0
        configuration.interval = 5_000_000
        configuration.arrival = .fixed
        configuration.dropConnectionsAt = 300_000_000
        configuration.reconnect = ReconnectBackoff(base: 50_000_000, maximum: 200_000_000, tries: 10)
        configuration.offlineQueue = offlineQueue
        let files = try RunFiles.run(configuration)
        #expect(files.settings["status"] == "complete")
        let outages = try files.table("reconnects.csv")
        try #require(outages.count == 3)
        var away = 0
        for outage in outages {
            let client = outage.int("client")!
            let closed = outage.int("closed_ns")!, back = closed + outage.int("reconnect_ns")!
            let due = files.samples.filter {
                $0.int("client") == client && $0.int("scheduled_ns")! > closed + 1_000_000 && $0.int("scheduled_ns")! < back
            }
            away += due.count
            for row in due {
                if offlineQueue {
                    #expect(row["lost"] == "0", "\(row)")
                    if row.int("sent_ns") == row.int("scheduled_ns") {
                        // Held, and sent once the client was back, stamped with when it fell due: the rtt holds the wait.
                        #expect(row.int("rtt_ns")! >= back - row.int("scheduled_ns")!)
                    } else {
                        // Its turn came only after the server had read the client's hello (on a busy machine the
                        // timetable's timer and the hello can be read in one pass, the hello first): sent then, as any
                        // message late for its turn, the lateness in lag.
                        #expect(row.int("sent_ns")! >= back, "\(row), back at \(back)")
                    }
                } else {
                    #expect(row["lost"] == "1" && row["outcome"] == "dropped_closed", "\(row)")
                }
            }
        }
        #expect(away >= 3 * 4, "each client missed at least its 20 ms of 5 ms sends")
        #expect(files.samples.count == 3 * 200)
    }

    @Test func aReturningClientMustShowTheTokenAndCannotTakeAnIdStillConnected() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 5)
        configuration.clients = 2
        configuration.localClientRange = 0..<1
        configuration.messages = 150
        configuration.warmup = 0
        configuration.interval = 10_000_000
        configuration.timeout = 200_000_000
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        let run = try BackgroundRun(configuration)
        let first = try RawPeer(port: run.port())
        first.sayHello(as: 1, token: configuration.token)
        run.waitUntilRunning()
        let intruder = try RawPeer(port: run.port())
        intruder.sayHello(as: 1, token: configuration.token)
        #expect(intruder.serverCloses(), "client 1 is still connected")
        first.close()
        let impostor = try RawPeer(port: run.port())
        impostor.sayHello(as: 1, token: configuration.token &+ 1)
        #expect(impostor.serverCloses(), "a hello without the run's token")
        let returning = try RawPeer(port: run.port())
        returning.sayHello(as: 1, token: configuration.token)
        let frame = try #require(returning.receiveFrame(size: configuration.payload))
        returning.echo(frame) { $0 + 1 }
        let recording = try run.finish()
        returning.close()
        let outage = try #require(recording.outages.first)
        #expect(recording.outages.count == 1 && outage.client == 1 && outage.back > outage.closed)
        let reasons = recording.connectionEvents.map(\.reason)
        #expect(reasons.contains("said hello as client 1, which is already connected"))
        #expect(reasons.contains("said hello as client 1 without this run's token"))
    }
}

/// One client with `--reconnect` against a hand-driven listener: it comes back after a close, never after a goodbye.
@Suite(.timeLimit(.minutes(10))) struct EchoClientReconnectTests {
    /// Accepts one connection within `seconds` (nil if none came) and reads its hello.
    private func acceptHello(on listener: Int32, within seconds: Double) throws -> (Int32, Frame.Hello)? {
        let deadline = MonotonicClock.now() + UInt64(seconds * 1e9)
        while MonotonicClock.now() < deadline {
            guard let socket = try TCPSocket.accept(from: listener) else {
                usleep(1_000)
                continue
            }
            let fd = socket.relinquish()
            try Posix.setNonBlocking(fd, false)
            var hello = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
            let count = hello.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_WAITALL)) }
            guard count == hello.count else { return (fd, Frame.Hello(client: .max, token: 0)) }
            let fields = hello.withUnsafeMutableBytes { bytes in
                let frame = Frame(kind: .hello, bytes: bytes)
                return Frame.Hello(client: frame.helloClient, token: frame.helloToken)
            }
            return (fd, fields)
        }
        return nil
    }

    @Test(arguments: [false, true])
    func aClientComesBackAfterADropButNotAfterTheServersGoodbye(saysGoodbye: Bool) throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let configuration = oneReconnectingClient(every: 10_000_000, tries: 3)
        let control = try RunControl()
        let thread = try startEchoClients(configuration, address: address, control: control)
        let (first, hello) = try #require(try acceptHello(on: listener, within: 5))
        #expect(hello == Frame.Hello(client: 0, token: configuration.token))
        if saysGoodbye {
            var goodbye = [UInt8](repeating: 0, count: WireFormat.heartbeatFrameSize)
            goodbye.withUnsafeMutableBytes { _ = Frame.encodeGoodbye(into: $0, client: 0) }
            _ = goodbye.withUnsafeBytes { send(first, $0.baseAddress, $0.count, 0) }
        }
        Posix.close(first)
        let again = try acceptHello(on: listener, within: 0.5)
        if let again {
            #expect(again.1 == Frame.Hello(client: 0, token: configuration.token), "the same client, the same token")
            Posix.close(again.0)
        }
        #expect((again != nil) == !saysGoodbye)
        control.clientsWake.notify()
        let reconnects = thread.join()?.reconnects ?? -1
        #expect(saysGoodbye ? reconnects == 0 : reconnects >= 1)
    }
}

extension Frame {
    /// A hello's fields, to compare.
    fileprivate struct Hello: Equatable {
        let client: UInt32
        let token: UInt64
    }
}
