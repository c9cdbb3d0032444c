/// One direction of one connection through an emulated link: when each segment that entered it comes out. A model of
/// what TCP makes of the link, not a packet emulator:
/// - the rate serializes: a segment waits for the ones before it to leave, then takes its bytes' time;
/// - it then takes the delay, ± the jitter, but never passes the segment before it (TCP delivers in order);
/// - a lost segment comes out a retransmission timeout later (doubling while it is lost again), and everything behind
///   it waits for it: how an application sees loss on TCP;
/// - a segment sent or due during a blackout is sent again at TCP's retransmissions (the timeout, doubling) until one
///   falls after the blackout.
public struct LinkPath: Sendable {
    public let direction: LinkProfile.Direction
    /// The first retransmission timeout: 200 ms (Linux's least) and the link's round trip.
    public let retransmissionTimeout: UInt64
    private let blackout: LinkProfile.Blackout?
    /// When the link's clock began (the blackouts count from it).
    private let origin: UInt64
    private var random: SplitMix64
    /// When the rate let the last segment out, and when the last one came out of the link.
    private var linkFree: UInt64 = 0
    private var lastOut: UInt64 = 0

    /// The most times a segment is lost again before it gets through (TCP would give up the connection later).
    static let mostRetransmissions = 6
    /// A SYN's first retransmission timeout, before the connection has measured its round trip: 1 s, as Linux's
    /// (`TCP_TIMEOUT_INIT`, RFC 6298).
    public static let handshakeTimeout: UInt64 = 1_000_000_000
    /// The longest retransmission timeout, as Linux's (`TCP_RTO_MAX`).
    static let longestTimeout: UInt64 = 120_000_000_000

    /// The path of `direction` of `profile`'s link, its blackouts counted from `origin`, its jitter and losses drawn
    /// from `seed`'s `stream`; its first retransmission timeout `retransmissionTimeout`, or by default 200 ms and the
    /// link's round trip (a connection's data; a SYN's is TCP's initial timeout, ``handshakeTimeout``).
    public init(
        _ direction: LinkProfile.Direction, of profile: LinkProfile, origin: UInt64, seed: UInt64, stream: UInt64,
        retransmissionTimeout: UInt64? = nil
    ) {
        self.direction = direction
        self.retransmissionTimeout = retransmissionTimeout ?? 200_000_000 + profile.down.delay + profile.up.delay
        blackout = profile.blackout
        self.origin = origin
        random = SplitMix64(seed: seed, stream: stream)
    }

    /// When a segment of `bytes` bytes that entered the link at `time` comes out of it (monotonic ns).
    public mutating func exit(entering time: UInt64, bytes: Int) -> UInt64 {
        var sent = max(time, linkFree)
        if let rate = direction.rate {
            let (bits, _) = UInt64(bytes).multipliedReportingOverflow(by: 8_000_000_000)
            sent += bits / rate
        }
        linkFree = sent
        var delay = direction.delay
        if direction.jitter > 0 {  // at most the delay where it was read; a jitter beyond it is cut there
            delay = delay.subtractingClamped(direction.jitter) + random.nextBounded(2 * min(direction.jitter, delay) + 1)
        }
        var resent = sent
        var timeout = retransmissionTimeout
        var losses = 0
        while direction.lossPerMillion > 0 && losses < Self.mostRetransmissions
            && random.nextBounded(1_000_000) < UInt64(direction.lossPerMillion)
        {
            resent += timeout
            timeout = min(timeout * 2, Self.longestTimeout)
            losses += 1
        }
        if var end = blackoutEnd(covering: resent) ?? blackoutEnd(covering: resent + delay) {
            // Sent again at each timeout until one goes after the blackout (and is in no later one).
            while true {
                while resent < end {
                    resent += timeout
                    timeout = min(timeout * 2, Self.longestTimeout)
                }
                guard let next = blackoutEnd(covering: resent) ?? blackoutEnd(covering: resent + delay) else { break }
                end = next
            }
            linkFree = max(linkFree, resent)  // what it held goes out at the rate after it
        }
        var out = resent + delay
        out = max(out, lastOut)
        lastOut = out
        return out
    }

    /// The end of the blackout that `time` falls in, or nil.
    func blackoutEnd(covering time: UInt64) -> UInt64? {
        guard let blackout, time >= origin + blackout.start else { return nil }
        let since = time - origin - blackout.start
        let offset = blackout.every.map { since % $0 } ?? since
        return offset < blackout.duration ? time - offset + blackout.duration : nil
    }
}

extension LinkProfile {
    /// When a TCP connect that starts at `start` ends through this link (monotonic ns): its SYN's way up, then the
    /// SYN-ACK's way down, each a segment of the link's paths (its jitter, its losses, resent at TCP's initial timeout
    /// and doubling, its blackouts), drawn from `seed`'s `stream`. The kernel completes a handshake on loopback at
    /// once; a client's connect through the link ends here instead, and what it sends next (the handshake's ACK goes
    /// with it) takes the way up as any byte does.
    public func handshakeEnd(startingAt start: UInt64, origin: UInt64, seed: UInt64, stream: UInt64) -> UInt64 {
        var up = LinkPath(
            self.up, of: self, origin: origin, seed: seed, stream: stream &<< 1, retransmissionTimeout: LinkPath.handshakeTimeout)
        var down = LinkPath(
            self.down, of: self, origin: origin, seed: seed, stream: stream &<< 1 | 1,
            retransmissionTimeout: LinkPath.handshakeTimeout)
        return down.exit(entering: up.exit(entering: start, bytes: 0), bytes: 0)
    }
}
