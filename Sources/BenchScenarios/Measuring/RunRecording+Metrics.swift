extension RunRecording {
    /// True when the metrics read kernel stamps.
    public var usesKernelStamps: Bool { configuration.timestamps.usesKernel }
}

extension UInt64 {
    /// `self − other`, or 0 when `other` is larger (a kernel stamp a conversion's uncertainty away).
    @inline(__always)
    func subtractingClamped(_ other: UInt64) -> UInt64 {
        self >= other ? self - other : 0
    }
}
