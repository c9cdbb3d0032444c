import BenchCore
import BenchNet

/// Where each client of this process connects: the server itself, the entrance of its link group (`--link`), the
/// group ``LinkMix/deal(clients:seed:)`` gave it, or in a chat run whose relay is in several processes
/// (`--server-procs`), the relay process hosting its room (the orchestration's initializers, beside the link and the
/// relay); and behind a link, when each connect may end (its handshake's way there and back).
public struct ClientRoutes: Sendable {
    /// The server's address (what a message about a failed connect names when there is no link).
    let server: SocketAddress
    private let entrances: [SocketAddress]
    private let groupOfClient: [UInt8]
    /// Per entrance, the link a connect to it goes through (nil: none); when the links' clock began (their blackouts
    /// count from it) and the seed of their draws.
    private let links: [LinkProfile?]
    private let linkOrigin: UInt64
    private let seed: UInt64

    /// Every client straight to `server`.
    public init(server: SocketAddress) {
        self.init(server: server, entrances: [], groupOfClient: [])
    }

    /// Each client to one of `entrances` (a link group's, a chat relay process's): client `i` to
    /// `entrances[groupOfClient[i]]`, the first where `groupOfClient` has no entry for it; a connect to entrance `e`
    /// through `links[e]` where given, its clock begun at `linkOrigin`, its draws from `seed`.
    public init(
        server: SocketAddress, entrances: [SocketAddress], groupOfClient: [UInt8], links: [LinkProfile?] = [],
        linkOrigin: UInt64 = 0, seed: UInt64 = 0
    ) {
        (self.server, self.entrances, self.groupOfClient) = (server, entrances, groupOfClient)
        (self.links, self.linkOrigin, self.seed) = (links, linkOrigin, seed)
    }

    /// Where client `client` (its number in the run) connects.
    func address(of client: Int) -> SocketAddress {
        entrances.isEmpty ? server : entrances[entrance(of: client)]
    }

    /// When a connect of client `client` that started at `start` may end (monotonic ns): through its link, once its
    /// SYN went up and the SYN-ACK came down (``LinkProfile/handshakeEnd(startingAt:origin:seed:stream:)``, drawn
    /// per connect); nil without a link, where the kernel's end is the connect's.
    func connectEnd(of client: Int, startedAt start: UInt64) -> UInt64? {
        let entrance = entrance(of: client)
        guard entrance < links.count, let profile = links[entrance] else { return nil }
        return profile.handshakeEnd(
            startingAt: start, origin: linkOrigin, seed: seed, stream: UInt64(client) &* 0x9E37_79B9_7F4A_7C15 ^ start)
    }

    private func entrance(of client: Int) -> Int {
        client < groupOfClient.count ? Int(groupOfClient[client]) : 0
    }
}
