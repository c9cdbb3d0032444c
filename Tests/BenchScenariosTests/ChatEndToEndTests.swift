import BenchClients
import BenchCore
import BenchScenarios
import Testing

/// `bench chat` with the built-in relay, end to end on 127.0.0.1: rooms from the seed, every message to every other
/// member of its sender's room, and the files read back and recomputed here from the samples. Small (24 members, 10
/// messages each, 20 ms apart); serialized, as two runs at once on two CPUs would only measure each other.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ChatEndToEndTests {
    static let clients = 24
    static let messages = 10

    static func configuration(_ plan: ChatRoomPlan) -> RunConfiguration {
        var configuration = RunConfiguration(scenario: .chat, seed: 31)
        configuration.clients = clients
        configuration.chatRooms = plan
        configuration.messages = messages
        configuration.warmup = 2
        configuration.interval = 20_000_000
        configuration.clientThreads = 2
        configuration.timeout = 2_000_000_000
        return configuration
    }

    @Test(arguments: [ChatRoomPlan(rooms: 4), ChatRoomPlan(rooms: 4, sizes: .zipf(1.5))])
    func everyMessageReachesEveryOtherMemberOfItsRoomAndTheFilesAgree(plan: ChatRoomPlan) throws {
        let files = try RunFiles.run(Self.configuration(plan))
        let rooms = ChatRooms(clients: Self.clients, plan: plan, seed: 31)
        func others(_ sender: Int) -> Set<Int> {
            Set(rooms.members(ofRoom: Int(rooms.roomOfClient[sender])).map(Int.init)).subtracting([sender])
        }
        #expect(files.settings["status"] == "complete", "\(files.settings["status_reason"] ?? "")")
        #expect(files.settings["scenario"] == "chat")
        #expect(files.settings["rooms"] == "4" && files.settings["room_sizes"] == plan.sizesText)

        // samples.csv: one row per delivery; every member of the sender's room but the sender, nobody else.
        let expected = (0..<Self.clients).reduce(0) { $0 + Self.messages * (rooms.roomSize(of: $1) - 1) }
        #expect(files.samples.count == expected)
        let byMessage = Dictionary(grouping: files.samples) { [$0.int("sender")!, $0.int("seq")!] }
        #expect(byMessage.count == Self.clients * Self.messages)
        for (key, rows) in byMessage {
            #expect(Set(rows.map { $0.int("client")! }) == others(key[0]), "message \(key) went to its room")
            #expect(rows.count == others(key[0]).count, "each member once")
            for row in rows {
                #expect(row["lost"] == "0" && row["outcome"] == "echoed", "\(row)")
                #expect(row.int("delivery_ns") == row.int("recv_ns")! - row.int("sent_ns")!)
            }
        }
        // messages.csv: spread and completion recomputed from the samples.
        let messages = try files.table("messages.csv")
        #expect(messages.count == Self.clients * Self.messages)
        for row in messages {
            let rows = byMessage[[row.int("sender")!, row.int("seq")!]]!
            let receives = rows.map { $0.int("recv_ns")! }
            #expect(row["complete"] == "1" && row.int("delivered") == rows.count && row.int("lost") == 0)
            #expect(row.int("t0_ns") == rows[0].int("sent_ns"))
            #expect(row.int("spread_ns") == receives.max()! - receives.min()!)
            #expect(row.int("completion_ns") == receives.max()! - row.int("t0_ns")!)
        }
        #expect(files.summary["delivery"]?.int("count") == expected)
        #expect(files.summary["spread"]?.int("count") == Self.clients * Self.messages)
        #expect(files.summary["rtt"] == nil, "the relay sends nothing back to the sender")

        // rooms.csv: by room size when sizes differ by design; each group's deliveries counted from the samples.
        let groups = try files.table("rooms.csv")
        guard plan.sizes != .uniform else { return #expect(groups.isEmpty) }
        #expect(groups.reduce(0) { $0 + $1.int("rooms")! } == 4)
        for group in groups {
            let bounds = group["room_size"]!.split(separator: "–").map { Int($0)! }
            let sizes = bounds.first!...bounds.last!
            let rows = files.samples.filter { sizes.contains(rooms.roomSize(of: $0.int("sender")!)) }
            #expect(group.int("delivery_count") == rows.count, "\(group)")
            let exact = exactPercentile(rows.map { $0.int("delivery_ns")! }.sorted(), 99)
            let measured = try #require(group.int("delivery_p99_ns"))
            #expect(abs(measured - exact) * 1000 <= exact, "\(measured) vs \(exact): from its histogram, within 0.1%")
        }
    }
}
