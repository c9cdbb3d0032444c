import BenchClients
import BenchCore
import BenchNet

/// The routes a chat relay in several processes gives the clients.
extension ClientRoutes {
    /// Every member of a chat run of `clients` dealt into `plan`'s rooms by `seed` to the one of `relays` that hosts
    /// its room (``ChatRooms/relayOfRoom(relays:)``).
    init(relays: [SocketAddress], plan: ChatRoomPlan, clients: Int, seed: UInt64) {
        precondition((1...ServerShards.most).contains(relays.count), "a chat relay runs in 1 to \(ServerShards.most) processes")
        let rooms = ChatRooms(clients: clients, plan: plan, seed: seed)
        let relayOfRoom = rooms.relayOfRoom(relays: relays.count)
        self.init(server: relays[0], entrances: relays, groupOfClient: rooms.roomOfClient.map { UInt8(relayOfRoom[Int($0)]) })
    }
}
