import BenchCore
import BenchNet

/// The routes a link gives the clients.
extension ClientRoutes {
    /// Every client straight to `server` behind its group's link of `link`'s mix, dealt among the run's `clients` by the
    /// link's seed, its connects ending as its group's link's handshake does.
    public init(server: SocketAddress, link: LinkEmulator, clients: Int) {
        self.init(
            server: server, entrances: [], groupOfClient: [],
            linkGroupOfClient: link.mix.isMix ? link.mix.deal(clients: clients, seed: link.seed) : [], link: link)
    }
}
