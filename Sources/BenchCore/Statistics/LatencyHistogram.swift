/// A log-linear histogram of nanosecond values, in the layout of HdrHistogram, with at most 0.1% error.
///
/// Values below `2^subBucketBits` are counted exactly. Above, each power-of-two range `[2^k, 2^(k+1))` is
/// split into `2^(subBucketBits-1)` equal buckets, so a bucket is at most `1/2^(subBucketBits-1)` of its low
/// bound wide: with the default 11 bits, 1/1024, and a percentile reported at the bucket's midpoint is off by
/// at most 1/2048 of the value (< 0.1%). Counts live in one array allocated in `init`; ``record(_:)`` never
/// allocates. Minimum and maximum are exact. Mean and standard deviation come from the values themselves, not the
/// buckets, by Welford's algorithm on the values less the first one: the variance is a sum of non-negative terms,
/// so no digits cancel wherever the first value falls. The mean is the first value plus the running mean of the
/// differences from it, so it is off by roughly 1e-16 · |first − mean| · √count: negligible unless an outlier far
/// from the rest comes first (2^44 ns, then two million values near 10 µs: 8e-8 relative).
public struct LatencyHistogram: Sendable {
    /// One bin of ``bins(coarseSubBucketBits:)``: values in `low..<high`.
    public struct Bucket: Equatable, Sendable {
        public let low: UInt64
        public let high: UInt64
        public let count: UInt64
    }

    @usableFromInline let subBucketBits: Int
    /// The largest value counted; larger ones are refused (``overflowCount``).
    public let highestTrackableValue: UInt64
    @usableFromInline var counts: [UInt64]
    @usableFromInline var recorded: UInt64 = 0
    @usableFromInline var overflowed: UInt64 = 0
    @usableFromInline var minimum = UInt64.max
    @usableFromInline var maximum = UInt64.min
    // Welford's running mean and M2 = Σ(x − mean)² of the values less `shift` (the first value), so that a tiny
    // spread next to a huge mean keeps its digits. M2 grows by non-negative terms only, where Σd² − (Σd)²/n of
    // d = x − shift cancels almost every digit when the first value is far from the rest.
    @usableFromInline var shift: UInt64 = 0
    @usableFromInline var shiftedMean = 0.0
    @usableFromInline var squaredDeviations = 0.0

    /// Creates an empty histogram for values up to `highestTrackableValue` (default 2^44 ns, about 4.9 hours).
    public init(highestTrackableValue: UInt64 = 1 << 44, subBucketBits: Int = 11) {
        precondition((2...20).contains(subBucketBits))
        self.subBucketBits = subBucketBits
        self.highestTrackableValue = highestTrackableValue
        counts = Array(repeating: 0, count: Self.index(of: highestTrackableValue, bits: subBucketBits) + 1)
    }

    /// The counts slot of `value` in a layout of `bits` sub-bucket bits.
    @inlinable @inline(__always)
    static func index(of value: UInt64, bits: Int) -> Int {
        let highestBit = 63 - (value | 1).leadingZeroBitCount
        let bucket = Swift.max(0, highestBit - (bits - 1))
        return (bucket << (bits - 1)) + Int(truncatingIfNeeded: value >> UInt64(bucket))
    }

    /// The values `low..<high` that counts slot `index` holds, in a layout of `bits` sub-bucket bits.
    static func range(of index: Int, bits: Int) -> (low: UInt64, high: UInt64) {
        let half = 1 << (bits - 1)
        guard index >= 2 * half else { return (UInt64(index), UInt64(index) + 1) }
        let bucket = index / half - 1
        let low = UInt64(index - bucket * half) << UInt64(bucket)
        return (low, low + (1 << UInt64(bucket)))
    }

    /// Counts `value`. Returns false, and counts it only in ``overflowCount``, when it exceeds the highest
    /// trackable value.
    @inlinable @discardableResult
    public mutating func record(_ value: UInt64) -> Bool {
        guard value <= highestTrackableValue else {
            overflowed &+= 1
            return false
        }
        counts[Self.index(of: value, bits: subBucketBits)] &+= 1
        if recorded == 0 { shift = value }
        recorded &+= 1
        minimum = Swift.min(minimum, value)
        maximum = Swift.max(maximum, value)
        let shifted = value >= shift ? Double(value - shift) : -Double(shift - value)  // never wraps
        // Welford's update. recorded < 2^63 (centuries of records): the signed conversion is one instruction.
        let deviation = shifted - shiftedMean
        shiftedMean += deviation / Double(Int64(truncatingIfNeeded: recorded))
        squaredDeviations += deviation * (shifted - shiftedMean)
        return true
    }

    /// The most a percentile read from the histogram is off, relative to the true value: half a bucket's width, 1/2048
    /// with the default 11 sub-bucket bits (about 0.05%).
    public var relativeError: Double { 1 / Double(1 << subBucketBits) }

    /// Values counted (overflows excluded).
    public var count: UInt64 { recorded }

    /// Values refused because they exceeded the highest trackable value.
    public var overflowCount: UInt64 { overflowed }

    /// The smallest value counted, exactly.
    public var min: UInt64? { recorded > 0 ? minimum : nil }

    /// The largest value counted, exactly.
    public var max: UInt64? { recorded > 0 ? maximum : nil }

    /// The mean of the values counted.
    public var mean: Double? {
        guard recorded > 0 else { return nil }
        return Double(shift) + shiftedMean
    }

    /// The population standard deviation of the values counted.
    public var standardDeviation: Double? {
        guard recorded > 0 else { return nil }
        return Swift.max(0, squaredDeviations / Double(recorded)).squareRoot()
    }

    /// The nearest-rank percentile: the value of rank `ceil(p/100 · count)`, reported as the midpoint of its
    /// bucket and kept within the exact minimum and maximum. `p` is in 0...100 (read to 0.001).
    public func value(atPercentile p: Double) -> UInt64? {
        guard recorded > 0 else { return nil }
        precondition((0...100).contains(p))
        let thousandths = UInt64((p * 1000).rounded())
        let rank = Swift.max(1, (thousandths * recorded + 99_999) / 100_000)
        guard rank < recorded else { return maximum }
        var seen: UInt64 = 0
        for index in counts.indices where counts[index] > 0 {
            seen += counts[index]
            if seen >= rank {
                let (low, high) = Self.range(of: index, bits: subBucketBits)
                return Swift.min(Swift.max(low + (high - low - 1) / 2, minimum), maximum)
            }
        }
        return maximum
    }

    /// How many values counted were at or above `limit`, to the bucket: the bucket that holds `limit` counts whole
    /// (at most 0.1% of the limit wider), so a count over a threshold's limit is never too low.
    public func count(atOrAbove limit: UInt64) -> Int {
        guard recorded > 0, limit > minimum else { return Int(recorded) }
        guard limit <= maximum else { return 0 }
        var total: UInt64 = 0
        for index in Self.index(of: Swift.min(limit, highestTrackableValue), bits: subBucketBits)..<counts.count {
            total += counts[index]
        }
        return Int(total)
    }

    /// Adds the counts of `other`, which must have the same layout.
    public mutating func add(_ other: LatencyHistogram) {
        precondition(other.subBucketBits == subBucketBits && other.counts.count == counts.count)
        guard other.recorded > 0 else {
            overflowed &+= other.overflowed
            return
        }
        if recorded == 0 {
            (shift, shiftedMean, squaredDeviations) = (other.shift, other.shiftedMean, other.squaredDeviations)
        } else {
            // Chan et al.'s parallel combination. M2 does not depend on the shift; other's mean is re-centred on
            // this histogram's shift (the shifts' difference is taken in integers, so it never wraps).
            let shifts = other.shift >= shift ? Double(other.shift - shift) : -Double(shift - other.shift)
            let delta = (shifts + other.shiftedMean) - shiftedMean
            let n = Double(recorded)
            let otherN = Double(other.recorded)
            let total = n + otherN
            shiftedMean += delta * (otherN / total)
            squaredDeviations += other.squaredDeviations + delta * delta * (n * otherN / total)
        }
        for index in counts.indices { counts[index] &+= other.counts[index] }
        recorded &+= other.recorded
        overflowed &+= other.overflowed
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
    }

    /// One step of ``percentileDistribution(ticksPerHalfDistance:)``.
    public struct PercentileStep: Equatable, Sendable {
        /// The highest value its bucket holds (HdrHistogram's "highest equivalent value").
        public let value: UInt64
        /// The percentile level reached, 0...100.
        public let percentile: Double
        /// Values counted up to and including this bucket.
        public let totalCount: UInt64
    }

    /// The steps HdrHistogram's `outputPercentileDistribution` prints: percentile levels that halve the distance
    /// to 100% with `ticksPerHalfDistance` levels in each half, from 0%, each at the first bucket that reaches it;
    /// then a last step at 100%.
    public func percentileDistribution(ticksPerHalfDistance: Int = 5) -> [PercentileStep] {
        guard recorded > 0 else { return [] }
        var steps: [PercentileStep] = []
        var level = 0.0
        var total: UInt64 = 0
        for index in counts.indices where counts[index] > 0 {
            total += counts[index]
            let value = Swift.min(Self.range(of: index, bits: subBucketBits).high - 1, maximum)
            let reached = 100 * Double(total) / Double(recorded)
            while reached >= level {
                steps.append(PercentileStep(value: value, percentile: level, totalCount: total))
                let halvings = Int(portableLog2(100 / (100 - level)))
                level += 100 / Double(ticksPerHalfDistance << (halvings + 1))
                if total == recorded { break }  // the last bucket reports one level, then the 100% step
            }
        }
        steps.append(PercentileStep(value: maximum, percentile: 100, totalCount: recorded))
        return steps
    }

    /// HdrHistogram's bucket count for this layout (for the `.hgrm` footer).
    public var bucketCount: Int { counts.count >> (subBucketBits - 1) - 1 }

    /// HdrHistogram's sub-bucket count for this layout (for the `.hgrm` footer).
    public var subBucketCount: Int { 1 << subBucketBits }

    /// The counts merged into coarser bins of the same shape, `2^(coarseSubBucketBits-1)` per power of two.
    ///
    /// Coarse bin boundaries are a subset of the fine ones, so the merge is exact. Every bin from the first
    /// non-empty one to the last is returned, empty ones between included; an empty histogram has none.
    public func bins(coarseSubBucketBits bits: Int) -> [Bucket] {
        precondition(bits >= 2 && bits <= subBucketBits)
        var coarse: [Int: UInt64] = [:]
        for index in counts.indices where counts[index] > 0 {
            let low = Self.range(of: index, bits: subBucketBits).low
            coarse[Self.index(of: low, bits: bits), default: 0] += counts[index]
        }
        guard let first = coarse.keys.min(), let last = coarse.keys.max() else { return [] }
        return (first...last).map { index in
            let (low, high) = Self.range(of: index, bits: bits)
            return Bucket(low: low, high: high, count: coarse[index] ?? 0)
        }
    }
}
