import BenchClients
import BenchCore
import BenchNet

/// The routes a link or a chat relay in several processes gives the clients.
extension ClientRoutes {
    /// Every client through `link`'s entrance of its group in `mix`, dealt among the run's `clients` by `seed`, its
    /// connects ending as its group's link's handshake does.
    init(server: SocketAddress, link: LinkEmulator, mix: LinkMix, clients: Int, seed: UInt64) {
        self.init(
            server: server, entrances: link.entrances, groupOfClient: mix.isMix ? mix.deal(clients: clients, seed: seed) : [],
            links: mix.groups.map(\.profile), linkOrigin: link.origin, seed: seed)
    }

    /// Every member of a chat run of `clients` dealt into `plan`'s rooms by `seed` to the one of `relays` that hosts
    /// its room (``ChatRooms/relayOfRoom(relays:)``).
    init(relays: [SocketAddress], plan: ChatRoomPlan, clients: Int, seed: UInt64) {
        precondition((1...ServerShards.most).contains(relays.count), "a chat relay runs in 1 to \(ServerShards.most) processes")
        let rooms = ChatRooms(clients: clients, plan: plan, seed: seed)
        let relayOfRoom = rooms.relayOfRoom(relays: relays.count)
        self.init(server: relays[0], entrances: relays, groupOfClient: rooms.roomOfClient.map { UInt8(relayOfRoom[Int($0)]) })
    }
}
