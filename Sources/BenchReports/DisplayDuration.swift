import BenchCore

/// Durations for people: three or four significant digits and the unit that suits the size.
public enum DisplayDuration {
    /// `850ns`, `402.3µs`, `12.34ms`, `1.234s`.
    public static func text(nanoseconds value: UInt64) -> String {
        let value = Double(value)
        switch value {
        case ..<1_000: return "\(Int(value))ns"
        case ..<1_000_000: return DecimalText.fixed(value / 1e3, fractionDigits: 1) + "µs"
        case ..<1_000_000_000: return DecimalText.fixed(value / 1e6, fractionDigits: 2) + "ms"
        default: return DecimalText.fixed(value / 1e9, fractionDigits: 3) + "s"
        }
    }
}
