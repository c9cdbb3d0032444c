/// The SplitMix64 generator (Steele, Lea and Flood, 2014): tiny, fast, and the same stream for a seed on
/// every platform and Swift version, which is what makes `--seed` repeat a run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    @usableFromInline var state: UInt64

    /// A stream from a seed.
    public init(seed: UInt64) {
        state = seed
    }

    /// One of many independent streams from one seed, e.g. one per client: the seed is mixed with the stream
    /// number through one SplitMix64 step, so neighbouring stream numbers give unrelated streams.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SplitMix64(seed: stream ^ 0x6A09_E667_F3BC_C909)
        state = seed ^ mixer.next()
    }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An unbiased integer in `0..<bound` (Lemire's multiply-shift method with rejection).
    public mutating func nextBounded(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0)
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// A uniform double in `(0, 1]`, from the top 53 bits: never 0, so its logarithm is finite.
    public mutating func nextUnitInterval() -> Double {
        Double((next() >> 11) + 1) * 0x1.0p-53
    }

    /// Shuffles `buffer` in place (Fisher–Yates), without allocating.
    public mutating func shuffle(_ buffer: UnsafeMutableBufferPointer<UInt32>) {
        guard buffer.count > 1 else { return }
        for index in stride(from: buffer.count - 1, to: 0, by: -1) {
            let other = Int(nextBounded(UInt64(index + 1)))
            buffer.swapAt(index, other)
        }
    }
}
