import BenchCore
import BenchNet

/// Where each client of this process connects: the server itself, the entrance of its link group (`--link`), the
/// group ``LinkMix/deal(clients:seed:)`` gave it, or in a chat run whose relay is in several processes
/// (`--server-procs`), the relay process hosting its room (the orchestration's initializers, beside the link and the
/// relay).
public struct ClientRoutes: Sendable {
    /// The server's address (what a message about a failed connect names when there is no link).
    let server: SocketAddress
    private let entrances: [SocketAddress]
    private let groupOfClient: [UInt8]

    /// Every client straight to `server`.
    public init(server: SocketAddress) {
        (self.server, entrances, groupOfClient) = (server, [], [])
    }

    /// Each client to one of `entrances` (a link group's, a chat relay process's): client `i` to
    /// `entrances[groupOfClient[i]]`, the first where `groupOfClient` has no entry for it.
    public init(server: SocketAddress, entrances: [SocketAddress], groupOfClient: [UInt8]) {
        (self.server, self.entrances, self.groupOfClient) = (server, entrances, groupOfClient)
    }

    /// Where client `client` (its number in the run) connects.
    func address(of client: Int) -> SocketAddress {
        if entrances.isEmpty { return server }
        return client < groupOfClient.count ? entrances[Int(groupOfClient[client])] : entrances[0]
    }
}
