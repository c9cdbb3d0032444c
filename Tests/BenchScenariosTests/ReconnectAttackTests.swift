@testable import BenchClients
import BenchCore
import BenchNet
import Glibc
import Testing

@testable import BenchScenarios

/// Attacks on `--drop-connections-at` and `--reconnect`: each test is a bug that was found, kept as a regression test.
@Suite(.timeLimit(.minutes(10))) struct ReconnectAttackTests {
    /// Closed-loop fanout: while every client is away, a broadcast has nobody to go to and nobody to wait for. Before
    /// the fix the server kept sending them on every wake-up of its loop (with `--busy-poll`: hundreds during a 50 ms
    /// outage), each one counted lost for every client: the lost count measured the loop's speed, not the outage.
    /// Like closed-loop roundtrip's parked clients, nothing is sent until a client is back.
    ///
    /// No busy polling: the server's loop wakes often enough while everyone is away (its housekeeping) for the old code
    /// to send to nobody, and two spinning threads would starve the suites running beside this one. The drop comes
    /// 10 ms into a run of 5,000 round trips, which no machine finishes that soon. Once one client is back the rest of
    /// the run may finish before the others return (a loaded machine), so only the first return is asked for.
    @Test func closedLoopFanoutSendsNoBroadcastWhileEveryClientIsAway() throws {
        var configuration = RunConfiguration(scenario: .fanout, seed: 21)
        configuration.clients = 3
        configuration.messages = 5_000
        configuration.warmup = 0
        configuration.interval = 0
        configuration.heartbeat = 0
        configuration.deadAfter = 0
        configuration.dropConnectionsAt = 10_000_000
        configuration.reconnect = ReconnectBackoff(base: 60_000_000, maximum: 60_000_000, tries: 5)
        let recording = try ScenarioRunner.run(configuration, control: RunControl())
        #expect(recording.status == .complete)
        #expect(recording.outages.count == 3, "every client was dropped once")
        #expect(recording.outages.contains { $0.back > $0.closed }, "a client came back, so sending went on")
        var sentToNobody = 0
        for sequence in 0..<configuration.sequencesPerClient {
            let outcomes = (0..<configuration.clients).map {
                recording.ledger.outcome[recording.ledger.messageIndex(sequence: sequence, client: $0)]
            }
            if outcomes.allSatisfy({ $0 == .droppedClosed }) { sentToNobody += 1 }
        }
        #expect(sentToNobody == 0, "\(sentToNobody) broadcasts went out while no client was connected")
    }
}

/// One client with `--reconnect` against a hand-driven listener that takes every returning connection, reads its hello
/// and closes it at once (a server that refuses the hello: its id taken over meanwhile, a proxy in front of a server
/// that is down). Each refusal was counted as a fresh drop: the attempt went back to 0, so the backoff never grew and
/// `--reconnect-tries` never ran out: the client hammered the server every `--reconnect-base` for the rest of the run.
/// A returning hello counts as a success only once the server sends something on that connection.
@Suite(.timeLimit(.minutes(10))) struct EchoClientRefusedHelloTests {
    @Test func aClientWhoseReturningHelloIsRefusedGivesUpAfterItsTries() throws {
        let (listener, address) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
        defer { Posix.close(listener) }
        let configuration = oneReconnectingClient(every: 5_000_000, tries: 3)
        let control = try RunControl()
        let thread = try startEchoClients(configuration, address: address, control: control)
        // Accept and close every connection for 1.5 s (its hello read first, when it comes).
        var hellos = 0
        let deadline = MonotonicClock.now() + 1_500_000_000
        while MonotonicClock.now() < deadline {
            guard let socket = try TCPSocket.accept(from: listener) else {
                usleep(1_000)
                continue
            }
            let fd = socket.relinquish()
            try Posix.setNonBlocking(fd, false)
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var hello = [UInt8](repeating: 0, count: WireFormat.helloFrameSize)
            let count = hello.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_WAITALL)) }
            if count == hello.count { hellos += 1 }
            Posix.close(fd)
        }
        control.clientsWake.notify()
        let report = try #require(thread.join())
        // The first hello, then at most 3 tries (each at most 5 ms apart): not one every few milliseconds for 1.5 s.
        #expect(hellos <= 4, "\(hellos) hellos in 1.5 s with --reconnect-tries 3")
        #expect(report.gaveUp == 1)
    }
}
