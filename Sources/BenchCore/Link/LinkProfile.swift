/// The link a client sits behind (`--link`): per direction its one-way delay, jitter, rate and loss; a carrier NAT
/// that forgets an idle connection; blackouts (a tunnel). A preset by name (Apple's Network Link Conditioner's
/// profiles, ``presets``), parameters, or a preset with parameters after it:
///
///     lte
///     delay=40ms,jitter=10ms
///     3g,loss=2%,nat-idle=30s
///     rate=1mbit,delay=100ms,blackout=5s@30s,every=60s
///
/// `delay`, `jitter`, `rate` and `loss` set both directions; `down-…` (server to client) and `up-…` one.
public struct LinkProfile: Sendable, Equatable {
    /// One direction of the link.
    public struct Direction: Sendable, Equatable {
        /// One-way propagation delay (ns).
        public var delay: UInt64 = 0
        /// Each segment's delay varies by up to this much either way (ns; uniformly), in order.
        public var jitter: UInt64 = 0
        /// Bits per second; nil: not limited.
        public var rate: UInt64?
        /// The share of segments lost, in millionths (TCP sends each again after its retransmission timeout).
        public var lossPerMillion: UInt32 = 0

        public init(delay: UInt64 = 0, jitter: UInt64 = 0, rate: UInt64? = nil, lossPerMillion: UInt32 = 0) {
            (self.delay, self.jitter, self.rate, self.lossPerMillion) = (delay, jitter, rate, lossPerMillion)
        }
    }

    /// No bytes either way for `duration` at `start` (ns from the link's start), and again every `every`.
    public struct Blackout: Sendable, Equatable {
        public var duration: UInt64
        public var start: UInt64
        public var every: UInt64?
    }

    /// Server to client.
    public var down = Direction()
    /// Client to server.
    public var up = Direction()
    /// A connection with no byte either way for this long is forgotten: its bytes vanish both ways (ns).
    public var natIdle: UInt64?
    public var blackout: Blackout?
    /// The text it was read from.
    public private(set) var text = ""

    /// Why a link's text cannot be read.
    public struct Invalid: Error, Equatable, Sendable {
        public let reason: String
    }

    /// The longest delay, jitter, idle time or blackout (an hour).
    static let longest: UInt64 = 3_600_000_000_000

    public init(down: Direction, up: Direction) {
        (self.down, self.up) = (down, up)
    }

    /// Reads `text`: an optional preset's name first, then `name=value` parameters, comma-separated.
    public init(parsing text: String) throws(Invalid) {
        guard !text.isEmpty, text.utf8.count <= 1_024 else { throw Invalid(reason: "expected a link, as lte or delay=40ms") }
        var items = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        if let first = items.first, !first.contains("=") {
            guard let preset = Self.presets.first(where: { $0.name == first.lowercased() }) else {
                throw Invalid(
                    reason: "'\(first.prefix(40))' is no preset (\(Self.presets.map(\.name).joined(separator: ", "))) and "
                        + "no name=value")
            }
            self = preset.profile
            items.removeFirst()
        }
        var everyPeriod: UInt64?
        for item in items {
            guard let equals = item.firstIndex(of: "="), !item[..<equals].isEmpty else {
                throw Invalid(reason: "'\(item.prefix(40))': expected name=value, or a preset's name first")
            }
            let name = String(item[..<equals])
            let value = String(item[item.index(after: equals)...])
            func duration() throws(Invalid) -> UInt64 {
                guard let nanoseconds = try? DurationText.parse(value), nanoseconds <= Self.longest else {
                    throw Invalid(reason: "\(name)=\(value.prefix(40)): expected a duration up to 1h, as 40ms")
                }
                return nanoseconds
            }
            switch name {
            case "delay": (down.delay, up.delay) = try (duration(), duration())
            case "down-delay": down.delay = try duration()
            case "up-delay": up.delay = try duration()
            case "jitter": (down.jitter, up.jitter) = try (duration(), duration())
            case "down-jitter": down.jitter = try duration()
            case "up-jitter": up.jitter = try duration()
            case "rate": (down.rate, up.rate) = try (Self.rate(name, value), Self.rate(name, value))
            case "down-rate": down.rate = try Self.rate(name, value)
            case "up-rate": up.rate = try Self.rate(name, value)
            case "loss": (down.lossPerMillion, up.lossPerMillion) = try (Self.loss(name, value), Self.loss(name, value))
            case "down-loss": down.lossPerMillion = try Self.loss(name, value)
            case "up-loss": up.lossPerMillion = try Self.loss(name, value)
            case "nat-idle":
                natIdle = try duration()
                guard natIdle! > 0 else { throw Invalid(reason: "nat-idle=\(value): expected more than 0") }
            case "blackout":
                let parts = value.split(separator: "@", omittingEmptySubsequences: false)
                guard parts.count == 2, let length = try? DurationText.parse(String(parts[0])),
                    let start = try? DurationText.parseRunLength(String(parts[1])), length > 0, length <= Self.longest,
                    start <= 24 * Self.longest
                else { throw Invalid(reason: "blackout=\(value.prefix(40)): expected DURATION@WHEN, as 5s@30s") }
                blackout = Blackout(duration: length, start: start, every: nil)
            case "every":
                guard let period = try? DurationText.parseRunLength(value), period > 0, period <= 24 * Self.longest else {
                    throw Invalid(reason: "every=\(value.prefix(40)): expected a period, as 60s")
                }
                everyPeriod = period
            default:
                throw Invalid(reason: "unknown parameter '\(name.prefix(40))' (delay, jitter, rate, loss and their down- "
                    + "and up- forms, nat-idle, blackout, every)")
            }
        }
        if let everyPeriod {
            guard var blackout else { throw Invalid(reason: "every= repeats a blackout: give blackout=DURATION@WHEN") }
            guard everyPeriod > blackout.duration else {
                throw Invalid(reason: "every= must be longer than the blackout it repeats")
            }
            blackout.every = everyPeriod
            self.blackout = blackout
        }
        for direction in [down, up] where direction.jitter > direction.delay {
            throw Invalid(reason: "jitter is at most the delay it varies (a segment cannot arrive before it left)")
        }
        self.text = text
    }

    /// `1mbit`, `500kbit`, `2.5gbit`, `9600bit`: bits per second, at least 1 kbit.
    private static func rate(_ name: String, _ value: String) throws(Invalid) -> UInt64 {
        let units: [(String, UInt64)] = [("gbit", 1_000_000_000), ("mbit", 1_000_000), ("kbit", 1_000), ("bit", 1)]
        let lowered = value.lowercased()
        guard let (suffix, scale) = units.first(where: { lowered.hasSuffix($0.0) }),
            let number = DecimalNumber(Substring(lowered.dropLast(suffix.count))), let bits = number.scaled(by: scale),
            bits >= 1_000, bits <= 100_000_000_000
        else {
            throw Invalid(reason: "\(name)=\(value.prefix(40)): expected bits per second from 1kbit to 100gbit, as 1mbit or 500kbit")
        }
        return bits
    }

    /// `2%`, `0.5%`: in millionths, at most 50%.
    private static func loss(_ name: String, _ value: String) throws(Invalid) -> UInt32 {
        guard value.hasSuffix("%"), let number = DecimalNumber(Substring(value.dropLast())),
            let millionths = number.scaled(by: 10_000), millionths <= 500_000
        else { throw Invalid(reason: "\(name)=\(value.prefix(40)): expected a percent from 0% to 50%, as 2%") }
        return UInt32(millionths)
    }

    /// Apple's Network Link Conditioner's profiles, with its published numbers (down, then up).
    public static let presets: [(name: String, profile: LinkProfile)] = [
        ("wifi", link(down: (40_000_000, 1), up: (33_000_000, 1))),
        ("dsl", link(down: (2_000_000, 5), up: (256_000, 5))),
        ("lte", link(down: (50_000_000, 50), up: (10_000_000, 65))),
        ("3g", link(down: (780_000, 100), up: (330_000, 100))),
        ("edge", link(down: (240_000, 400), up: (200_000, 440))),
        ("verybad", link(down: (1_000_000, 500), up: (1_000_000, 500), lossPercent: 10)),
    ]

    private static func link(down: (UInt64, UInt64), up: (UInt64, UInt64), lossPercent: UInt32 = 0) -> LinkProfile {
        var profile = LinkProfile(
            down: Direction(delay: down.1 * 1_000_000, rate: down.0, lossPerMillion: lossPercent * 10_000),
            up: Direction(delay: up.1 * 1_000_000, rate: up.0, lossPerMillion: lossPercent * 10_000))
        profile.text = ""
        return profile
    }

    /// The link in words: each direction's rate, delay, jitter and loss, then the NAT and the blackouts.
    public var summary: String {
        func words(_ direction: Direction) -> String {
            var parts = [direction.rate.map(Self.rateText) ?? "unlimited", DurationText.display(direction.delay)]
            if direction.jitter > 0 { parts.append("±" + DurationText.display(direction.jitter)) }
            if direction.lossPerMillion > 0 { parts.append(Self.percentText(direction.lossPerMillion) + " loss") }
            return parts.joined(separator: " ")
        }
        var text = "down \(words(down)), up \(words(up))"
        if let natIdle { text += ", NAT forgets after \(DurationText.display(natIdle)) idle" }
        if let blackout {
            text += ", blackout \(DurationText.display(blackout.duration)) at \(DurationText.display(blackout.start))"
                + (blackout.every.map { " every \(DurationText.display($0))" } ?? "")
        }
        return text
    }

    static func rateText(_ bits: UInt64) -> String {
        for (scale, unit) in [(UInt64(1_000_000_000), "Gbit/s"), (1_000_000, "Mbit/s"), (1_000, "kbit/s")] where bits >= scale {
            return (bits % scale == 0 ? "\(bits / scale)" : "\(Double(bits) / Double(scale))") + " " + unit
        }
        return "\(bits) bit/s"
    }

    static func percentText(_ millionths: UInt32) -> String {
        millionths % 10_000 == 0 ? "\(millionths / 10_000)%" : "\(Double(millionths) / 10_000)%"
    }
}
