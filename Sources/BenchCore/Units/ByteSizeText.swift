/// Sizes as people write them on a command line: `64`, `64B`, `1KiB`, `2MiB`.
public enum ByteSizeText {
    private static let units: [(suffix: String, bytes: Int)] = [("MiB", 1 << 20), ("KiB", 1 << 10), ("B", 1)]

    /// Reads a size in bytes: a whole number, bare or followed by `B`, `KiB` or `MiB`.
    public static func parse(_ text: String) throws(UnitError) -> Int {
        let unit = units.first { text.hasSuffix($0.suffix) }
        let number = text.dropLast(unit?.suffix.count ?? 0)
        guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit), let value = Int(number) else {
            throw UnitError(text: text, reason: "expected a whole number of bytes, optionally with B, KiB or MiB")
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: unit?.bytes ?? 1)
        guard !overflow else { throw UnitError(text: text, reason: "too large") }
        return bytes
    }

    /// `64B`, `1KiB`, `1536B`, `1MiB`: the largest unit that divides the size.
    public static func format(_ bytes: Int) -> String {
        let unit = units.first { bytes != 0 && bytes % $0.bytes == 0 } ?? units.last!
        return "\(bytes / unit.bytes)\(unit.suffix)"
    }
}
