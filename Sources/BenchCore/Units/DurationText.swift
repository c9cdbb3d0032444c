/// Durations as people write them on a command line: `250ns`, `10us`, `10µs`, `1.5ms`, `200 ms`, `2s`.
public enum DurationText {
    private static let units: [(suffix: String, nanoseconds: UInt64)] = [
        ("ns", 1), ("us", 1_000), ("ms", 1_000_000), ("s", 1_000_000_000),
    ]
    /// What ``parse(_:)`` reads: the units, and microseconds as the reports write them, `µs` (the micro sign,
    /// U+00B5, or the Greek mu, U+03BC), longest suffix first.
    private static let spellings: [(suffix: String, nanoseconds: UInt64)] =
        (units + [("\u{B5}s", 1_000), ("\u{3BC}s", 1_000)]).sorted { $0.suffix.count > $1.suffix.count }

    /// Reads a duration into nanoseconds.
    ///
    /// A number (decimals allowed) followed by `ns`, `us` (or `µs`), `ms` or `s`, with or without spaces between
    /// them (`200 ms`); a bare `0` is also accepted. The result must be a whole number of nanoseconds.
    public static func parse(_ text: String) throws(UnitError) -> UInt64 {
        if text == "0" { return 0 }
        guard let unit = spellings.first(where: { text.hasSuffix($0.suffix) })
        else {
            let reason = DecimalNumber(Substring(text)) != nil
                ? "missing unit (ns, us, ms, s)" : "expected a number and a unit: ns, us, ms or s (e.g. 10ms)"
            throw UnitError(text: text, reason: reason)
        }
        let numberText = text.dropLast(unit.suffix.count)
        guard let number = DecimalNumber(numberText.dropLast(numberText.reversed().prefix { $0 == " " }.count)) else {
            throw UnitError(text: text, reason: "expected a number and a unit: ns, us, ms or s (e.g. 10ms)")
        }
        guard let nanoseconds = number.scaled(by: unit.nanoseconds) else {
            throw UnitError(text: text, reason: "not a whole number of nanoseconds, or too large")
        }
        return nanoseconds
    }

    /// Reads a long time where one is meant (a threshold's limit): what ``parse(_:)`` reads, and minutes and hours
    /// spelled so that no typo of `ms` reads as them, `90min`, `1.5h`; `10m` is refused, naming both readings.
    public static func parseLong(_ text: String) throws(UnitError) -> UInt64 {
        if text.hasSuffix("m") && !text.hasSuffix("ms") {
            throw UnitError(text: text, reason: "m is minutes only in --duration: write 10ms, or 10min for minutes")
        }
        if text.hasSuffix("min") || text.hasSuffix("h") { return try parseRunLength(text) }
        do {
            return try parse(text)
        } catch {
            guard error.reason.hasPrefix("expected") else { throw error }
            throw UnitError(text: text, reason: "expected a number and a unit: ns, us, ms, s, min or h (e.g. 10ms)")
        }
    }

    /// Reads the length of a whole run (`--duration`): what ``parse(_:)`` reads, and minutes and hours, `5m`, `90min`,
    /// `1.5h`. Only there: anywhere else `10m` is more likely a mistyped `10ms` than ten minutes.
    public static func parseRunLength(_ text: String) throws(UnitError) -> UInt64 {
        for (suffix, nanoseconds) in [("min", 60_000_000_000), ("h", 3_600_000_000_000), ("m", 60_000_000_000)] as [(String, UInt64)]
        where text.hasSuffix(suffix) && !text.hasSuffix("ms") {
            let numberText = text.dropLast(suffix.count)
            guard let number = DecimalNumber(numberText.dropLast(numberText.reversed().prefix { $0 == " " }.count)),
                let value = number.scaled(by: nanoseconds)
            else {
                throw UnitError(text: text, reason: "expected a number and a unit: s, m, h (e.g. 5m)")
            }
            return value
        }
        do {
            return try parse(text)
        } catch {
            guard error.reason.hasPrefix("expected") || error.reason.hasPrefix("missing") else { throw error }
            throw UnitError(text: text, reason: "expected a number and a unit: ns, us, ms, s, m or h (e.g. 5m)")
        }
    }

    /// The shortest exact form: `0`, `250ns`, `1us`, `1.5ms`, `10ms`, `2s`. It parses back to the same value.
    public static func format(_ nanoseconds: UInt64) -> String {
        if nanoseconds == 0 { return "0" }
        for unit in units.reversed() where nanoseconds >= unit.nanoseconds {
            let whole = nanoseconds / unit.nanoseconds
            let remainder = nanoseconds % unit.nanoseconds
            guard remainder != 0 else { return "\(whole)\(unit.suffix)" }
            let width = String(unit.nanoseconds - 1).count
            var digits = String(repeating: "0", count: width - String(remainder).count) + String(remainder)
            while digits.hasSuffix("0") { digits.removeLast() }
            return "\(whole).\(digits)\(unit.suffix)"
        }
        return "\(nanoseconds)ns"
    }

    /// A duration for people, as the summary table shows it: three or four significant digits and the unit that
    /// suits the size: `850ns`, `402.3µs`, `12.34ms`, `1.234s`.
    public static func display(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        switch value {
        case ..<1_000: return "\(nanoseconds)ns"
        // A value that would round up to 1000 of a unit is shown in the next one: 999.96µs is 1.00ms, not 1000.0µs.
        case ..<999_950: return DecimalText.fixed(value / 1e3, fractionDigits: 1) + "\u{B5}s"
        case ..<999_995_000: return DecimalText.fixed(value / 1e6, fractionDigits: 2) + "ms"
        default: return DecimalText.fixed(value / 1e9, fractionDigits: 3) + "s"
        }
    }
}
