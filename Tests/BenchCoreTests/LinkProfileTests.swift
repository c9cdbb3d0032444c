import Testing

@testable import BenchCore

/// `--link` read as written: presets with the Network Link Conditioner's numbers, parameters for both directions or
/// one, a preset changed by parameters after it, and every text that is no link refused saying why.
@Suite struct LinkProfileTests {
    @Test func aPresetHasItsPublishedNumbers() throws {
        let lte = try LinkProfile(parsing: "lte")
        #expect(lte.down == LinkProfile.Direction(delay: 50_000_000, rate: 50_000_000))
        #expect(lte.up == LinkProfile.Direction(delay: 65_000_000, rate: 10_000_000))
        let bad = try LinkProfile(parsing: "verybad")
        #expect(bad.down.lossPerMillion == 100_000 && bad.up.delay == 500_000_000)
        #expect(LinkProfile.presets.map(\.name) == ["wifi", "dsl", "lte", "3g", "edge", "verybad"])
        #expect(lte.summary == "down 50 Mbit/s 50.00ms, up 10 Mbit/s 65.00ms" && lte.text == "lte")
    }

    @Test func parametersSetBothDirectionsOrOne() throws {
        let link = try LinkProfile(
            parsing: "3g,delay=40ms,jitter=10ms,up-rate=500kbit,down-loss=2.5%,nat-idle=30s,blackout=5s@1min,every=2min")
        #expect(link.down == LinkProfile.Direction(delay: 40_000_000, jitter: 10_000_000, rate: 780_000, lossPerMillion: 25_000))
        #expect(link.up == LinkProfile.Direction(delay: 40_000_000, jitter: 10_000_000, rate: 500_000))
        #expect(link.natIdle == 30_000_000_000)
        #expect(link.blackout == LinkProfile.Blackout(duration: 5_000_000_000, start: 60_000_000_000, every: 120_000_000_000))
        #expect(try LinkProfile(parsing: "rate=2.5gbit").down.rate == 2_500_000_000)
    }

    @Test(arguments: [
        ("", "expected a link, as lte or delay=40ms"),
        ("5g", "'5g' is no preset (wifi, dsl, lte, 3g, edge, verybad) and no name=value"),
        ("lte,delay", "'delay': expected name=value, or a preset's name first"),
        ("lte:70%,3g:20%", "the mix's shares add up to 90%, not 100%"),
        ("lte:70%,3g:30%,verybad:1%", "the mix's shares add up to 101%, not 100%"),
        ("lte:70%,lte:30%", "'lte' appears twice in the mix"),
        ("5g:70%,lte:30%", "'5g' in a mix is no preset (wifi, dsl, lte, 3g, edge, verybad, or none for the direct path)"),
        ("lte:70,3g:30%", "'lte:70': expected a share above 0% and up to 100%, as lte:70%"),
        ("lte:0%,3g:100%", "'lte:0%': expected a share above 0% and up to 100%, as lte:70%"),
        ("lte:70%,loss=1%", "'loss=1%': a mix is NAME:SHARE items, as lte:70%,3g:30% (a preset or none)"),
        ("none:100%", "a mix of none alone puts no client behind a link: leave --link out"),
        ("lte:10%,3g:10%,edge:10%,dsl:10%,wifi:10%,verybad:10%,none:10%,x:10%,y:20%", "'x' in a mix is no preset (wifi, dsl, lte, 3g, edge, verybad, or none for the direct path)"),
        ("delay=40", "delay=40: expected a duration up to 1h, as 40ms"),
        ("delay=2h", "delay=2h: expected a duration up to 1h, as 40ms"),
        ("rate=1mbps", "rate=1mbps: expected bits per second from 1kbit to 100gbit, as 1mbit or 500kbit"),
        ("rate=10bit", "rate=10bit: expected bits per second from 1kbit to 100gbit, as 1mbit or 500kbit"),
        ("loss=60%", "loss=60%: expected a percent from 0% to 50%, as 2%"),
        ("loss=2", "loss=2: expected a percent from 0% to 50%, as 2%"),
        ("blackout=5s", "blackout=5s: expected DURATION@WHEN, as 5s@30s"),
        ("blackout=0s@1s", "blackout=0s@1s: expected DURATION@WHEN, as 5s@30s"),
        ("every=10s", "every= repeats a blackout: give blackout=DURATION@WHEN"),
        ("blackout=5s@1s,every=5s", "every= must be longer than the blackout it repeats"),
        ("nat-idle=0", "nat-idle=0: expected more than 0"),
        ("delay=10ms,jitter=20ms", "jitter is at most the delay it varies (a segment cannot arrive before it left)"),
        ("speed=1", "unknown parameter 'speed' (delay, jitter, rate, loss and their down- and up- forms, nat-idle, blackout, every)"),
    ])
    func anythingElseIsRefusedSayingWhy(text: String, reason: String) {
        #expect(throws: LinkProfile.Invalid(reason: reason)) { try LinkMix(parsing: text) }
    }

    /// A mix: its groups in order, each with its preset (none: no link) and share.
    @Test func aMixIsReadAsGroupsWithShares() throws {
        let mix = try LinkMix(parsing: "lte:70%,3G:20%,none:10%")
        #expect(mix.isMix && mix.groups.map(\.name) == ["lte", "3g", "none"])
        #expect(mix.groups.map(\.sharePerMillion) == [700_000, 200_000, 100_000])
        #expect(mix.groups[0].profile == LinkProfile.presets[2].profile && mix.groups[2].profile == nil)
        #expect(mix.summary.hasPrefix("70% lte (down 50 Mbit/s 50.00ms") && mix.summary.hasSuffix("; 10% none (no link)"))
        let one = try LinkMix(parsing: "delay=40ms")
        #expect(!one.isMix && one.groups.count == 1 && one.text == "delay=40ms")
    }

    /// Dealing: each group gets its share of the clients exactly (the largest remainders rounded up), in an order the
    /// seed shuffles and repeats.
    @Test func aMixIsDealtByItsSharesAndTheSeed() throws {
        let mix = try LinkMix(parsing: "lte:70%,3g:20%,verybad:10%")
        let dealt = mix.deal(clients: 1_000, seed: 42)
        #expect([0, 1, 2].map { group in dealt.filter { $0 == group }.count } == [700, 200, 100])
        #expect(mix.deal(clients: 1_000, seed: 42) == dealt, "the same seed deals the same")
        #expect(mix.deal(clients: 1_000, seed: 43) != dealt, "another seed deals otherwise")
        #expect(dealt.prefix(100).contains(2) && dealt.prefix(700).contains(1), "shuffled, not in blocks")
        let odd = try LinkMix(parsing: "lte:50%,3g:50%").deal(clients: 7, seed: 1)
        #expect(odd.count == 7 && odd.filter { $0 == 0 }.count + odd.filter { $0 == 1 }.count == 7)
        #expect(try LinkMix(parsing: "lte:99%,3g:1%").deal(clients: 3, seed: 1).filter { $0 == 1 }.isEmpty)
    }
}

/// One direction of a link, as TCP sees it: the rate serializes, the delay and its jitter never reorder, a lost
/// segment holds everything behind it for a retransmission timeout, and a blackout holds what it covers until TCP's
/// next retransmission after it.
@Suite struct LinkPathTests {
    private func path(_ text: String, seed: UInt64 = 7) throws -> LinkPath {
        let profile = try LinkProfile(parsing: text)
        return LinkPath(profile.down, of: profile, origin: 1_000, seed: seed, stream: 0)
    }

    @Test func theRateSerializesAndTheDelayFollows() throws {
        var link = try path("delay=10ms,rate=1mbit")
        // 125 bytes are 1 ms at 1 Mbit/s; three at once leave one after another.
        #expect(link.exit(entering: 1_000, bytes: 125) == 1_000 + 1_000_000 + 10_000_000)
        #expect(link.exit(entering: 1_000, bytes: 125) == 1_000 + 2_000_000 + 10_000_000)
        #expect(link.exit(entering: 50_000_000, bytes: 125) == 51_000_000 + 10_000_000, "an idle link sends at once")
    }

    @Test func jitterStaysWithinItsBoundsAndNeverReorders() throws {
        var link = try path("delay=20ms,jitter=10ms")
        var last: UInt64 = 0
        var seen = Set<UInt64>()
        for step in 0..<2_000 {
            let entered = UInt64(step) * 1_000_000
            let exit = link.exit(entering: entered, bytes: 100)
            #expect(exit >= last && exit >= entered + 10_000_000)
            #expect(exit <= max(last, entered + 30_000_000))
            seen.insert(exit - entered)
            last = exit
        }
        #expect(seen.count > 100, "the delays vary")
    }

    @Test func aLostSegmentHoldsEverythingBehindIt() throws {
        var link = try path("delay=10ms,loss=20%")
        #expect(link.retransmissionTimeout == 200_000_000 + 20_000_000, "200 ms and the link's round trip")
        // A segment every 10 s, longer than any stall: about a fifth of them lost (and behind none).
        var exits: [UInt64] = []
        for step in 0..<1_000 { exits.append(link.exit(entering: UInt64(step) * 10_000_000_000, bytes: 100)) }
        let extra = exits.enumerated().map { $0.element - UInt64($0.offset) * 10_000_000_000 - 10_000_000 }
        let stalled = extra.filter { $0 >= link.retransmissionTimeout }
        #expect(stalled.count > 120 && stalled.count < 300, "\(stalled.count) of 1000 lost")
        #expect(extra.allSatisfy { $0 == 0 || $0 >= link.retransmissionTimeout }, "on time, or a timeout late")
        #expect(extra.contains(3 * link.retransmissionTimeout), "lost twice: the timeout doubled")
        // A segment every millisecond: one lost holds the ones behind it, which come out with it, in order.
        var busy = try path("delay=10ms,loss=20%")
        let close = (0..<1_000).map { busy.exit(entering: UInt64($0) * 1_000_000, bytes: 100) }
        #expect(close == close.sorted() && close.enumerated().allSatisfy { $0.element >= UInt64($0.offset) * 1_000_000 + 10_000_000 })
    }

    @Test func aBlackoutHoldsWhatItCoversUntilARetransmissionAfterIt() throws {
        var link = try path("delay=10ms,blackout=1s@2s,every=10s")
        // Origin 1000 ns: the blackouts are [2 s, 3 s) and [12 s, 13 s) after it.
        #expect(link.blackoutEnd(covering: 1_000 + 2_500_000_000) == 1_000 + 3_000_000_000)
        #expect(link.blackoutEnd(covering: 1_000 + 12_000_000_000) == 1_000 + 13_000_000_000)
        #expect(link.blackoutEnd(covering: 1_000 + 3_000_000_000) == nil)
        let entered: UInt64 = 1_000 + 2_100_000_000
        let exit = link.exit(entering: entered, bytes: 100)
        // Sent again after 220 ms, 440 ms, 880 ms: 1.54 s after it entered, past the blackout's end.
        #expect(exit == entered + 1_540_000_000 + 10_000_000, "\(exit - entered)")
        #expect(link.exit(entering: 1_000 + 3_500_000_000, bytes: 100) == exit, "in order, behind the one held")
        #expect(link.exit(entering: 1_000 + 5_000_000_000, bytes: 100) == 1_000 + 5_010_000_000)
    }

    /// A TCP connect through the link (issue 64's handshake): its SYN's way up and the SYN-ACK's way down, each a
    /// segment of its path, lost ones resent at TCP's initial 1 s timeout (doubling), a blackout's held past it.
    @Test func aHandshakeTakesTheWayUpAndTheWayDown() throws {
        let lte = try LinkProfile(parsing: "lte")
        #expect(lte.handshakeEnd(startingAt: 5_000, origin: 0, seed: 1, stream: 9) == 5_000 + 65_000_000 + 50_000_000)
        let jittered = try LinkProfile(parsing: "delay=20ms,jitter=10ms")
        let ends = (0..<200).map { jittered.handshakeEnd(startingAt: 0, origin: 0, seed: 3, stream: UInt64($0)) }
        #expect(ends.allSatisfy { (20_000_000...60_000_000).contains($0) } && Set(ends).count > 20, "each connect drawn")
        let lossy = try LinkProfile(parsing: "delay=10ms,loss=30%")
        let extra = (0..<500).map { lossy.handshakeEnd(startingAt: 0, origin: 0, seed: 5, stream: UInt64($0)) - 20_000_000 }
        #expect(extra.allSatisfy { $0 % LinkPath.handshakeTimeout == 0 }, "on time, or whole initial timeouts late")
        #expect(extra.contains(LinkPath.handshakeTimeout) && extra.contains(3 * LinkPath.handshakeTimeout), "1 s, then 2 s")
        // A connect begun at 1.5 s in a 5 s blackout from 1 s: its SYN goes again 1, 3 and 7 s after it; the one at
        // 8.5 s passes.
        let dark = try LinkProfile(parsing: "delay=10ms,blackout=5s@1s")
        #expect(dark.handshakeEnd(startingAt: 1_500_000_000, origin: 0, seed: 1, stream: 0) == 8_500_000_000 + 20_000_000)
    }
}
