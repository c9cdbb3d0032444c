/// Fixed-point decimal text, never in exponent notation: what CSV columns and terminal tables show.
public enum DecimalText {
    /// `value` rounded half away from zero to `fractionDigits` decimals, `.` as separator: (99.95, 2) → `99.95`,
    /// (1e-7, 3) → `0.000`, (-1.25, 1) → `-1.3`. Non-finite values give an empty string.
    public static func fixed(_ value: Double, fractionDigits: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, fractionDigits: fractionDigits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Nanoseconds as microseconds with exactly three decimals, from the integer: 1_234_567 → `1234.567`.
    public static func microseconds(fromNanoseconds value: UInt64) -> String {
        var bytes: [UInt8] = []
        appendMicroseconds(fromNanoseconds: value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the decimal digits of `value`, without allocating.
    @inline(__always)
    static func appendInteger(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = digits.count
            var rest = value
            repeat {
                position -= 1
                digits[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position...]))
        }
    }

    static func appendMicroseconds(fromNanoseconds value: UInt64, to bytes: inout [UInt8]) {
        appendInteger(value / 1000, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        let fraction = value % 1000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    static func appendFixed(_ value: Double, fractionDigits: Int, to bytes: inout [UInt8]) {
        precondition(fractionDigits >= 0 && fractionDigits <= 15)
        guard value.isFinite else { return }
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let magnitude = (value.magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero)
        guard magnitude < 1.8e19 else {
            // Beyond what an integer holds: the digits of the whole part are all that is meaningful anyway.
            bytes.append(contentsOf: value.rounded().description.utf8)
            return
        }
        let scaled = UInt64(magnitude)
        if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(scaled / scale, to: &bytes)
        guard fractionDigits > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var fraction = scaled % scale
        var divisor = scale / 10
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }
}
