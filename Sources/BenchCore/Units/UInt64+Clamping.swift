extension UInt64 {
    /// `value` rounded to the nearest whole number and clamped to `0...UInt64.max` (NaN is 0): for turning a
    /// computed statistic back into nanoseconds, where a value at 2^64 would otherwise trap.
    public init(roundingClamped value: Double) {
        let rounded = value.rounded()
        if !(rounded > 0) {
            self = 0
        } else if rounded >= 0x1p64 {
            self = .max
        } else {
            self = UInt64(rounded)
        }
    }
}
