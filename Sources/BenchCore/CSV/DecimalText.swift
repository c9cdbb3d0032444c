/// Fixed-point decimal text, never in exponent notation: what CSV columns and terminal tables show.
public enum DecimalText {
    /// `value` rounded half away from zero to `fractionDigits` decimals, `.` as separator: (99.95, 2) → `99.95`,
    /// (1e-7, 3) → `0.000`, (-1.25, 1) → `-1.3`. Non-finite values give an empty string.
    public static func fixed(_ value: Double, fractionDigits: Int) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, fractionDigits: fractionDigits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``fixed(_:fractionDigits:)`` without the decimals it does not need: (99.5, 3) → `99.5`, (100, 3) → `100`.
    public static func trimmed(_ value: Double, fractionDigits: Int) -> String {
        var text = fixed(value, fractionDigits: fractionDigits)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
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

    /// Appends `value` rounded half away from zero to `fractionDigits` (0...15) decimals, rounding the double's
    /// exact binary value `significand · 2^exponent` once (never `value · 10^digits` as a double first). No
    /// exponent notation at any magnitude; non-finite values append nothing; `-` only if the rounded value is
    /// non-zero. Allocates nothing beyond `bytes` below 2^53, where the work fits a `UInt128`.
    static func appendFixed(_ value: Double, fractionDigits: Int, to bytes: inout [UInt8]) {
        precondition(fractionDigits >= 0 && fractionDigits <= 15)
        guard value.isFinite else { return }
        let magnitude = value.magnitude
        let significand = magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
        let exponent = magnitude.isNormal ? Int(magnitude.exponentBitPattern) - 1075 : -1074
        guard exponent <= 0 else {
            // |value| ≥ 2^53 is a whole number: its exact digits, then zero decimals.
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            appendInteger(significand: significand, shiftedLeftBy: exponent, to: &bytes)
            if fractionDigits > 0 {
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: fractionDigits))
            }
            return
        }
        var scale: UInt64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        // magnitude · 10^digits = significand · scale / 2^shift, with significand · scale < 2^53 · 10^15 < 2^103:
        // for shift ≥ 104 that is below one half and rounds to 0, so stopping at 128 bits loses nothing.
        let shift = -exponent
        let numerator = UInt128(significand) * UInt128(scale)
        var scaled: UInt128 = 0
        if shift == 0 {
            scaled = numerator
        } else if shift < 128 {
            scaled = numerator >> shift
            let remainder = numerator - (scaled << shift)
            if remainder >= (1 as UInt128) << (shift - 1) { scaled += 1 }  // the exact remainder is ≥ one half
        }
        // scaled ≤ 2^53 · scale, so the whole part fits 64 bits.
        let whole = UInt64(scaled / UInt128(scale))
        if value < 0 && scaled != 0 { bytes.append(UInt8(ascii: "-")) }
        appendInteger(whole, to: &bytes)
        guard fractionDigits > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var fraction = UInt64(scaled % UInt128(scale))
        var divisor = scale / 10
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
    }
}
