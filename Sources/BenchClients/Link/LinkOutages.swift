import BenchCore
import BenchNet

/// What a link did to the connections through it that its run's outage report tells (`events.csv`, on the `link`
/// side): the connections each link's NAT forgot, and each link's blackouts while the run went.
public enum LinkOutages {
    /// How long a run waits, from `start`, for the link events of its children and agents once it is over: 10 s, or a
    /// second after a stop asked for (Ctrl-C); the one rule of both measuring roles.
    public static func eventsDeadline(from start: UInt64, stopping: Bool) -> UInt64 {
        start + (stopping ? 1_000_000_000 : 10_000_000_000)
    }

    /// The most blackouts of one link reported (`every=` repeats them for as long as the run goes).
    static let mostBlackouts = 100

    /// The events of `mix`'s links for a run that ended at `end` (monotonic ns): their blackouts from the link's start
    /// (`origin`) on, at most ``mostBlackouts`` of each link, and the connections their NATs forgot (`forgotten`, one
    /// per group of the mix, in order) from the first forgotten before the end.
    static func events(mix: LinkMix, origin: UInt64, forgotten: [LinkTally.Forgotten], until end: UInt64) -> [ConnectionEvent] {
        var events: [ConnectionEvent] = []
        for (group, lost) in zip(mix.groups, forgotten) {
            let name = mix.isMix ? "link \(group.name)" : "link"
            if lost.count > 0, lost.first < end, let idle = group.profile?.natIdle {
                let when = lost.first == lost.last
                    ? "" : ", the last \(DurationText.display(lost.last - lost.first)) after the first"
                events.append(ConnectionEvent(
                    side: .link, client: nil, time: lost.first,
                    reason: "\(name): its NAT forgot \(lost.count) connection\(lost.count == 1 ? "" : "s") idle for "
                        + "\(DurationText.format(idle))\(when): what either end sent from then on vanished"))
            }
            guard let blackout = group.profile?.blackout else { continue }
            var start = origin &+ blackout.start
            var reported = 0
            while start < end && reported < mostBlackouts {
                reported += 1
                events.append(ConnectionEvent(
                    side: .link, client: nil, time: start,
                    reason: "\(name): blackout for \(DurationText.format(blackout.duration)): no byte either way"))
                guard let every = blackout.every else { break }
                start &+= every
            }
        }
        return events
    }
}
