@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Synchronization
import Testing

@testable import BenchScenarios

/// What comes over a fan-out target run's channel from a subscribers' child process is checked as a peer's would be:
/// a child that goes, or sends what is not its own, fails the setup at once with the reason; times that cannot be
/// true are lost as `invalid_timestamp`, never measured. The "child" here is a thread of the test at the other end.
@Suite(.timeLimit(.minutes(10))) struct ClientGroupChannelAttackTests {
    enum Child: Sendable {
        case goesAtOnce, reportsAnotherClient, sendsAnUnknownKind, sendsABuiltInEcho, reportsPhasesThatDoNotRead,
            reportsNoPhases, reportsPhasesThatDoNotAddUp
    }

    @Test(arguments: [
        (Child.goesAtOnce, "their thread, process or agent ended"),
        (.reportsAnotherClient, "does not fit"),
        (.sendsAnUnknownKind, "does not fit"),
        // An echo is a built-in client's answer to the built-in server; a group's read is a read report (kind 16).
        (.sendsABuiltInEcho, "an echo frame"),
        (.reportsPhasesThatDoNotRead, "a subscribed report whose connect phases do not read"),
        (.reportsNoPhases, "a subscribed report whose connect phases do not read"),
        (.reportsPhasesThatDoNotAddUp, "do not add up to its connect time"),
    ])
    func aChildThatGoesOrLiesBeforeTheRunFailsTheSetupAtOnce(child: Child, reason: String) throws {
        let outcome = try Self.run { theirs in
            switch child {
            case .goesAtOnce: break
            case .reportsAnotherClient: Self.send(ClientReport(.subscribed, client: 99, time: 1), on: theirs)
            case .reportsPhasesThatDoNotRead:
                Self.send(ClientReport(.subscribed, client: 0, time: 1, text: "1,2,3,99999999999999"), on: theirs)
            case .reportsNoPhases: Self.send(ClientReport(.subscribed, client: 0, time: 1_000), on: theirs)
            case .reportsPhasesThatDoNotAddUp:
                Self.send(ClientReport(.subscribed, client: 0, time: 1_000, text: "100,0,0,5"), on: theirs)
            case .sendsAnUnknownKind: _ = try? Posix.sendAll(theirs, [0, 0, 0, 4, 200, 0, 0, 0])
            case .sendsABuiltInEcho:
                var echo = [UInt8](repeating: 0, count: WireFormat.minimumMessageSize)
                echo.withUnsafeMutableBytes {
                    _ = Frame.encodeMessage(
                        into: $0, kind: .echo, sequence: 0, client: 0, sentNanoseconds: 0, receivedNanoseconds: 1)
                }
                _ = try? Posix.sendAll(theirs, echo)
            }
        }
        guard case .failure(.setupFailed(let text))? = outcome.result else {
            Issue.record("expected a setup failure, got \(String(describing: outcome.result))")
            return
        }
        #expect(text.contains(reason), "\(text)")
        #expect(outcome.seconds < 10, "at once, not at the 20 s setup timeout: \(outcome.seconds) s")
    }

    /// Receive times before the broadcast was published, or after they were read, cannot be true.
    @Test func receiveTimesThatCannotBeTrueAreLostNotMeasured() throws {
        let outcome = try Self.run(warmup: 0) { theirs in
            for client in UInt32(0)..<2 { Self.send(Self.subscribed(client), on: theirs) }
            // Each broadcast "received" by subscriber 0 at time 1 (long before t0), by subscriber 1 an hour from now.
            for sequence in UInt32(0)..<10 {
                usleep(30_000)
                var frames = [UInt8](repeating: 0, count: 2 * WireFormat.minimumMessageSize)
                frames.withUnsafeMutableBytes { buffer in
                    let half = WireFormat.minimumMessageSize
                    Frame.encodeMessage(
                        into: .init(rebasing: buffer[0..<half]), kind: .read, sequence: sequence, client: 0,
                        sentNanoseconds: 0, receivedNanoseconds: 1)
                    Frame.encodeMessage(
                        into: .init(rebasing: buffer[half...]), kind: .read, sequence: sequence, client: 1,
                        sentNanoseconds: 0, receivedNanoseconds: MonotonicClock.now() + 3_600_000_000_000)
                }
                guard (try? Posix.sendAll(theirs, frames)) != nil else { return }
            }
            var byte: UInt8 = 0
            _ = read(theirs, &byte, 1)  // until the run closes its end
        }
        let recording = try TargetAttackTests.expectRecording(outcome)
        #expect(!recording.ledger.outcome.contains(.echoed), "\(TargetAttackTests.tally(recording))")
        #expect(recording.ledger.outcome.contains(.invalidTimestamp), "\(TargetAttackTests.tally(recording))")
    }

    /// A return is stamped by its group when the server confirmed it (a tcp:// return at the server's first word, often
    /// the broadcast after its subscription), and the measuring thread hears of it a moment later: a broadcast sent
    /// after the subscription went out is the subscriber's to receive, not lost to it at once. Here, once broadcasts
    /// flow, subscriber 1 closes; its return, stamped 300 ms after the close with a 100 ms subscribe phase (its
    /// subscription went out 200 ms after the close), comes 400 ms after it. The broadcasts of the first 200 ms went
    /// while it was away (dropped with its connection); those after its subscription are its own (here, with nothing
    /// read, lost by their timeout). Before, each was dropped as closed: lost to a subscriber that was back.
    @Test func aBroadcastSentAfterAReturnsSubscriptionIsTheSubscribersToReceive() throws {
        let closed = Atomic<UInt64>(0)
        let broadcasting = DispatchSemaphore(value: 0)
        let outcome = try Self.run(warmup: 2, returns: true, serverHeard: broadcasting) { theirs in
            for client in UInt32(0)..<2 { Self.send(Self.subscribed(client), on: theirs) }
            guard broadcasting.wait(timeout: .now() + 30) == .success else { return }
            let time = MonotonicClock.now()
            closed.store(time, ordering: .relaxed)
            Self.send(ClientReport(.closed, client: 1, time: time, text: "closed by the test"), on: theirs)
            usleep(400_000)
            let phases = ConnectPhases(tcp: 1_000, tls: 0, webSocket: 0, subscribe: 100_000_000).text
            Self.send(ClientReport(.returned, client: 1, time: time + 300_000_000, text: phases), on: theirs)
            var byte: UInt8 = 0
            _ = read(theirs, &byte, 1)  // until the run closes its end
        }
        let recording = try TargetAttackTests.expectRecording(outcome)
        let away = closed.load(ordering: .relaxed)
        let subscribedAgain = away + 200_000_000
        let ledger = recording.ledger
        let starts = ledger.broadcastStart
        let fate = { (broadcast: Int) in ledger.outcome[broadcast * ledger.columns + 1] }
        let whileAway = starts.indices.filter { starts[$0] > away && starts[$0] < subscribedAgain }
        let afterItsSubscription = starts.indices.filter { starts[$0] > subscribedAgain && starts[$0] < away + 400_000_000 }
        #expect(!whileAway.isEmpty && !afterItsSubscription.isEmpty, "broadcasts went in both: \(starts)")
        #expect(whileAway.allSatisfy { fate($0) == .droppedClosed }, "\(whileAway.map(fate))")
        #expect(afterItsSubscription.allSatisfy { fate($0) == .timedOut }, "subscriber 1's: \(afterItsSubscription.map(fate))")
        #expect(recording.outages.count == 1 && recording.outagesBack == 1, "\(recording.outages)")
    }

    /// A fan-out run of 2 subscribers through a server that only reads, whose one child is `child` (a thread of the
    /// test given its end of the channel once it has read its share; its end is closed when it returns).
    /// With `returns`, its subscribers may come back (`--reconnect`), 40 broadcasts go every 20 ms and what is not
    /// read is lost after 2 s; `serverHeard` is signalled once the server has the first of them.
    static func run(
        warmup: Int = 2, returns: Bool = false, serverHeard: DispatchSemaphore? = nil,
        child: @escaping @Sendable (Int32) -> Void
    ) throws -> TargetAttackTests.Outcome {
        let server = try HostileServer { connection in
            if connection.receive() != nil { serverHeard?.signal() }
            while connection.receive() != nil {}
        }
        defer { server.stop() }
        let (mine, theirs) = try Posix.socketPair()
        let ours = SharedDescriptor(owning: mine, owner: "the test's channel")
        defer { ours.close() }
        var configuration = try TargetAttackTests.fanout("tcp://127.0.0.1:\(server.port)", subscribers: 2)
        configuration.changeTarget { $0.framing = .line }
        configuration.warmup = warmup
        if returns {
            configuration.reconnect = ReconnectBackoff(base: 50_000_000, maximum: 400_000_000, tries: 10)
            (configuration.messages, configuration.arrival, configuration.timeout) = (40, .fixed, 2_000_000_000)
        }
        configuration.clientGroupChannels = [ChildChannel(end: ours, processID: 0)]
        let fake = Thread {
            defer { Posix.close(theirs) }
            if Self.readShare(theirs) { child(theirs) }
        }
        fake.start()
        return TargetAttackTests.run(configuration, within: 60)
    }

    /// Reads the welcome and the client spec the run sends first; false when they do not come.
    static func readShare(_ socket: Int32) -> Bool {
        guard let welcome = try? AgentRunner.readWelcome(socket, what: "welcome", whenClosed: "closed"),
            welcome.clients == 2, (try? AgentRunner.readClientSpec(socket))?.target != nil
        else { return false }
        return true
    }

    /// Client `client`'s subscribed report as a group sends it: a connect of 1 µs, all of it TCP, and 5 µs to subscribe.
    static func subscribed(_ client: UInt32) -> ClientReport {
        ClientReport(.subscribed, client: client, time: 1_000, text: ConnectPhases(tcp: 1_000, tls: 0, webSocket: 0, subscribe: 5_000).text)
    }

    static func send(_ report: ClientReport, on socket: Int32) {
        var bytes = [UInt8](repeating: 0, count: WireFormat.clientReportMaximumSize)
        let size = bytes.withUnsafeMutableBytes { report.encode(into: $0) }
        _ = try? Posix.sendAll(socket, Array(bytes.prefix(size)))
    }
}
