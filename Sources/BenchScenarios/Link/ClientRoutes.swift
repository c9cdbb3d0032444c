import BenchCore
import BenchNet

/// Where each client of this process connects: the server itself, or the entrance of its link group (`--link`), the
/// group ``LinkMix/deal(clients:seed:)`` gave it.
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

    /// Where client `client` (its number in the run) connects.
    func address(of client: Int) -> SocketAddress {
        if entrances.isEmpty { return server }
        return client < groupOfClient.count ? entrances[Int(groupOfClient[client])] : entrances[0]
    }
}
