extension UInt64 {
    /// `self − other`, or 0 when `other` is larger (a kernel stamp a conversion's uncertainty away).
    @inline(__always)
    public func subtractingClamped(_ other: UInt64) -> UInt64 {
        self >= other ? self - other : 0
    }

    /// `self + other`, or `UInt64.max` when that overflows (a timeout of the longest kind and more).
    @inline(__always)
    public func addingClamped(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }

    /// `self × other`, or `UInt64.max` when that overflows (a budget of many runs' lengths).
    @inline(__always)
    public func multipliedClamped(by other: UInt64) -> UInt64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }

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
