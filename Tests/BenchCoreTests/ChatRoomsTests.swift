import BenchCore
import Foundation
import Testing

/// Rooms dealt from the seed, and a chat round's deliveries as columns: checked against what is derived here by hand.
@Suite struct ChatRoomsTests {
    /// Every client in exactly one room, at its place among the room's ascending members.
    private func expectConsistent(_ rooms: ChatRooms, clients: Int) {
        #expect(rooms.members.count == clients)
        #expect(Set(rooms.members.map(Int.init)) == Set(0..<clients), "every client dealt once")
        for room in 0..<rooms.rooms {
            let members = Array(rooms.members(ofRoom: room))
            #expect(members == members.sorted())
            for (place, member) in members.enumerated() {
                #expect(rooms.roomOfClient[Int(member)] == Int32(room))
                #expect(rooms.placeInRoom[Int(member)] == Int32(place))
            }
        }
    }

    @Test func uniformRoomsDifferByAtMostOneAndTheSeedRepeatsTheDeal() {
        let plan = ChatRoomPlan(rooms: 7)
        let rooms = ChatRooms(clients: 100, plan: plan, seed: 42)
        expectConsistent(rooms, clients: 100)
        let sizes = (0..<7).map(rooms.size(ofRoom:))
        #expect(sizes == [15, 15, 14, 14, 14, 14, 14])
        #expect(ChatRooms(clients: 100, plan: plan, seed: 42) == rooms, "the same seed deals the same rooms")
        #expect(ChatRooms(clients: 100, plan: plan, seed: 43) != rooms, "another seed deals others")
        #expect(Array(rooms.members(ofRoom: 0)) != Array(0..<15).map(Int32.init), "dealt at random, not in id order")
    }

    @Test func zipfRoomsShrinkFromTheFirstAndKeepTwoMembersEach() {
        let plan = ChatRoomPlan(rooms: 50, sizes: .zipf(1.2))
        let sizes = ChatRooms.sizes(clients: 1_000, plan: plan)
        #expect(sizes.reduce(0, +) == 1_000)
        #expect(sizes.allSatisfy { $0 >= 2 })
        #expect(sizes == sizes.sorted(by: >), "room r's share falls with r")
        #expect(sizes[0] > 10 * sizes[49], "a few huge rooms and a long tail: \(sizes[0]) vs \(sizes[49])")
        // Room 0's share of what is left after 2 each, by hand: 1 / Σ (r+1)^-1.2.
        let total = (1...50).reduce(0.0) { $0 + pow(Double($1), -1.2) }
        #expect(abs(Double(sizes[0] - 2) - 900 / total) < 1)
        expectConsistent(ChatRooms(clients: 1_000, plan: plan, seed: 1), clients: 1_000)
        #expect(plan.deliveriesPerRound(clients: 1_000) == sizes.reduce(0) { $0 + $1 * ($1 - 1) })
    }

    @Test func aRoomOfOneIsRefusedAndSizesParse() {
        #expect(ChatRoomPlan(rooms: 6).refusal(clients: 11) != nil)
        #expect(ChatRoomPlan(rooms: 6).refusal(clients: 12) == nil)
        #expect(ChatRoomPlan(rooms: 0).refusal(clients: 12) != nil)
        #expect(ChatRoomPlan.sizes(parsing: "uniform") == .uniform)
        #expect(ChatRoomPlan.sizes(parsing: "zipf:1.5") == .zipf(1.5))
        for bad in ["zipf", "zipf:", "zipf:0", "zipf:-1", "zipf:nan", "zipf:11", "Zipf:1", "normal"] {
            #expect(ChatRoomPlan.sizes(parsing: bad) == nil, "\(bad)")
        }
    }

    /// Each sender's columns are the other members of its room, once each; a member outside it has none.
    @Test func columnsAreEachSendersDeliveriesToTheRestOfItsRoom() {
        let rooms = ChatRooms(clients: 30, plan: ChatRoomPlan(rooms: 4, sizes: .zipf(1)), seed: 9)
        let columns = ChatColumns(rooms)
        var seen = Set<[Int]>()
        for sender in 0..<30 {
            let room = Int(rooms.roomOfClient[sender])
            let others = rooms.members(ofRoom: room).map(Int.init).filter { $0 != sender }
            #expect(columns.columnStart[sender + 1] - columns.columnStart[sender] == others.count)
            for member in 0..<30 {
                let column = columns.column(sender: sender, member: member)
                guard others.contains(member) else {
                    #expect(column == nil, "\(member) is not in \(sender)'s room (or is \(sender))")
                    continue
                }
                let found = try! #require(column)
                #expect((columns.columnStart[sender]..<columns.columnStart[sender + 1]).contains(found))
                #expect(columns.senderOfColumn[found] == Int32(sender))
                #expect(columns.receiverOfColumn[found] == Int32(member))
                #expect(seen.insert([sender, member]).inserted)
            }
            #expect(columns.incomingColumns(of: sender).count == others.count)
        }
        #expect(columns.count == seen.count)
        #expect(columns.column(sender: -1, member: 0) == nil && columns.column(sender: 0, member: 30) == nil)
    }

    /// `--server-procs` with chat: every room on one relay process, the largest first to the emptiest, so that no
    /// process hosts more than another by more than the largest room.
    @Test(arguments: [(40, ChatRoomPlan.Sizes.uniform, 7, 3), (1_000, .zipf(1.1), 60, 4), (30, .uniform, 5, 8)])
    func relayProcessesHostWholeRoomsAndShareTheMembers(clients: Int, sizes: ChatRoomPlan.Sizes, rooms: Int, relays: Int) {
        let dealt = ChatRooms(clients: clients, plan: ChatRoomPlan(rooms: rooms, sizes: sizes), seed: 3)
        let relayOfRoom = dealt.relayOfRoom(relays: relays)
        #expect(relayOfRoom.count == rooms && relayOfRoom.allSatisfy { (0..<Int32(relays)).contains($0) })
        let roomSizes = (0..<rooms).map(dealt.size(ofRoom:))
        let members = ChatRooms.members(sizes: roomSizes, relays: relays)
        #expect(members.reduce(0, +) == clients)
        for relay in 0..<relays {
            #expect(members[relay] == (0..<rooms).filter { relayOfRoom[$0] == relay }.reduce(0) { $0 + roomSizes[$1] })
        }
        let used = members.filter { $0 > 0 }
        #expect(used.count == min(rooms, relays), "a process for each room while there are rooms")
        #expect(used.max()! - used.min()! <= roomSizes.max()!)
        #expect(dealt.relayOfRoom(relays: relays) == relayOfRoom, "every process places them alike")
    }

    @Test func roomsOf5_4_3_3_3AreSharedAsByHand() {
        // Largest first, each to the emptiest (the lower number of a tie): 5→0, 4→1, 3→1 (4 < 5), 3→0 (5 < 7), 3→1 (7 < 8).
        #expect(ChatRooms.relayOfRoom(sizes: [3, 5, 3, 4, 3], relays: 2) == [1, 0, 0, 1, 1])
        #expect(ChatRooms.members(sizes: [3, 5, 3, 4, 3], relays: 2) == [8, 10])
    }

    /// The fewest processes whose members all fit, or none when a room alone does not.
    @Test func theRelaysNeededAreTheFewestThatHoldEveryRoom() {
        #expect(ChatRooms.relaysNeeded(sizes: [10, 10, 10], capacity: 30, most: 64) == 1)
        #expect(ChatRooms.relaysNeeded(sizes: [10, 10, 10], capacity: 29, most: 64) == 2)
        // Three rooms of 20 in two processes are 40 and 20: with a capacity of 39, no two processes hold them whole.
        #expect(ChatRooms.relaysNeeded(sizes: [20, 20, 20], capacity: 40, most: 64) == 2)
        #expect(ChatRooms.relaysNeeded(sizes: [20, 20, 20], capacity: 39, most: 64) == 3)
        #expect(ChatRooms.relaysNeeded(sizes: [21, 20, 20], capacity: 40, most: 64) == 2)
        #expect(ChatRooms.relaysNeeded(sizes: [41, 2], capacity: 40, most: 64) == nil, "a room larger than a process")
        #expect(ChatRooms.relaysNeeded(sizes: [10, 10, 10], capacity: 10, most: 2) == nil, "more than the most")
    }

    @Test func thePortableExponentialAgreesWithTheLibrary() {
        for x in stride(from: -40.0, through: 40.0, by: 0.37) {
            let expected = Foundation.exp(x)
            #expect(abs(portableExponential(x) - expected) <= 1e-13 * expected, "e^\(x)")
        }
    }
}
