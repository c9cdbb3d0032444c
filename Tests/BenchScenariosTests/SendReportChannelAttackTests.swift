@testable import BenchClients
import BenchCore
import BenchNet
import Foundation
import Testing

@testable import BenchScenarios

/// A roundtrip target run's clients in a child process are ordered to send each message over their channel and report
/// what became of it. The "child" here is a thread of the test at the other end of the channel: told honestly, the
/// run measures rtt = the echo's read − the write from the reports alone; told what cannot be true (a write before its
/// order, an echo before its write or from the future, a report of a client not its own), nothing is measured from it.
@Suite(.timeLimit(.minutes(10))) struct SendReportChannelAttackTests {
    enum Child: Sendable {
        /// Writes each message 1 µs after its order came, and reads its echo 50 µs later.
        case honest
        /// Says each message was written at time 1, long before it was ordered.
        case writesBeforeTheOrder
        /// Writes honestly; the echo comes before the write (client 0) or an hour from now (client 1).
        case echoesBeforeTheWriteOrInTheFuture
        /// Reports a send of a client it does not carry.
        case reportsAnotherClient
    }

    @Test func anHonestChildsReportsAreMeasuredAsItStampedThem() throws {
        let recording = try TargetAttackTests.expectRecording(try Self.run(.honest))
        #expect(recording.ledger.outcome.allSatisfy { $0 == .echoed }, "\(TargetAttackTests.tally(recording))")
        #expect(recording.ledger.outcome.count >= 2 * Self.messages)
        for index in recording.ledger.outcome.indices {
            #expect(recording.ledger.echoed[index] - recording.ledger.written[index] == 50_000, "rtt as the child stamped it")
            #expect(recording.ledger.written[index] >= recording.ledger.scheduled[index])
        }
    }

    @Test(arguments: [Child.writesBeforeTheOrder, .echoesBeforeTheWriteOrInTheFuture])
    func timesThatCannotBeTrueAreLostNotMeasured(_ child: Child) throws {
        let recording = try TargetAttackTests.expectRecording(try Self.run(child))
        #expect(!recording.ledger.outcome.contains(.echoed), "\(TargetAttackTests.tally(recording))")
        #expect(recording.ledger.outcome.contains(.invalidTimestamp), "\(TargetAttackTests.tally(recording))")
    }

    @Test func aReportOfAClientNotItsOwnEndsTheChannelAndItsClientsAreLost() throws {
        let recording = try TargetAttackTests.expectRecording(try Self.run(.reportsAnotherClient))
        #expect(!recording.ledger.outcome.contains(.echoed), "\(TargetAttackTests.tally(recording))")
        #expect(recording.connectionEvents.contains { $0.reason.contains("does not fit") }, "\(recording.connectionEvents.map(\.reason))")
    }

    static let messages = 5

    /// A closed-loop roundtrip of 2 clients through a server that only reads, both carried by `child`.
    static func run(_ child: Child) throws -> TargetAttackTests.Outcome {
        let server = try HostileServer { connection in while connection.receive() != nil {} }
        defer { server.stop() }
        let (mine, theirs) = try Posix.socketPair()
        let ours = SharedDescriptor(owning: mine, owner: "the test's channel")
        defer { ours.close() }
        var configuration = try TargetAttackTests.roundtrip("tcp://127.0.0.1:\(server.port)", clients: 2, messages: messages)
        configuration.timestamps = .user
        configuration.timeout = 2_000_000_000
        configuration.clientGroupChannels = [ChildChannel(end: ours, processID: 0)]
        let fake = Thread {
            defer { Posix.close(theirs) }
            guard ClientGroupChannelAttackTests.readShare(theirs) else { return }
            for client in UInt32(0)..<2 {
                ClientGroupChannelAttackTests.send(ClientGroupChannelAttackTests.subscribed(client), on: theirs)
            }
            Self.answerOrders(on: theirs, as: child)
        }
        fake.start()
        return TargetAttackTests.run(configuration, within: 60)
    }

    /// Reads orders (data frames) until the run closes the channel and answers each as `child` would.
    static func answerOrders(on socket: Int32, as child: Child) {
        var decoder = FrameDecoder(maximumFrameSize: WireFormat.minimumMessageSize)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(socket, $0.baseAddress!, $0.count) }
            guard count > 0 else { return }
            var replies: [UInt8] = []
            buffer.withUnsafeMutableBytes { bytes in
                _ = try? decoder.decode(.init(rebasing: bytes[0..<count])) { frame in
                    replies += answer(sequence: frame.sequence, client: frame.client, as: child)
                    return true
                }
            }
            guard (try? Posix.sendAll(socket, replies)) != nil else { return }
        }
    }

    static func answer(sequence: UInt32, client: UInt32, as child: Child) -> [UInt8] {
        let written = MonotonicClock.now() + 1_000
        usleep(100)  // so that every time below is in the past when the run reads it
        var echo = [UInt8](repeating: 0, count: WireFormat.minimumMessageSize)
        var received = written + 50_000
        if child == .echoesBeforeTheWriteOrInTheFuture { received = client == 0 ? written - 1 : written + 3_600_000_000_000 }
        _ = echo.withUnsafeMutableBytes {
            Frame.encodeMessage(into: $0, kind: .read, sequence: sequence, client: client, sentNanoseconds: 0, receivedNanoseconds: received)
        }
        let report = SendReport(
            .written, sequence: sequence, client: child == .reportsAnotherClient ? client + 7 : client,
            time: child == .writesBeforeTheOrder ? 1 : written)
        var bytes = [UInt8](repeating: 0, count: SendReport.size)
        bytes.withUnsafeMutableBytes { report.encode(into: $0) }
        return bytes + echo
    }
}
