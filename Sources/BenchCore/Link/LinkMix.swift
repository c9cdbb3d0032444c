/// What `--link` gives: one link every client sits behind (`lte`, `delay=40ms`), or a mix of them dealt among the
/// clients by `--seed` (`lte:70%,3g:20%,verybad:10%`; `none:90%,3g:10%` leaves 90% on the direct path). A mix names
/// presets (or `none`) and shares that add up to 100%; each client's group is fixed for the run, and every report
/// shows the groups apart.
public struct LinkMix: Sendable, Equatable {
    /// One group of clients: its name as reports show it, its link (nil: none), and its share of the clients.
    public struct Group: Sendable, Equatable {
        public let name: String
        public let profile: LinkProfile?
        /// Millionths of the clients.
        public let sharePerMillion: UInt32
    }

    /// The groups, in the order given; one group of every client when no mix was given.
    public let groups: [Group]
    /// The text it was read from.
    public let text: String

    /// The most groups a mix has.
    public static let mostGroups = 8

    /// True when the clients are dealt among more than one link.
    public var isMix: Bool { groups.count > 1 }

    /// True when a link may cut connections off for a while: a NAT that forgets idle ones, or blackouts.
    public var hasOutages: Bool { groups.contains { $0.profile?.natIdle != nil || $0.profile?.blackout != nil } }

    /// Every client behind `profile`.
    public init(_ profile: LinkProfile) {
        self.init(groups: [Group(name: profile.text, profile: profile, sharePerMillion: 1_000_000)], text: profile.text)
    }

    /// Reads `text`: a mix when an item holds `:` (and no `=`), else one link (``LinkProfile/init(parsing:)``).
    public init(parsing text: String) throws(LinkProfile.Invalid) {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.contains(where: { $0.contains(":") && !$0.contains("=") }) else {
            self.init(try LinkProfile(parsing: text))
            return
        }
        var groups: [Group] = []
        var total: UInt64 = 0
        for item in items {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw LinkProfile.Invalid(
                    reason: "'\(item.prefix(40))': a mix is NAME:SHARE items, as lte:70%,3g:30% (a preset or none)")
            }
            let name = parts[0].lowercased()
            guard !groups.contains(where: { $0.name == name }) else {
                throw LinkProfile.Invalid(reason: "'\(name.prefix(40))' appears twice in the mix")
            }
            let profile: LinkProfile?
            if name == "none" {
                profile = nil
            } else if let preset = LinkProfile.presets.first(where: { $0.name == name }) {
                profile = preset.profile
            } else {
                throw LinkProfile.Invalid(
                    reason: "'\(name.prefix(40))' in a mix is no preset (\(LinkProfile.presets.map(\.name).joined(separator: ", ")), "
                        + "or none for the direct path)")
            }
            guard parts[1].hasSuffix("%"), let number = DecimalNumber(parts[1].dropLast()),
                let share = number.scaled(by: 10_000), share > 0, share <= 1_000_000
            else {
                throw LinkProfile.Invalid(reason: "'\(item.prefix(40))': expected a share above 0% and up to 100%, as lte:70%")
            }
            total += share
            groups.append(Group(name: name, profile: profile, sharePerMillion: UInt32(share)))
        }
        guard groups.count <= Self.mostGroups else {
            throw LinkProfile.Invalid(reason: "a mix has at most \(Self.mostGroups) groups")
        }
        guard total == 1_000_000 else {
            throw LinkProfile.Invalid(
                reason: "the mix's shares add up to \(LinkProfile.percentText(UInt32(min(total, 100_000_000)))), not 100%")
        }
        guard groups.contains(where: { $0.profile != nil }) else {
            throw LinkProfile.Invalid(reason: "a mix of none alone puts no client behind a link: leave --link out")
        }
        self.init(groups: groups, text: text)
    }

    private init(groups: [Group], text: String) {
        (self.groups, self.text) = (groups, text)
    }

    /// The group of each of `clients` clients: each group's share of them (rounded so that they add up, the largest
    /// remainders first), dealt in an order `seed` shuffles, the same for the same seed and clients.
    public func deal(clients: Int, seed: UInt64) -> [UInt8] {
        guard isMix else { return [UInt8](repeating: 0, count: clients) }
        let exact = groups.map { UInt64(clients) * UInt64($0.sharePerMillion) }
        var counts = exact.map { Int($0 / 1_000_000) }
        let byRemainder = groups.indices.sorted { exact[$0] % 1_000_000 > exact[$1] % 1_000_000 }
        for index in byRemainder.prefix(clients - counts.reduce(0, +)) { counts[index] += 1 }
        var deck = counts.enumerated().flatMap { [UInt8](repeating: UInt8($0.offset), count: $0.element) }
        var random = SplitMix64(seed: seed, stream: 0x4C49_4E4B)  // "LINK": a stream of its own
        for index in stride(from: deck.count - 1, to: 0, by: -1) {
            deck.swapAt(index, Int(random.nextBounded(UInt64(index + 1))))
        }
        return deck
    }

    /// The links in words: the one link's summary, or each group's share, name and summary.
    public var summary: String {
        guard isMix else { return groups[0].profile?.summary ?? "none" }
        return groups.map { group in
            "\(LinkProfile.percentText(group.sharePerMillion)) \(group.name) (\(group.profile?.summary ?? "no link"))"
        }.joined(separator: "; ")
    }
}
