@testable import BenchClients
import BenchCore
import Testing
import BenchProtocols

@testable import BenchScenarios

/// A chat message in the one ledger, by its events alone: one broadcast per sender and sequence, one message per other
/// member of the sender's room; its t0 the sender's write (as the sender's client reported it), its entries handed on
/// sender by sender with the broadcast after its messages.
@Suite struct MessageLedgerChatTests {
    typealias Stamps = MessageLedger.EchoStamps

    /// 6 clients in 2 rooms of 3 (dealt by seed 5), 3 messages each, a timeout of 1,000 ns, open loop.
    private func ledger() -> (MessageLedger, ChatRooms) {
        var configuration = RunConfiguration(scenario: .chat, seed: 5)
        configuration.clients = 6
        configuration.chatRooms = ChatRoomPlan(rooms: 2)
        configuration.messages = 3
        configuration.warmup = 0
        configuration.timeout = 1_000
        configuration.timestamps = .user
        return (MessageLedger(configuration: configuration, window: 2), ChatRooms(clients: 6, plan: ChatRoomPlan(rooms: 2), seed: 5))
    }

    /// `sender`'s message `sequence` ordered at `time`: in flight to the other members of its room.
    private func send(_ sequence: Int, from sender: Int, at time: UInt64, in ledger: inout MessageLedger) {
        ledger.due(broadcast: sequence, sender: sender, at: time)
        ledger.broadcastBegan(sequence, sender: sender, at: time)
        for index in ledger.messages(ofBroadcast: sequence, sender: sender) { ledger.written(index, at: time) }
    }

    private func others(of client: Int, in rooms: ChatRooms) -> [Int] {
        rooms.members(ofRoom: Int(rooms.roomOfClient[client])).map(Int.init).filter { $0 != client }
    }

    @Test func eachOtherMemberOfTheRoomHasOneMessageAndNobodyElse() {
        var (ledger, rooms) = ledger()
        #expect(ledger.columns == 6 * 2 && ledger.senders == 6)
        send(0, from: 0, at: 1_000, in: &ledger)
        let members = others(of: 0, in: rooms)
        #expect(ledger.messages(ofBroadcast: 0, sender: 0).map(ledger.receiver(ofMessage:)) == members)
        for member in members {
            let action = ledger.delivered(sequence: 0, sender: 0, member: member, Stamps(received: 1_300, arrival: 1_400))
            guard case .measured = action else {
                Issue.record("\(member): \(action)")
                return
            }
        }
        let stranger = (0..<6).first { $0 != 0 && !members.contains($0) }!
        #expect(
            ledger.delivered(sequence: 0, sender: 0, member: stranger, Stamps(received: 1_300, arrival: 1_400))
                == .notSent(sequence: 0, client: stranger, inRing: false), "outside the sender's room")
        #expect(
            ledger.delivered(sequence: 0, sender: 0, member: 0, Stamps(received: 1_300, arrival: 1_400))
                == .notSent(sequence: 0, client: 0, inRing: false), "the sender is no receiver of its own message")
        #expect(
            ledger.delivered(sequence: 0, sender: 0, member: members[0], Stamps(received: 1_300, arrival: 1_400)) == .duplicate)
        #expect(
            ledger.delivered(sequence: 0, sender: members[0], member: 0, Stamps(received: 1_300, arrival: 1_400))
                == .notSent(sequence: 0, client: 0, inRing: true), "a message never sent")
    }

    /// The client's reported write becomes t0 of every delivery; one before the order or after its report is a lie.
    @Test func theSendersReportedWriteIsT0AndALieLosesEveryDelivery() {
        var (ledger, rooms) = ledger()
        send(0, from: 2, at: 1_000, in: &ledger)
        var settled: [Int] = []
        #expect(ledger.writeReported(broadcast: 0, sender: 2, at: 1_050, arrival: 1_100) { settled.append($0) } == .taken)
        #expect(ledger.broadcastStart[ledger.broadcastIndex(sequence: 0, sender: 2)] == 1_050)
        #expect(ledger.messages(ofBroadcast: 0, sender: 2).allSatisfy { ledger.written[$0] == 1_050 })
        // In time is judged from the reported write: 1,050 + 1,000.
        let late = others(of: 2, in: rooms)[0]
        #expect(
            ledger.delivered(sequence: 0, sender: 2, member: late, Stamps(received: 2_051, arrival: 2_100))
                == .late(message: ledger.messages(ofBroadcast: 0, sender: 2).lowerBound, settled: true))
        send(0, from: 3, at: 1_000, in: &ledger)
        #expect(ledger.writeReported(broadcast: 0, sender: 3, at: 999, arrival: 1_100) { settled.append($0) } == .implausible(settled: true))
        #expect(settled == Array(ledger.messages(ofBroadcast: 0, sender: 3)))
        #expect(ledger.messages(ofBroadcast: 0, sender: 3).allSatisfy { ledger.outcome[$0] == .invalidTimestamp })
    }

    /// Through a server that sends the sender its own copy (NATS here): the copy is the message's round trip, kept
    /// for its entry; the row waits for it up to the timeout; a copy before the write, twice, or of nothing is no rtt.
    @Test func theSendersOwnCopyIsItsRoundTripAndTheRowWaitsForIt() throws {
        var configuration = RunConfiguration(scenario: .chat, seed: 5)
        (configuration.clients, configuration.chatRooms, configuration.messages, configuration.warmup) = (6, ChatRoomPlan(rooms: 2), 3, 0)
        (configuration.timeout, configuration.timestamps, configuration.interval) = (1_000, .user, 1_000_000)
        configuration.role = .target(TargetSettings(try TargetURL("nats://127.0.0.1:4222/chat")), agentToken: nil)
        var ledger = MessageLedger(configuration: configuration, window: 2)
        let rooms = ChatRooms(clients: 6, plan: ChatRoomPlan(rooms: 2), seed: 5)
        for sender in 0..<6 {
            send(0, from: sender, at: 1_000, in: &ledger)
            for member in others(of: sender, in: rooms) {
                _ = ledger.delivered(sequence: 0, sender: sender, member: member, Stamps(received: 1_100, arrival: 1_200))
            }
        }
        #expect(ledger.ownCopy(sequence: 0, sender: 0, Stamps(received: 1_150, arrival: 1_200)) == .measured)
        #expect(ledger.ownCopy(sequence: 0, sender: 0, Stamps(received: 1_160, arrival: 1_200)) == .duplicate)
        #expect(ledger.ownCopy(sequence: 0, sender: 1, Stamps(received: 2_001, arrival: 2_100)) == .late)
        if case .unexpected = ledger.ownCopy(sequence: 0, sender: 2, Stamps(received: 999, arrival: 1_200)) {} else {
            Issue.record("a copy read before its write is no round trip")
        }
        if case .unexpected = ledger.ownCopy(sequence: 1, sender: 2, Stamps(received: 1_100, arrival: 1_200)) {} else {
            Issue.record("a copy of a message never sent is no round trip")
        }
        var entries: [SettledMessage] = []
        ledger.flush(at: 1_500, ending: false) { entries.append($0) }
        #expect(entries.isEmpty, "senders 2 to 5 may still get theirs until 2,000 ns")
        ledger.flush(at: 2_000, ending: false) { entries.append($0) }
        let messages = entries.filter { $0.kind == .broadcast }
        #expect(messages.map(\.echoed) == [1_150, 0, 0, 0, 0, 0])
    }

    /// A member's read may be reported before its sender's write (another thread's report): t0 still moves to the
    /// write; a write after a member's read cannot be true.
    @Test func aReadReportedBeforeTheWriteStillGetsTheWriteAsT0() {
        var (ledger, rooms) = ledger()
        send(0, from: 4, at: 1_000, in: &ledger)
        let first = others(of: 4, in: rooms)[0]
        _ = ledger.delivered(sequence: 0, sender: 4, member: first, Stamps(received: 1_300, arrival: 1_400))
        #expect(ledger.writeReported(broadcast: 0, sender: 4, at: 1_100, arrival: 1_500) { _ in } == .taken)
        #expect(ledger.broadcastStart[ledger.broadcastIndex(sequence: 0, sender: 4)] == 1_100)
        #expect(ledger.messages(ofBroadcast: 0, sender: 4).allSatisfy { ledger.written[$0] == 1_100 })
        send(0, from: 5, at: 1_000, in: &ledger)
        _ = ledger.delivered(sequence: 0, sender: 5, member: others(of: 5, in: rooms)[0], Stamps(received: 1_200, arrival: 1_400))
        var settled: [Int] = []
        #expect(ledger.writeReported(broadcast: 0, sender: 5, at: 1_250, arrival: 1_500) { settled.append($0) } == .implausible(settled: true))
        #expect(settled.count == 1, "the delivery still open is lost; the one read stays as it was")
    }

    /// Handed on sender by sender: each one's deliveries, then its message's entry; a member gone loses what it owed.
    @Test func rowsAreHandedOnPerSenderAndAGoneMemberLosesItsDeliveries() {
        var (ledger, rooms) = ledger()
        for sender in 0..<6 { send(0, from: sender, at: 1_000, in: &ledger) }
        var gone: [Int] = []
        ledger.clientGone(1) { gone.append($0) }
        #expect(gone.count == 2 && gone.allSatisfy { ledger.receiver(ofMessage: $0) == 1 })
        for sender in 0..<6 {
            for member in others(of: sender, in: rooms) where member != 1 {
                _ = ledger.delivered(sequence: 0, sender: sender, member: member, Stamps(received: 1_200 + UInt64(member), arrival: 1_900))
            }
        }
        var entries: [SettledMessage] = []
        ledger.flush(at: 1_900, ending: false) { entries.append($0) }
        #expect(entries.count == 6 * 2 + 6, "12 deliveries and 6 messages")
        for sender in 0..<6 {
            let block = entries[(sender * 3)..<(sender * 3 + 3)]
            #expect(block.prefix(2).allSatisfy { $0.kind == .message && $0.sender == sender })
            #expect(Set(block.prefix(2).map(\.client)) == Set(others(of: sender, in: rooms)))
            #expect(block.last!.kind == .broadcast && block.last!.sender == sender && block.last!.broadcastStart == 1_000)
        }
        let lost = entries.filter { $0.kind == .message && !$0.outcome.isMeasurement }
        #expect(lost.count == 2 && lost.allSatisfy { $0.client == 1 && $0.outcome == .writtenThenClosed })
    }
}
