import BenchCore

/// Durations for people: three or four significant digits and the unit that suits the size.
public enum DisplayDuration {
    /// `850ns`, `402.3µs`, `12.34ms`, `1.234s` (``DurationText/display(_:)``, which thresholds print too).
    public static func text(nanoseconds value: UInt64) -> String {
        DurationText.display(value)
    }
}
