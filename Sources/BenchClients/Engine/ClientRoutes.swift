import BenchCore
import BenchNet

/// Where each client of this process connects: the server itself, or in a chat run whose relay is in several processes
/// (`--server-procs`), the relay process hosting its room; and behind a link (`--link`), its group's link
/// (``LinkMix/deal(clients:seed:)``): when each connect may end (its handshake's way there and back), and the link its
/// connection carries.
public struct ClientRoutes: Sendable {
    /// The server's address (what a message about a failed connect names when there is no relay of its own).
    let server: SocketAddress
    private let entrances: [SocketAddress]
    private let groupOfClient: [UInt8]
    /// Behind a link: each client's group of its mix (the first where it has no entry), and the link.
    private let linkGroupOfClient: [UInt8]
    let link: LinkEmulator?

    /// Every client straight to `server`.
    public init(server: SocketAddress) {
        self.init(server: server, entrances: [], groupOfClient: [])
    }

    /// Each client to one of `entrances` (a chat relay process's): client `i` to `entrances[groupOfClient[i]]`, the
    /// first where `groupOfClient` has no entry for it; behind `link` where given, client `i` in its group
    /// `linkGroupOfClient[i]`.
    public init(
        server: SocketAddress, entrances: [SocketAddress], groupOfClient: [UInt8], linkGroupOfClient: [UInt8] = [],
        link: LinkEmulator? = nil
    ) {
        (self.server, self.entrances, self.groupOfClient) = (server, entrances, groupOfClient)
        (self.linkGroupOfClient, self.link) = (linkGroupOfClient, link)
    }

    /// Where client `client` (its number in the run) connects.
    func address(of client: Int) -> SocketAddress {
        entrances.isEmpty ? server : entrances[client < groupOfClient.count ? Int(groupOfClient[client]) : 0]
    }

    /// Client `client`'s link, its group's profile and its place in the mix; nil without one (no `--link`, or its
    /// group is `none`).
    private func profile(of client: Int) -> (profile: LinkProfile, group: Int)? {
        guard let link else { return nil }
        let group = client < linkGroupOfClient.count ? Int(linkGroupOfClient[client]) : 0
        return link.mix.groups[group].profile.map { ($0, group) }
    }

    /// True when client `client` is behind a link.
    func isLinked(_ client: Int) -> Bool { profile(of: client) != nil }

    /// When a connect of client `client` that started at `start` may end (monotonic ns): through its link, once its
    /// SYN went up and the SYN-ACK came down (``LinkProfile/handshakeEnd(startingAt:origin:seed:stream:)``, drawn
    /// per connect); nil without a link, where the kernel's end is the connect's.
    func connectEnd(of client: Int, startedAt start: UInt64) -> UInt64? {
        guard let link, let (profile, _) = profile(of: client) else { return nil }
        return profile.handshakeEnd(startingAt: start, origin: link.origin, seed: link.seed, stream: stream(client, start))
    }

    /// The link a connection of client `client` that started at `start` carries, its draws its own; nil without one.
    func connectionLink(of client: Int, startedAt start: UInt64) -> ConnectionLink? {
        guard let link, let (profile, group) = profile(of: client) else { return nil }
        return ConnectionLink(
            profile: profile, group: group, origin: link.origin, seed: link.seed,
            stream: ~stream(client, start) &<< 1, now: start)
    }

    /// The stream of one connect's draws: its client's and its start's.
    private func stream(_ client: Int, _ start: UInt64) -> UInt64 {
        UInt64(client) &* 0x9E37_79B9_7F4A_7C15 ^ start
    }
}
