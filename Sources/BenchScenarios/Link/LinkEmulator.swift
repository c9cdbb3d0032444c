import BenchClients
import BenchCore
import BenchNet
import Glibc

/// The link between this process's clients and the server, emulated in user space (`--link`): the clients connect to
/// their group's listener, and for each it connects to the server; every byte either way comes out of the connection's
/// ``LinkPath`` of that direction when the path says. It needs no privileges, and a client's kernel stamps are taken on
/// its own socket, after the link, as behind a real one. One thread, started before the clients and ended after them.
///
/// What the model leaves out: the TCP handshake itself (the kernel completes it at once; every byte after it is
/// delayed), and segments: each read is cut into segments of at most 1448 bytes, as loopback's MSS would not.
final class LinkEmulator: @unchecked Sendable {
    /// Where each group of the mix connects (``LinkMix/groups``, in order): its link's listener, or the server itself
    /// for a group without a link (`none`).
    let entrances: [SocketAddress]
    private let stopSignal: EventNotifier
    private let releaseSignal: EventNotifier
    private let mix: LinkMix
    private let loop: LinkLoop
    private var thread: NativeThread<Void>?

    /// Listens on loopback for each group with a link, and starts the thread that relays to `upstream` through the
    /// group's link; each connection's paths draw their jitter and losses from `seed`.
    init(mix: LinkMix, upstream: SocketAddress, seed: UInt64) throws(SystemError) {
        var listening: [(listener: SharedDescriptor, profile: LinkProfile)] = []
        var entrances: [SocketAddress] = []
        let loop: LinkLoop
        do {
            for group in mix.groups {
                guard let profile = group.profile else {
                    entrances.append(upstream)
                    continue
                }
                let (listener, bound) = try TCPSocket.listen(on: SocketAddress(host: "127.0.0.1", port: 0)!)
                listening.append((SharedDescriptor(owning: listener, owner: "a link's entrance"), profile))
                entrances.append(bound)
            }
            stopSignal = try EventNotifier()
            releaseSignal = try EventNotifier()
            loop = try LinkLoop(
                entrances: listening, upstream: upstream, seed: seed, stop: stopSignal, release: releaseSignal)
        } catch {
            for entrance in listening { entrance.listener.close() }
            throw error
        }
        self.entrances = entrances
        self.mix = mix
        self.loop = loop
        do {
            thread = try NativeThread.spawn(name: "bench-link") { loop.run() }
        } catch {
            loop.shutDown()
            throw error
        }
    }

    /// When the link's clock began (monotonic ns): its blackouts count from it.
    var origin: UInt64 { loop.origin }

    /// The server is done: the connections the NAT forgot are closed both ways (their server's end vanished, and
    /// their clients would wait for it for ever); the others go on until their ends pass.
    func releaseForgotten() {
        releaseSignal.notify()
    }

    /// Stops the thread; every connection through the link is closed.
    func end() {
        stopSignal.notify()
        _ = thread?.join()
        thread = nil
    }

    /// Once ended, how late its thread let the bytes out behind the model (nil: it carried nothing).
    var lateness: LinkLateness? {
        precondition(thread == nil, "the link's thread still runs")
        return LinkLateness(loop.lateness)
    }

    /// Once ended, what the links did to a run that ended at `end` (monotonic ns): its outage report's events.
    func outages(until end: UInt64) -> [ConnectionEvent] {
        precondition(thread == nil, "the link's thread still runs")
        return LinkOutages.events(mix: mix, origin: loop.origin, forgotten: loop.forgotten, until: end)
    }

    /// Once ended, what the link did and how late it was, for a child's or an agent's run to send the measuring side
    /// on `writer` (its reports as client `client`'s, the share's first): its events, then its lateness.
    func report(on writer: ReportWriter, client: UInt32) {
        for event in outages(until: MonotonicClock.now()) {
            writer.report(ClientReport(.linkEvent, client: client, time: event.time, text: event.reason))
        }
        if let lateness { writer.report(ClientReport(.linkLateness, client: client, time: 0, text: lateness.text)) }
        writer.flush()
    }
}
