import BenchCore
import BenchNet
import Synchronization

/// The link between this process's clients and the server (`--link`), emulated inside the clients' own loops: each
/// client's connection goes to the server itself and carries its group's ``ConnectionLink``, which its loop's
/// ``LinkScheduler`` lets bytes out of when the link's model says. It needs no privileges, no thread and no descriptor of
/// its own, and it costs what the bytes cost: a copy each way and a wake-up per exit. A client's stamps are those of the
/// link's far end, as behind a real one: a byte reaches it at its exit, and leaves it when it enters.
///
/// What the model leaves out: segments are cut at 1448 bytes from what one read or one write holds, as loopback's MSS
/// would not; a closing connection's last words in the uplink go at once.
public final class LinkEmulator: Sendable {
    /// The mix of links, by group (``LinkMix/groups``).
    public let mix: LinkMix
    /// The seed of every connection's draws.
    public let seed: UInt64
    /// When the link's clock began (monotonic ns): its blackouts count from it.
    public let origin: UInt64
    private let tallies = Mutex<[LinkTally]>([])

    /// The links of `mix`, their clock begun now, their jitter and losses drawn from `seed`.
    public init(mix: LinkMix, seed: UInt64) {
        (self.mix, self.seed) = (mix, seed)
        origin = MonotonicClock.now()
    }

    /// A client thread's tally, counted in the run's report once the thread ended (call it on that thread, once).
    func newTally() -> LinkTally {
        let tally = LinkTally(groups: mix.groups.count)
        tallies.withLock { $0.append(tally) }
        return tally
    }

    /// Once every client thread ended, how late their loops let the bytes out behind the model (nil: they carried
    /// nothing on a wake-up of their own).
    public var lateness: LinkLateness? {
        var merged = LatencyHistogram()
        tallies.withLock { for tally in $0 { merged.add(tally.lateness) } }
        return LinkLateness(merged)
    }

    /// Once every client thread ended, what the links did to a run that ended at `end` (monotonic ns): its outage
    /// report's events.
    public func outages(until end: UInt64) -> [ConnectionEvent] {
        var forgotten = Array(repeating: LinkTally.Forgotten(), count: mix.groups.count)
        tallies.withLock {
            for tally in $0 {
                for group in forgotten.indices { forgotten[group].add(tally.forgotten[group]) }
            }
        }
        return LinkOutages.events(mix: mix, origin: origin, forgotten: forgotten, until: end)
    }

    /// Once every client thread ended, what the link did and how late it was, for a child's or an agent's run to send
    /// the measuring side on `writer` (its reports as client `client`'s, the share's first): its events, then its
    /// lateness.
    public func report(on writer: ReportWriter, client: UInt32) {
        for event in outages(until: MonotonicClock.now()) {
            writer.report(ClientReport(.linkEvent, client: client, time: event.time, text: event.reason))
        }
        if let lateness { writer.report(ClientReport(.linkLateness, client: client, time: 0, text: lateness.text)) }
        writer.flush()
    }
}
