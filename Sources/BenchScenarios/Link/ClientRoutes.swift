import BenchCore
import BenchNet

/// Where each client of this process connects: the server itself, the entrance of its link group (`--link`), the
/// group ``LinkMix/deal(clients:seed:)`` gave it, or in a chat run whose relay is in several processes
/// (`--server-procs`), the relay process hosting its room.
struct ClientRoutes: Sendable {
    /// The server's address (what a message about a failed connect names when there is no link).
    let server: SocketAddress
    private let entrances: [SocketAddress]
    private let groupOfClient: [UInt8]

    /// Every client straight to `server`.
    init(server: SocketAddress) {
        (self.server, entrances, groupOfClient) = (server, [], [])
    }

    /// Every client through `link`'s entrance of its group in `mix`, dealt among the run's `clients` by `seed`.
    init(server: SocketAddress, link: LinkEmulator, mix: LinkMix, clients: Int, seed: UInt64) {
        (self.server, entrances) = (server, link.entrances)
        groupOfClient = mix.isMix ? mix.deal(clients: clients, seed: seed) : []
    }

    /// Every member of a chat run of `clients` dealt into `plan`'s rooms by `seed` to the one of `relays` that hosts
    /// its room (``ChatRooms/relayOfRoom(relays:)``).
    init(relays: [SocketAddress], plan: ChatRoomPlan, clients: Int, seed: UInt64) {
        precondition((1...ServerShards.most).contains(relays.count), "a chat relay runs in 1 to \(ServerShards.most) processes")
        let rooms = ChatRooms(clients: clients, plan: plan, seed: seed)
        let relayOfRoom = rooms.relayOfRoom(relays: relays.count)
        (server, entrances) = (relays[0], relays)
        groupOfClient = rooms.roomOfClient.map { UInt8(relayOfRoom[Int($0)]) }
    }

    /// Where client `client` (its number in the run) connects.
    func address(of client: Int) -> SocketAddress {
        if entrances.isEmpty { return server }
        return client < groupOfClient.count ? entrances[Int(groupOfClient[client])] : entrances[0]
    }
}
