extension DecimalText {
    /// Appends the exact decimal digits of `significand · 2^exponent` (exponent ≥ 0): the whole numbers that
    /// doubles of 2^53 and above are, up to `greatestFiniteMagnitude` (309 digits). Rare, so it uses arrays:
    /// 32-bit limbs divided by 10^9 until nothing is left, each remainder nine more digits.
    static func appendInteger(significand: UInt64, shiftedLeftBy exponent: Int, to bytes: inout [UInt8]) {
        precondition(exponent >= 0)
        // Little-endian limbs: the significand moved up by the bit part of the shift, placed at the word part.
        var limbs = [UInt32](repeating: 0, count: exponent / 32 + 3)
        let shifted = UInt128(significand) << (exponent % 32)  // < 2^96: three limbs
        for index in 0..<3 {
            limbs[exponent / 32 + index] = UInt32(truncatingIfNeeded: shifted >> (32 * index))
        }
        while limbs.last == 0 { limbs.removeLast() }

        let billion: UInt64 = 1_000_000_000
        var groups: [UInt32] = []  // base 10^9, least significant first
        while !limbs.isEmpty {
            var remainder: UInt64 = 0
            for index in limbs.indices.reversed() {
                let current = remainder << 32 | UInt64(limbs[index])
                limbs[index] = UInt32(current / billion)
                remainder = current % billion
            }
            groups.append(UInt32(remainder))
            while limbs.last == 0 { limbs.removeLast() }
        }

        appendInteger(UInt64(groups.last ?? 0), to: &bytes)
        for group in groups.dropLast().reversed() {
            var divisor: UInt32 = 100_000_000
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(group / divisor % 10))
                divisor /= 10
            }
        }
    }
}
